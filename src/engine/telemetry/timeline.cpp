// SPDX-License-Identifier: MIT OR Apache-2.0
// Job timelines and their Chrome trace form (see timeline.hpp).
#include "engine/telemetry/timeline.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "base/enum_names.hpp"

namespace cuzk::engine {

const char* event_kind_name(event_kind k) noexcept {
  static constexpr auto words = words_of<event_kind::witness_end>({
      "queued", "dispatched", "key_ready", "synth_start", "synth_end", "prove_start", "prove_end",
      "verify_start", "verify_end", "done", "failed", "cancelled", "requeued", "witness_start", "witness_end"});
  return words.name(k);
}

int64_t now_unix_us() noexcept {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void timeline::record(const timeline_event& e) {
  std::lock_guard lk(m_);
  ring_.push_back(e);
  while (ring_.size() > capacity_) ring_.pop_front();
}

std::vector<timeline_event> timeline::recent() const {
  std::lock_guard lk(m_);
  return {ring_.begin(), ring_.end()};
}

void timeline::forget(job_id job) {
  std::lock_guard lk(m_);
  std::erase_if(ring_, [job](const timeline_event& e) { return e.job == job; });
}

namespace {

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

std::string chrome_trace_json(std::span<const timeline_event> events, std::span<const kernel_record> kernels,
                              std::span<const std::string> device_names) {
  nlohmann::json out = nlohmann::json::array();
  std::set<int> workers;  // tids of process 1
  std::set<std::pair<int, int>> device_rows;
  out.push_back(metadata("process_name", 1, 0, "workers"));
  out.push_back(metadata("thread_name", 1, 0, "queue"));
  for (const auto& e : events) {
    if (e.kind == event_kind::witness_start || e.kind == event_kind::witness_end) {
      out.push_back({{"name", "witness"},
                     {"cat", "witness"},
                     {"ph", e.kind == event_kind::witness_start ? "b" : "e"},
                     {"id", std::to_string(e.job) + "." + std::to_string(e.partition)},
                     {"ts", e.unix_us},
                     {"pid", 1},
                     {"tid", e.worker < 0 ? 0 : e.worker + 1},
                     {"args", {{"job", e.job}, {"partition", e.partition}}}});
      if (e.worker >= 0) workers.insert(e.worker);
      continue;
    }
    const char* span = nullptr;
    char ph = 'i';
    switch (e.kind) {
      case event_kind::synth_start:
        span = "synthesis";
        ph = 'B';
        break;
      case event_kind::synth_end:
        span = "synthesis";
        ph = 'E';
        break;
      case event_kind::prove_start:
        span = "prove";
        ph = 'B';
        break;
      case event_kind::prove_end:
        span = "prove";
        ph = 'E';
        break;
      case event_kind::verify_start:
        span = "verify";
        ph = 'B';
        break;
      case event_kind::verify_end:
        span = "verify";
        ph = 'E';
        break;
      default:
        break;
    }
    nlohmann::json j = {{"name", span ? span : event_kind_name(e.kind)},
                        {"ph", std::string(1, ph)},
                        {"ts", e.unix_us},
                        {"pid", 1},
                        {"tid", e.worker < 0 ? 0 : e.worker + 1},
                        {"args", {{"job", e.job}, {"partition", e.partition}}}};
    if (ph == 'i') j["s"] = "t";
    out.push_back(std::move(j));
    if (e.worker >= 0) workers.insert(e.worker);
  }
  for (const auto& k : kernels) {
    const int pid = device_trace_pid + k.slot;
    out.push_back({{"name", k.span.name},
                   {"cat", k.span.held ? "kernel_lock" : "kernel_part"},
                   {"ph", "X"},
                   {"ts", k.span.begin_us},
                   {"dur", k.span.end_us - k.span.begin_us},
                   {"pid", pid},
                   {"tid", k.worker + 1},
                   {"args", {{"job", k.job}, {"partition", k.partition}}}});
    device_rows.insert({k.slot, k.worker});
  }
  for (int w : workers) out.push_back(metadata("thread_name", 1, w + 1, "worker " + std::to_string(w)));
  std::set<int> named;
  for (const auto& [slot, worker] : device_rows) {
    const int pid = device_trace_pid + slot;
    if (named.insert(slot).second) {
      const bool known = slot >= 0 && static_cast<std::size_t>(slot) < device_names.size();
      out.push_back(metadata("process_name", pid, 0, known ? device_names[slot] : "device:" + std::to_string(slot)));
      out.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
    }
    out.push_back(metadata("thread_name", pid, worker + 1, "worker " + std::to_string(worker)));
  }
  return nlohmann::json{{"traceEvents", out}, {"displayTimeUnit", "ms"}}.dump();
}

}  // namespace cuzk::engine
