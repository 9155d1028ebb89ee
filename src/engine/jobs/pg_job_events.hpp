// SPDX-License-Identifier: MIT OR Apache-2.0
// Waiting for a job to end on any node, woken by the database rather than by polling it.
//
// Every stored end of a job (pg_job_result.hpp: the store's finish() and a lease holder's fenced
// commit) sends NOTIFY on one channel with the job's id, delivered when its transaction commits.
// A pg_job_events holds a connection of its own that LISTENs on that channel, so a node awaiting a
// job that another node proves sleeps in poll() on that connection's socket until the server writes
// to it: no query per interval, and the wake comes within a round trip of the commit.
//
// LISTEN starts when the object is opened: an await must open (or already hold) it before reading the
// job's state, then wait, so that an end committed between the read and the wait is not missed.
// Notifications are not stored by the server: one sent while no connection listened is gone, which
// is why the state is read after LISTEN, not before.
//
// Thread safety: one waiter at a time (a mutex serializes wait_for_end); a daemon holds one object
// per awaiting thread, or one dispatcher that wakes its awaiters.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>

#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

class pg_job_events {
 public:
  // Connects and LISTENs; unavailable when the server cannot be reached.
  static result<std::unique_ptr<pg_job_events>> open(const std::string& conninfo);

  // Blocks until the end of job `id` is announced (true) or `timeout` passes (false). An end
  // announced since open() but before this call counts: it was kept.
  result<bool> wait_for_end(job_id id, std::chrono::milliseconds timeout);

 private:
  explicit pg_job_events(std::unique_ptr<pg_connection> c) : c_(std::move(c)) {}
  status take_notifications();

  std::mutex m_;
  std::unique_ptr<pg_connection> c_;
  std::set<job_id> ended_;  // announced, not yet waited for
};

}  // namespace cuzk::engine
