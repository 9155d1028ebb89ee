// A job's end written to its PostgreSQL rows: the job's state, error, times and where it ran, and each
// partition's proof. One function, so that the store's finish() and a lease holder's fenced commit
// (pg_job_leases.hpp) cannot write a result two ways.
//
// Thread safety: the caller's connection, inside the caller's transaction.
#pragma once

#include "base/result.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

// Writes `info` (its state, attempts, finish time, error, phase times, ran_on, h2d_bytes, proofs) to
// the rows of job info.id. Call inside a transaction: the job row and its partitions change together.
status pg_write_result(pg_connection& c, const job_result& info);

}  // namespace cuzk::engine
