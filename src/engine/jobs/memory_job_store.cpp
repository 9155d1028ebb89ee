// SPDX-License-Identifier: MIT OR Apache-2.0
// The in-memory job store (see memory_job_store.hpp).
#include "engine/jobs/memory_job_store.hpp"

namespace cuzk::engine {

namespace {
status unknown(job_id id) {
  return status(errc::not_found, "job " + std::to_string(id) + ": not in the store");
}
}  // namespace

result<insert_outcome> memory_job_store::insert(const job_record& rec) {
  std::lock_guard lk(m_);
  if (!rec.info.request_id.empty()) {
    auto it = requests_.find(rec.info.request_id);
    if (it != requests_.end()) return insert_outcome{it->second, insert_effect::request_id_taken};
  }
  const job_id id = next_id_++;
  job_record r = rec;
  r.info.id = id;
  r.info.state = job_state::queued;
  r.info.attempts = 0;
  jobs_.emplace(id, std::move(r));
  if (!rec.info.request_id.empty()) requests_[rec.info.request_id] = id;
  return insert_outcome{id, insert_effect::inserted};
}

status memory_job_store::update_state(job_id id, job_state state, uint32_t attempts) {
  std::lock_guard lk(m_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return unknown(id);
  it->second.info.state = state;
  it->second.info.attempts = attempts;
  return status::ok();
}

status memory_job_store::finish(const job_result& info) {
  std::lock_guard lk(m_);
  auto it = jobs_.find(info.id);
  if (it == jobs_.end()) return unknown(info.id);
  job_result& i = it->second.info;
  i.state = info.state;
  i.attempts = info.attempts;
  i.finished_at = info.finished_at;
  i.error = info.error;
  i.deadline_missed = info.deadline_missed;
  i.times = info.times;
  i.ran_on = info.ran_on;
  i.h2d_bytes = info.h2d_bytes;
  i.proofs = info.proofs;
  return status::ok();
}

result<std::optional<job_record>> memory_job_store::get(job_id id) {
  std::lock_guard lk(m_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::optional<job_record>();
  return std::optional<job_record>(it->second);
}

result<std::optional<job_id>> memory_job_store::find_request(const std::string& request_id) {
  std::lock_guard lk(m_);
  auto it = requests_.find(request_id);
  if (it == requests_.end()) return std::optional<job_id>();
  return std::optional<job_id>(it->second);
}

result<std::vector<job_record>> memory_job_store::unfinished() {
  std::lock_guard lk(m_);
  std::vector<job_record> out;
  for (const auto& [id, r] : jobs_)
    if (!is_terminal(r.info.state)) out.push_back(r);
  return out;
}

result<std::vector<std::string>> memory_job_store::purge_finished_before(wall_time cutoff) {
  std::lock_guard lk(m_);
  std::vector<std::string> paths;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const job_result& i = it->second.info;
    if (i.finished_at && *i.finished_at < cutoff) {
      for (std::size_t k = 0; k < it->second.witness_paths.size(); ++k)
        if (it->second.spooled[k]) paths.push_back(it->second.witness_paths[k]);
      if (!i.request_id.empty()) requests_.erase(i.request_id);
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
  return paths;
}

status memory_job_store::put_circuit(const circuit_record& c) {
  std::lock_guard lk(m_);
  circuits_[c.id] = c;
  return status::ok();
}

status memory_job_store::remove(job_id id) {
  std::lock_guard lk(m_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return status::ok();
  if (!it->second.info.request_id.empty()) requests_.erase(it->second.info.request_id);
  jobs_.erase(it);
  return status::ok();
}

status memory_job_store::remove_circuit(const std::string& id) {
  std::lock_guard lk(m_);
  circuits_.erase(id);
  return status::ok();
}

result<std::vector<circuit_record>> memory_job_store::circuits() {
  std::lock_guard lk(m_);
  std::vector<circuit_record> out;
  for (const auto& [id, c] : circuits_) out.push_back(c);
  return out;
}

}  // namespace cuzk::engine
