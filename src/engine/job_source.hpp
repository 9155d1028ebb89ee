// SPDX-License-Identifier: MIT OR Apache-2.0
// Where the engine's workers get their jobs, and where a job's life is written, behind one seam.
//
// Two sources, one per way the daemon runs: the local one (local_job_source.hpp) queues on this
// daemon what its clients submit and what its store held unfinished at start; the cluster member
// (cluster_member.hpp) leaves jobs in the queue that daemons share on one PostgreSQL database,
// claims them while this daemon has a worker free, keeps their leases alive, commits results under
// them, and awaits and cancels the jobs that other daemons hold. The engine calls a source at the
// points where the two differ (a job submitted, recovered, absent from its table, started, handed
// back, ended; a drain) and nowhere else knows which one it has.
//
// Thread safety: the engine calls from its API threads, its workers and its housekeeping thread;
// each method says what it needs. A source's own threads (the cluster's) start in start() and end
// in stop().
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/job_store.hpp"
#include "engine/jobs/witness_spool.hpp"
#include "engine/live_job.hpp"

namespace cuzk::engine {

// Inline .wtns files a submit has begun, with their partitions' indexes, for it to complete once
// the job is queued (witness_spool::begin).
using begun_files = std::vector<std::pair<std::size_t, witness_spool::pending>>;

class job_source {
 public:
  virtual ~job_source() = default;

  // At start, once the circuits are registered again: the jobs the store holds unfinished.
  virtual status take_unfinished(std::vector<job_record> jobs) = 0;
  // The source's own threads, started after the workers.
  virtual void start() = 0;

  // Whether a submitted job is queued on this daemon at once, so that its inline .wtns witnesses
  // may be stored, and the files it names by path checked, while it proves (arriving_witnesses.hpp);
  // otherwise both happen before the job is stored.
  virtual bool queues_at_submit() const = 0;
  // A submitted job, durable in the store with its id: queued here, or left for a claim. `begun`
  // are its inline files still to complete (empty unless queues_at_submit()); where the source
  // queues at submit, the witnesses named by path are still to check too. Returns its id.
  virtual result<job_id> queue_submitted(const std::shared_ptr<live_job>& j, const job_request& req,
                                         const begun_files& begun) = 0;

  // A job that is not (or no longer) in the engine's table: the store's word, or, in a cluster,
  // its end awaited wherever it runs (timeout as engine::await's).
  virtual result<job_result> await_absent(job_id id, std::chrono::milliseconds timeout) = 0;
  virtual status cancel_absent(job_id id) = 0;

  // The store writes of a job's life: the start of an attempt, a drain's hand-back, the end.
  virtual void record_start(const live_job& j, uint32_t attempts) = 0;
  virtual status record_requeue(const live_job& j, uint32_t attempts) = 0;
  virtual status commit_end(const live_job& j, const job_result& info) = 0;

  // j's end is stored and published; called under the engine's job-table lock.
  virtual void ended_locked(job_id id) = 0;
  // A worker, or the place of a claimed job, is free.
  virtual void capacity_freed() = 0;

  // A drain, in this order: no new work taken; the jobs taken but not started given back (called
  // again once the workers are joined); the source's threads stopped.
  virtual void stop_taking() = 0;
  virtual void release_unstarted() = 0;
  virtual void stop() = 0;
};

}  // namespace cuzk::engine
