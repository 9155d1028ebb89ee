// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's job table: the jobs it holds in memory (live_job.hpp), from their submit, claim or
// recovery until the store has taken their outcome, the last ones that ended for the status page,
// and the lock and the condition that every reader and writer of them shares.
//
// One struct rather than members of the engine spread apart: what `mutex` guards is everything
// here (and the workers' status fields, engine.hpp), and `changed` is the one condition an
// awaiter, a drain and a cluster's remote await sleep on; they belong together.
//
// Thread safety: `live`, `recent` and the fields of a live job that a reader outside its worker
// sees change under `mutex`; `unstored` is also read without it (the housekeeper's wait, a
// retry's early return). Whoever changes a job's visible state notifies `changed` after.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/jobs/job.hpp"
#include "engine/live_job.hpp"

namespace cuzk::engine {

// How many ended jobs the snapshot keeps for the status page (engine_snapshot::recent_jobs).
inline constexpr std::size_t recent_jobs_kept = 20;

struct job_table {
  // Locks after the engine's registration lock and before the scheduler's, the key manager's and
  // the store's (engine.hpp).
  mutable std::mutex mutex;
  // A job ended or went back to the queue, a worker went idle, a result waits for the store, a
  // remote job's end was heard: awaiters and a drain look again.
  std::condition_variable changed;
  std::map<job_id, std::shared_ptr<live_job>> live;
  std::deque<job_result> recent;  // newest at the front, at most recent_jobs_kept
  std::atomic<std::size_t> unstored{0};  // live jobs with `unstored` set or `parked`

  // How many jobs of `circuit` are queued or running, and the first one's id; under `mutex`.
  std::size_t count_of_locked(const std::string& circuit, job_id* first = nullptr) const {
    std::size_t n = 0;
    for (const auto& [id, j] : live)
      if (j->rec.info.circuit == circuit && !is_terminal(j->rec.info.state)) {
        if (n++ == 0 && first) *first = id;
      }
    return n;
  }

  // An ended job for the status page, its proofs already left out; under `mutex`.
  void remember_ended_locked(job_result ended) {
    recent.push_front(std::move(ended));
    if (recent.size() > recent_jobs_kept) recent.pop_back();
  }
};

}  // namespace cuzk::engine
