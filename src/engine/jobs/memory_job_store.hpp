// SPDX-License-Identifier: MIT OR Apache-2.0
// A job store in memory: the same contract as the SQLite store without durability, for tests and
// for a daemon run that opts out of persistence. A "restart" is simulated by handing the same
// store to a new engine.
//
// Thread safety: any thread; one mutex.
#pragma once

#include <map>
#include <mutex>

#include "engine/jobs/job_store.hpp"

namespace cuzk::engine {

class memory_job_store final : public job_store {
 public:
  result<insert_outcome> insert(const job_record& rec) override;
  status update_state(job_id id, job_state state, uint32_t attempts) override;
  status finish(const job_result& info) override;
  result<std::optional<job_record>> get(job_id id) override;
  result<std::optional<job_id>> find_request(const std::string& request_id) override;
  result<std::vector<job_record>> unfinished() override;
  result<std::vector<std::string>> purge_finished_before(wall_time cutoff) override;
  status put_circuit(const circuit_record& c) override;
  status remove(job_id id) override;
  status remove_circuit(const std::string& id) override;
  result<std::vector<circuit_record>> circuits() override;

 private:
  std::mutex m_;
  job_id next_id_ = 1;
  std::map<job_id, job_record> jobs_;
  std::map<std::string, job_id> requests_;
  std::map<std::string, circuit_record> circuits_;
};

}  // namespace cuzk::engine
