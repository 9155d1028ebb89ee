// SPDX-License-Identifier: MIT OR Apache-2.0
// A node's claim on a job of a shared queue: what its result is committed under, and what a
// release gives back. Its own header so that a job can carry its claim without its holder knowing
// which store leases it (pg_job_leases.hpp makes and checks them).
//
// Thread safety: a value.
#pragma once

#include <cstdint>
#include <string>

#include "engine/jobs/job.hpp"

namespace cuzk::engine {

// A job claimed by this node: what finish() and release() must present.
struct job_lease {
  job_id id = 0;
  uint64_t generation = 0;  // the fencing token: the job's claim count when this claim took it
  std::string circuit;
  priority prio = priority::normal;
  uint32_t attempts = 0;  // claims of this job so far, this one included
  // A client asked to cancel the job before this claim took it (its holder then stalled or died
  // with the flag unread): the claimer ends it cancelled without proving it.
  bool cancel_requested = false;
};

}  // namespace cuzk::engine
