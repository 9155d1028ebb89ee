// SPDX-License-Identifier: MIT OR Apache-2.0
// The job source of a daemon alone (job_source.hpp): what its clients submit is queued on it at
// once, what its store held unfinished at start is queued again in its first order, and each job's
// life is written to its own store. A job absent from the engine's table has ended (or was never
// submitted): the store says which.
//
// Thread safety: as job_source; it keeps no state of its own beyond the engine it serves.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "engine/job_source.hpp"

namespace cuzk::engine {

class engine;

class local_job_source final : public job_source {
 public:
  explicit local_job_source(engine& e) : e_(e) {}

  status take_unfinished(std::vector<job_record> jobs) override;
  void start() override {}
  bool queues_at_submit() const override { return true; }
  result<job_id> queue_submitted(const std::shared_ptr<live_job>& j, const job_request& req,
                                 const begun_files& begun) override;
  result<job_result> await_absent(job_id id, std::chrono::milliseconds timeout) override;
  status cancel_absent(job_id id) override;
  void record_start(const live_job& j, uint32_t attempts) override;
  status record_requeue(const live_job& j, uint32_t attempts) override;
  status commit_end(const live_job& j, const job_result& info) override;
  void ended_locked(job_id) override {}
  void capacity_freed() override {}
  void stop_taking() override {}
  void release_unstarted() override {}
  void stop() override {}

 private:
  enum class recovered : uint8_t { requeued, failed, withdrawn, ended };
  // One unfinished job of the store: queued again, failed (its circuit or witnesses gone, or
  // interrupted too often), removed (its submit never returned), or ended with the outcome the
  // spool kept for it when the store could not take it (parked_result.hpp).
  // The spooled witnesses of a job that stays go into `keep` (what the spool's sweep spares).
  result<recovered> recover(job_record r, std::set<std::string>& keep);
  // Stores the inline witnesses a submit began, and checks the files it names by path, while its job
  // is already queued; settles j's arrival, or withdraws the job.
  status settle_arriving(const std::shared_ptr<live_job>& j, const job_request& req, const begun_files& begun);

  engine& e_;
};

}  // namespace cuzk::engine
