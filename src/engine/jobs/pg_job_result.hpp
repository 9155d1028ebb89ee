// SPDX-License-Identifier: MIT OR Apache-2.0
// A job's end written to its PostgreSQL rows: the job's state, error, times and where it ran, and each
// partition's proof, announced to every listening node. One function, so that the store's finish()
// and a lease holder's fenced commit (pg_job_leases.hpp) cannot write a result two ways.
//
// Thread safety: the caller's connection, inside the caller's transaction.
#pragma once

#include "base/result.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

// The NOTIFY channel on which a job's end is announced; the payload is the job's id in decimal.
inline constexpr const char* pg_job_ended_channel = "cuzk_job_ended";
// The NOTIFY channel on which a job becomes claimable (submitted, or released by a draining node), so
// that idle nodes claim it at once rather than at their next poll; the payload is the job's id.
inline constexpr const char* pg_job_queued_channel = "cuzk_job_queued";

// Writes `info` (its state, attempts, finish time, error, phase times, ran_on, h2d_bytes, proofs) to
// the rows of job info.id, and for a terminal state announces it on pg_job_ended_channel. Call inside
// a transaction: the job row and its partitions change together, and the announcement is sent when
// that transaction commits.
status pg_write_result(pg_connection& c, const job_result& info);

}  // namespace cuzk::engine
