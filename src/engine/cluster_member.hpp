// SPDX-License-Identifier: MIT OR Apache-2.0
// The job source of a daemon in a cluster (job_source.hpp): many daemons, one PostgreSQL queue
// (docs/cluster.md).
//
// The engine does not queue every unfinished job at start: the jobs stay in the database until a
// node claims them (pg_job_leases.hpp), and a node claims only while it has a worker free for the
// job, so the queue's order (priority class, then FIFO) holds across the cluster and a CRITICAL job
// submitted behind many queued ones is the next job any node takes. A claimed job (adopt()) enters
// this node's scheduler as a submitted one would, so batching and routing work as alone.
//
// Three threads, besides the workers:
//   claimer    claims while this node holds fewer unended claims than it has workers; with
//              batching, a claimed job brings up to max_batch_size - 1 queued jobs of its circuit
//              and class. It sleeps until a worker frees, a job is announced on cuzk_job_queued, or
//              the fallback poll (a lease that ran out announces nothing).
//   heartbeat  extends this node's leases every third of a lease, and stops the jobs a client asked
//              (on any node) to cancel at their next phase boundary.
//   listener   LISTENs on cuzk_job_ended and cuzk_job_queued: wakes awaits of jobs held elsewhere,
//              and the claimer.
// A submit on any node writes the job and returns: whichever node is free claims it. An await of a
// job this node does not hold waits for its announced end and reads the result from the store; a
// cancel of one goes through the store (pg_job_leases::request_cancel). Results are committed
// under the claim's lease, whose fence refuses a late one.
//
// Claimed jobs live in the engine's job table like any other, under its lock; the member reads
// and ends them there, as a friend of engine.
//
// Thread safety: as job_source. cluster_m_ guards the threads' stop flags and the claimer's wake
// count; the awaits of jobs held elsewhere (remote_waits_, remote_ended_) are under the engine's
// job-table lock, which its awaiters wait on.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "engine/job_source.hpp"
#include "engine/jobs/pg_job_leases.hpp"

namespace cuzk::engine {

class engine;

class cluster_member final : public job_source {
 public:
  // Takes this node's name in the cluster (engine_options::cluster.node_name, resolved by
  // engine::create) and heartbeats once, so that the node is in `nodes` before its first claim.
  static result<std::unique_ptr<cluster_member>> open(engine& e);
  ~cluster_member() override { stop(); }

  status take_unfinished(std::vector<job_record> jobs) override;
  void start() override;
  // A job waits in the database for whichever node claims it, which reads its files: they are
  // written first.
  bool queues_at_submit() const override { return false; }
  result<job_id> queue_submitted(const std::shared_ptr<live_job>& j, const job_request& req,
                                 const begun_files& begun) override;
  result<job_result> await_absent(job_id id, std::chrono::milliseconds timeout) override;
  status cancel_absent(job_id id) override;
  // A claimed job's start was written by its claim (pg_job_leases::claim), in the same commit: one
  // fsync fewer per job, and no later write by a node whose lease ran out.
  void record_start(const live_job&, uint32_t) override {}
  // release_unstarted() gives it back to the queue once the drain ends.
  status record_requeue(const live_job&, uint32_t) override { return status::ok(); }
  status commit_end(const live_job& j, const job_result& info) override;
  void ended_locked(job_id id) override;
  void capacity_freed() override { wake_claimer(); }
  void stop_taking() override;
  void release_unstarted() override;
  void stop() override;

 private:
  cluster_member(engine& e, std::unique_ptr<pg_job_leases> leases) : e_(e), leases_(std::move(leases)) {}
  void claim_loop();
  void heartbeat_loop();
  void listen_loop();
  // Turns a claim into a queued job of this node; false when it ended at once (failed, or
  // cancelled while its previous holder held it).
  bool adopt(const job_lease& l);
  // At start: claims job `id` again and commits the outcome this node kept for it in its spool
  // (parked_result.hpp); a job another node holds, or a file refused, is left to be proved again.
  void end_parked(job_id id);
  // The claimed job's record, its circuit and its witnesses checked on this node.
  status check_claimed(live_job& j, const job_lease& l);
  // How many claimed jobs this node holds that have not ended; under the engine's lock.
  std::size_t claimed_locked() const;
  // Wakes the claimer (a worker freed, a job announced).
  void wake_claimer();

  engine& e_;
  std::unique_ptr<pg_job_leases> leases_;
  std::mutex cluster_m_;
  std::condition_variable cluster_cv_;
  uint64_t claim_wakes_ = 0;  // bumped by wake_claimer()
  bool claim_stop_ = false;    // the claimer's (a drain stops claims before the heartbeat)
  bool cluster_stop_ = false;
  bool listen_stop_ = false;
  std::thread claimer_, heartbeat_, listener_;
  // Awaits of jobs held elsewhere, by job (count of waiters), and the ends announced for them;
  // under the engine's job-table lock.
  std::map<job_id, int> remote_waits_;
  std::set<job_id> remote_ended_;
};

}  // namespace cuzk::engine
