// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/status_json.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/version.hpp"
#include "formats/curve_id.hpp"

namespace cuzk::service {
namespace {

using nlohmann::json;

// A byte budget: null where it is unlimited (the engine's UINT64_MAX), so that a reader sees "no
// limit" rather than 18446744073709551615, a number larger than a double holds exactly.
json budget_bytes(uint64_t limit) { return limit == UINT64_MAX ? json(nullptr) : json(limit); }

// A config value as JSON of its own type: the table shows each value as TOML (config.hpp), and
// what the keys hold (integers, booleans, strings with \" and \\ escaped, arrays of those) is
// JSON written the same way. Text that does not parse (a string with a control character in it)
// stays a string.
json config_value(const std::string& toml_text) {
  json v = json::parse(toml_text, nullptr, /*allow_exceptions=*/false);
  return v.is_discarded() ? json(toml_text) : v;
}

json counters_json(const engine::job_counters& c) {
  return {{"submitted", c.submitted},
          {"completed", c.completed},
          {"failed", c.failed},
          {"cancelled", c.cancelled},
          {"deadline_misses", c.deadline_misses},
          {"recovered", c.recovered},
          {"partitions_proved", c.partitions_proved}};
}

// Every job's phases (the summary ones, reservation_wait, witness) always; the GPU ones only when
// a device ran some of the job.
json times_json(const engine::phase_times& t) {
  json j = json::object();
  bool gpu = false;
  for (int p = 0; p < engine::phase_count; ++p) gpu = gpu || (engine::is_gpu_phase(engine::phase(p)) && t.seconds[p] > 0);
  for (int p = 0; p < engine::phase_count; ++p)
    if (gpu || !engine::is_gpu_phase(engine::phase(p))) j[engine::phase_name(engine::phase(p))] = t.seconds[p];
  return j;
}

// The device tier's slots with what the backend did on each (the same order: slot index).
json devices_json(const engine::engine_snapshot& s) {
  json out = json::array();
  for (std::size_t k = 0; k < s.device_tiers.size(); ++k) {
    const auto& t = s.device_tiers[k];
    json d = {{"name", t.name},
              {"ordinal", t.ordinal},
              {"key_budget_bytes", budget_bytes(t.budget)},
              {"key_bytes", t.used},
              {"keys", t.keys}};
    // The device's memory budget (key copies and workers' buffers), shared by its slots.
    for (const auto& b : s.memory_budgets)
      if (b.kind == engine::memory_kind::device && b.ordinal == t.ordinal) {
        d["device_budget_bytes"] = budget_bytes(b.limit);
        d["device_budget_used_bytes"] = b.used;
        d["device_budget_peak_bytes"] = b.peak;
      }
    if (k < s.devices.size()) {
      const auto& a = s.devices[k];
      d["description"] = a.description;
      d["proofs"] = a.proofs;
      d["cpu_fallbacks"] = a.cpu_fallbacks;
      d["busy_s"] = a.busy_s;
      d["busy_ratio"] = s.uptime_s > 0 ? a.busy_s / s.uptime_s : 0.0;
      d["kernel_lock_wait_s"] = a.wait_s;
      d["h2d_bytes"] = a.h2d_bytes;
      d["h2d_gb_per_s"] = a.h2d_s > 0 ? a.h2d_bytes / a.h2d_s / 1e9 : 0.0;
      d["workspace_pinned_bytes"] = a.workspace_pinned_bytes;
      d["workspace_device_bytes"] = a.workspace_device_bytes;
      d["workspace_allocations"] = a.workspace_allocations;
      d["workspace_evictions"] = a.workspace_evictions;
      d["pci_bus_id"] = a.pci_bus_id;
    }
    const auto& tel = s.telemetry;
    if (k < tel.kernel.size()) {
      const auto& b = tel.kernel[k];
      d["kernel_busy"] = {{"intervals", b.intervals},     {"busy_s", b.busy_s},
                          {"ratio", b.ratio},             {"window_s", b.window_s},
                          {"window_busy_s", b.window_busy_s}, {"window_ratio", b.window_ratio}};
    }
    if (k < tel.nvml_index.size() && tel.nvml_index[k] >= 0)
      d["nvml_index"] = tel.nvml_index[k];
    else
      d["nvml_index"] = nullptr;
    out.push_back(std::move(d));
  }
  return out;
}

// NVML's view per GPU. Percentages become ratios in [0, 1], as the metrics have them; the sums
// (ratio x samples since start) are there so that a client reading twice gets the mean between.
json gpu_utilization_json(const engine::engine_snapshot& s) {
  const auto& t = s.telemetry;
  json j;
  j["monitor"] = !t.nvml_started ? "off" : t.nvml.available ? "running" : "unavailable";
  if (!t.nvml_started) {
    j["reason"] = "no GPU backend";
    return j;
  }
  if (!t.nvml.available) j["reason"] = t.nvml.reason;
  j["interval_s"] = t.nvml.interval_s;
  j["window_s"] = t.nvml.window_s;
  json devs = json::array();
  for (std::size_t i = 0; i < t.nvml.devices.size(); ++i) {
    const auto& d = t.nvml.devices[i];
    json slots = json::array();
    for (std::size_t k = 0; k < t.nvml_index.size(); ++k)
      if (t.nvml_index[k] == static_cast<int>(i) && k < s.device_tiers.size()) slots.push_back(s.device_tiers[k].name);
    devs.push_back({{"index", i},
                    {"name", d.last.name},
                    {"slots", slots},
                    {"samples", d.samples},
                    {"window_samples", d.window_samples},
                    {"sm_busy",
                     {{"last", d.last.sm_busy_pct / 100},
                      {"window", d.sm_busy_window_pct / 100},
                      {"since_start", d.sm_busy_mean_pct / 100},
                      {"sum", d.sm_busy_pct_sum / 100}}},
                    {"mem_busy",
                     {{"last", d.last.mem_busy_pct / 100},
                      {"window", d.mem_busy_window_pct / 100},
                      {"since_start", d.mem_busy_mean_pct / 100},
                      {"sum", d.mem_busy_pct_sum / 100}}},
                    {"memory_used_bytes", d.last.memory_used},
                    {"memory_total_bytes", d.last.memory_total},
                    {"memory_used_peak_bytes", d.memory_used_peak},
                    {"memory_used_window_peak_bytes", d.memory_used_window_peak},
                    {"pcie_rx_mb_s", d.last.pcie_rx_mb_s},
                    {"pcie_tx_mb_s", d.last.pcie_tx_mb_s}});
  }
  j["devices"] = devs;
  return j;
}

// What every view of a job shows, live or ended; the request id (the client's own name for its
// request) only in the full view.
json job_json(const engine::job_result& i, bool full) {
  json job = {{"id", i.id},
              {"circuit", i.circuit},
              {"priority", engine::priority_name(i.prio)},
              {"state", engine::job_state_name(i.state)},
              {"partitions", i.partitions},
              {"attempts", i.attempts},
              {"ran_on", i.ran_on},
              {"submitted_unix_ms", engine::to_unix_ms(i.submitted_at)},
              {"times", times_json(i.times)}};
  if (full) job["request_id"] = i.request_id;
  return job;
}

// `text` with every word that holds a '/' (a witness, key or spool path, absolute or relative)
// replaced by "<path>", its surrounding quotes, brackets and punctuation kept. An operator who
// reads a failed job's reason on the public view needs the why (circom's assert and line, a value
// out of range, a deadline), not the layout of a client's or the daemon's disk.
std::string without_paths(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      out += text[i++];
      continue;
    }
    std::size_t end = text.find_first_of(" \t\n\r", i);
    if (end == std::string::npos) end = text.size();
    std::size_t b = i, e = end;
    while (b < e && std::string_view("(\"'[<").find(text[b]) != std::string_view::npos) ++b;
    while (e > b && std::string_view(")\"'],.:;>").find(text[e - 1]) != std::string_view::npos) --e;
    const std::string_view core(text.data() + b, e - b);
    if (core.find('/') != std::string_view::npos)
      out.append(text, i, b - i).append("<path>").append(text, e, end - e);
    else
      out.append(text, i, end - i);
    i = end;
  }
  return out;
}

// Why a job ended as it did: its code, and its text (the public view's without paths).
void error_json(json& job, const status& error, bool full) {
  if (error.is_ok()) return;
  job["error_code"] = errc_name(error.code());
  job["error"] = full ? error.to_string() : without_paths(error.to_string());
}

// The jobs that ended last, newest first, with their phase times and, for a failed or cancelled
// one, why.
json recent_jobs_json(const engine::engine_snapshot& s, bool full) {
  json out = json::array();
  for (const auto& i : s.recent_jobs) {
    json job = job_json(i, full);
    job["finished_unix_ms"] = i.finished_at ? engine::to_unix_ms(*i.finished_at) : 0;
    job["deadline_missed"] = i.deadline_missed;
    error_json(job, i.error, full);
    out.push_back(std::move(job));
  }
  return out;
}

std::string fmt_double(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// The memory budgets (the host's first) with their evictors, and the pinned pool.
json budgets_json(const engine::engine_snapshot& s) {
  json out = json::array();
  for (const auto& b : s.memory_budgets) {
    json ev = json::array();
    for (const auto& e : b.evictors)
      ev.push_back({{"name", e.name}, {"rank", e.rank}, {"calls", e.calls}, {"bytes_freed", e.bytes_freed}});
    out.push_back({{"name", b.name},
                   {"limit_bytes", budget_bytes(b.limit)},
                   {"used_bytes", b.used},
                   {"peak_bytes", b.peak},
                   {"waiting", b.waiting},
                   {"waiting_bytes", b.waiting_bytes},
                   {"granted", b.granted},
                   {"waited", b.waited},
                   {"wait_s", b.wait_seconds},
                   {"refused_too_large", b.refused_too_large},
                   {"cancelled", b.cancelled},
                   {"evicted_bytes", b.eviction_bytes_freed},
                   {"evictors", std::move(ev)}});
  }
  return out;
}

json pinned_pool_json(const engine::pinned_pool_snapshot& p) {
  return {{"memory", p.memory},
          {"buffers", p.buffers},
          {"leased", p.leased},
          {"idle", p.idle},
          {"bytes", p.bytes},
          {"idle_bytes", p.idle_bytes},
          {"acquires", p.acquires},
          {"hits", p.hits},
          {"allocations", p.allocations},
          {"allocation_s", p.allocation_seconds},
          {"fallbacks", p.fallbacks},
          {"fallbacks_budget", p.fallbacks_budget},
          {"fallbacks_allocation", p.fallbacks_allocation},
          {"evicted_bytes", p.evicted_bytes}};
}

// The budgets and the pool as Prometheus families.
void memory_metrics(std::ostream& os, const engine::engine_snapshot& s) {
  auto family = [&](const char* name, const char* type, const char* help, auto value) {
    os << "# HELP cuzk_memory_budget_" << name << " " << help << "\n# TYPE cuzk_memory_budget_" << name << " "
       << type << "\n";
    for (const auto& b : s.memory_budgets)
      os << "cuzk_memory_budget_" << name << "{budget=\"" << b.name << "\"} " << value(b) << "\n";
  };
  using snap = engine::budget_snapshot;
  family("limit_bytes", "gauge", "the budget's limit", [](const snap& b) { return b.limit; });
  family("used_bytes", "gauge", "bytes reserved now", [](const snap& b) { return b.used; });
  family("peak_bytes", "gauge", "most bytes ever reserved at once", [](const snap& b) { return b.peak; });
  family("waiting", "gauge", "requests waiting for room now", [](const snap& b) { return b.waiting; });
  family("waited_total", "counter", "requests granted after waiting", [](const snap& b) { return b.waited; });
  family("wait_seconds_total", "counter", "time spent waiting for room",
         [](const snap& b) { return fmt_double(b.wait_seconds); });
  family("refused_total", "counter", "requests larger than the whole budget",
         [](const snap& b) { return b.refused_too_large; });
  family("evicted_bytes_total", "counter", "bytes freed by evictors for waiting requests",
         [](const snap& b) { return b.eviction_bytes_freed; });
  const auto& p = s.pinned_pool;
  os << "# HELP cuzk_pinned_pool_bytes pooled staging buffers now\n# TYPE cuzk_pinned_pool_bytes gauge\n"
     << "cuzk_pinned_pool_bytes " << p.bytes << "\n"
     << "# HELP cuzk_pinned_pool_hits_total leases served by an idle buffer\n"
     << "# TYPE cuzk_pinned_pool_hits_total counter\ncuzk_pinned_pool_hits_total " << p.hits << "\n"
     << "# HELP cuzk_pinned_pool_allocations_total buffers allocated (slow: pinning)\n"
     << "# TYPE cuzk_pinned_pool_allocations_total counter\ncuzk_pinned_pool_allocations_total " << p.allocations
     << "\n# HELP cuzk_pinned_pool_fallbacks_total leases served from pageable memory\n"
     << "# TYPE cuzk_pinned_pool_fallbacks_total counter\ncuzk_pinned_pool_fallbacks_total " << p.fallbacks << "\n";
}

// Per device slot: its keys and what the backend did on it (counters rise; rate() them).
void device_metrics(std::ostream& os, const engine::engine_snapshot& s) {
  if (s.device_tiers.empty()) return;
  auto family = [&](const char* name, const char* type, const char* help, auto value) {
    os << "# HELP cuzk_device_" << name << " " << help << "\n# TYPE cuzk_device_" << name << " " << type << "\n";
    for (std::size_t k = 0; k < s.device_tiers.size(); ++k)
      os << "cuzk_device_" << name << "{device=\"" << s.device_tiers[k].name << "\"} " << value(k) << "\n";
  };
  auto act = [&](std::size_t k) -> const engine::device_activity& {
    static const engine::device_activity none{};
    return k < s.devices.size() ? s.devices[k] : none;
  };
  family("key_bytes", "gauge", "device memory held by proving keys",
         [&](std::size_t k) { return s.device_tiers[k].used; });
  family("key_budget_bytes", "gauge", "device memory budget for proving keys",
         [&](std::size_t k) { return s.device_tiers[k].budget; });
  family("keys", "gauge", "proving keys resident", [&](std::size_t k) { return s.device_tiers[k].keys; });
  family("proofs_total", "counter", "proofs whose kernels ran here", [&](std::size_t k) { return act(k).proofs; });
  family("cpu_fallbacks_total", "counter", "proofs of this device's workers made on the CPU (key not resident)",
         [&](std::size_t k) { return act(k).cpu_fallbacks; });
  family("busy_seconds_total", "counter", "time the kernel lock was held (the device's busy time)",
         [&](std::size_t k) { return fmt_double(act(k).busy_s); });
  family("kernel_lock_wait_seconds_total", "counter", "time proofs waited for the kernel lock",
         [&](std::size_t k) { return fmt_double(act(k).wait_s); });
  family("h2d_bytes_total", "counter", "bytes copied to the device for synthesis (the witness, or a, b, c)",
         [&](std::size_t k) { return fmt_double(act(k).h2d_bytes); });
  family("h2d_seconds_total", "counter", "time those copies took (bytes / seconds = the copy rate)",
         [&](std::size_t k) { return fmt_double(act(k).h2d_s); });
  family("workspace_pinned_bytes", "gauge", "pinned host buffers of this device's workers",
         [&](std::size_t k) { return act(k).workspace_pinned_bytes; });
  family("workspace_device_bytes", "gauge", "device buffers of this device's workers",
         [&](std::size_t k) { return act(k).workspace_device_bytes; });
}

// The GPU's busy time by the daemon's clock (kernel_activity.hpp) per slot, with the NVML index as
// `gpu` where known so that it joins NVML's series; then NVML's own numbers per GPU.
void gpu_metrics(std::ostream& os, const engine::engine_snapshot& s) {
  const auto& t = s.telemetry;
  auto slot_labels = [&](std::size_t k) {
    std::string l = "device=\"" + (k < s.device_tiers.size() ? s.device_tiers[k].name : std::to_string(k)) + "\"";
    if (k < t.nvml_index.size() && t.nvml_index[k] >= 0) l += ",gpu=\"" + std::to_string(t.nvml_index[k]) + "\"";
    return l;
  };
  auto slot_family = [&](const char* name, const char* type, const char* help, auto value) {
    if (t.kernel.empty()) return;
    os << "# HELP cuzk_gpu_" << name << " " << help << "\n# TYPE cuzk_gpu_" << name << " " << type << "\n";
    for (std::size_t k = 0; k < t.kernel.size(); ++k)
      os << "cuzk_gpu_" << name << "{" << slot_labels(k) << "} " << fmt_double(value(t.kernel[k])) << "\n";
  };
  slot_family("kernel_busy_seconds_total", "counter",
              "time the device slot's kernel lock was held (the union of its kernel intervals)",
              [](const engine::kernel_busy& b) { return b.busy_s; });
  slot_family("kernel_busy_window_ratio", "gauge",
              "share of the last window (10 s) in which the kernel lock was held",
              [](const engine::kernel_busy& b) { return b.window_ratio; });
  if (!t.nvml_started) return;
  os << "# HELP cuzk_gpu_nvml_up 1 when NVML answers and the GPUs are sampled\n# TYPE cuzk_gpu_nvml_up gauge\n"
     << "cuzk_gpu_nvml_up " << (t.nvml.available ? 1 : 0) << "\n";
  auto gpu_family = [&](const char* name, const char* type, const char* help, auto value) {
    if (t.nvml.devices.empty()) return;
    os << "# HELP cuzk_gpu_" << name << " " << help << "\n# TYPE cuzk_gpu_" << name << " " << type << "\n";
    for (std::size_t i = 0; i < t.nvml.devices.size(); ++i) {
      const auto& d = t.nvml.devices[i];
      os << "cuzk_gpu_" << name << "{gpu=\"" << i << "\",name=\"" << d.last.name << "\"} " << fmt_double(value(d))
         << "\n";
    }
  };
  using dev = engine::gpu_device_stats;
  gpu_family("sm_busy_ratio", "gauge", "NVML: share of the last sample period with a kernel running",
             [](const dev& d) { return d.last.sm_busy_pct / 100; });
  gpu_family("sm_busy_window_ratio", "gauge", "NVML: mean SM busy over the last window (10 s)",
             [](const dev& d) { return d.sm_busy_window_pct / 100; });
  gpu_family("memory_busy_ratio", "gauge", "NVML: share of the last sample period with device memory in use",
             [](const dev& d) { return d.last.mem_busy_pct / 100; });
  gpu_family("memory_busy_window_ratio", "gauge", "NVML: mean memory busy over the last window (10 s)",
             [](const dev& d) { return d.mem_busy_window_pct / 100; });
  gpu_family("memory_used_bytes", "gauge", "NVML: device memory in use (every process)",
             [](const dev& d) { return static_cast<double>(d.last.memory_used); });
  gpu_family("memory_used_peak_bytes", "gauge", "NVML: the most device memory in use at a sample since start",
             [](const dev& d) { return static_cast<double>(d.memory_used_peak); });
  gpu_family("memory_total_bytes", "gauge", "NVML: device memory",
             [](const dev& d) { return static_cast<double>(d.last.memory_total); });
  gpu_family("pcie_rx_bytes_per_second", "gauge", "NVML: PCIe traffic into the GPU",
             [](const dev& d) { return d.last.pcie_rx_mb_s * 1e6; });
  gpu_family("pcie_tx_bytes_per_second", "gauge", "NVML: PCIe traffic out of the GPU",
             [](const dev& d) { return d.last.pcie_tx_mb_s * 1e6; });
  gpu_family("nvml_samples_total", "counter", "NVML samples taken",
             [](const dev& d) { return static_cast<double>(d.samples); });
}

}  // namespace

std::string status_json(const engine::engine_snapshot& s, const daemon_config& c, status_view view,
                        const cluster_status* cluster) {
  const bool full = view == status_view::full;
  json j;
  j["version"] = version();
  j["revision"] = revision();  // "" where the build had no git checkout
  j["uptime_s"] = s.uptime_s;
  j["started_unix_ms"] = engine::to_unix_ms(s.started_at);
  j["accepting"] = s.accepting;
  j["backend"] = s.backend;
  j["memory"] = {{"rss_bytes", s.rss_bytes}, {"rss_peak_bytes", s.telemetry.rss_peak_bytes}};
  if (!s.memory_budgets.empty()) {  // the host's comes first
    j["memory"]["host_budget_bytes"] = budget_bytes(s.memory_budgets.front().limit);
    j["memory"]["host_budget_used_bytes"] = s.memory_budgets.front().used;
    j["memory"]["host_budget_peak_bytes"] = s.memory_budgets.front().peak;
  }
  json depth = json::object();
  for (int p = 0; p < engine::priority_count; ++p)
    depth[engine::priority_name(engine::priority(p))] = s.queue_depth[p];
  j["queue_depth"] = depth;
  j["routed_to_key_slot"] = s.routed_to_key_slot;
  const engine::witness_ahead_snapshot& wa = s.witnesses_ahead;
  j["witnesses_ahead"] = {{"threads", wa.threads},          {"computing", wa.computing},
                          {"ready", wa.ready},              {"computed", wa.computed},
                          {"taken_ready", wa.taken_ready},  {"waited_for", wa.waited},
                          {"computed_by_worker", wa.computed_by_worker}, {"evicted", wa.evicted}};
  j["memory_budgets"] = budgets_json(s);
  j["pinned_pool"] = pinned_pool_json(s.pinned_pool);
  // A live job's age and, once a worker took it, how long it has run and which partition the
  // worker is on: a job stuck in one phase shows as a growing number, not only as a count. "Now"
  // is the snapshot's own (its start plus its uptime), so the document stays a function of it.
  const int64_t now_us = engine::to_unix_ms(s.started_at) * 1000 + static_cast<int64_t>(s.uptime_s * 1e6);
  json jobs = json::array();
  for (const auto& lj : s.jobs) {
    const auto& i = lj.info;
    json e = json::array();
    int64_t dispatched_us = 0;
    for (const auto& ev : lj.events) {
      e.push_back({{"event", engine::event_kind_name(ev.kind)},
                   {"partition", ev.partition},
                   {"unix_us", ev.unix_us}});
      if (ev.kind == engine::event_kind::dispatched) dispatched_us = ev.unix_us;
    }
    json job = job_json(i, full);
    job["worker"] = lj.worker;
    job["elapsed_s"] = std::max(0.0, (now_us - engine::to_unix_ms(i.submitted_at) * 1000) / 1e6);
    if (dispatched_us != 0 && !engine::is_terminal(i.state) && i.state != engine::job_state::queued)
      job["running_s"] = std::max(0.0, (now_us - dispatched_us) / 1e6);
    for (const auto& w : s.workers)
      if (w.busy && w.job == i.id) job["partition"] = w.partition;
    error_json(job, i.error, full);
    job["events"] = std::move(e);
    jobs.push_back(std::move(job));
  }
  j["jobs"] = jobs;
  j["recent_jobs"] = recent_jobs_json(s, full);
  json workers = json::array();
  for (const auto& w : s.workers)
    workers.push_back({{"index", w.index},
                       {"device", w.device},
                       {"busy", w.busy},
                       {"job", w.job},
                       {"partition", w.partition},
                       {"state", w.busy ? engine::job_state_name(w.state) : "idle"},
                       {"busy_seconds", w.busy_seconds},
                       {"jobs", w.jobs}});
  j["workers"] = workers;
  json keys = json::array();
  for (const auto& k : s.keys) {
    json copies = json::array();
    for (const auto& d : k.devices)
      copies.push_back({{"device", d.slot},
                        {"bytes", d.bytes},
                        {"users", d.users},
                        {"uploading", d.uploading},
                        {"uploads", d.uploads},
                        {"placement", d.placement},
                        {"last_use_unix_ms", d.last_use ? engine::to_unix_ms(*d.last_use) : 0}});
    json key = {{"circuit", k.circuit},
                {"tier", k.tier_name},
                {"host_tier", k.host_tier_name},
                {"file_bytes", k.file_bytes},
                {"mapped_bytes", k.mapped_bytes},
                {"owned_bytes", k.owned_bytes},
                {"device_bytes", k.device_bytes},
                {"users", k.users},
                {"loading", k.loading},
                {"loads", k.loads},
                {"last_use_unix_ms", k.last_use ? engine::to_unix_ms(*k.last_use) : 0},
                {"devices", copies}};
    if (full) key["path"] = k.path;
    keys.push_back(std::move(key));
  }
  j["keys"] = keys;
  j["devices"] = devices_json(s);
  j["gpu_utilization"] = gpu_utilization_json(s);
  json tiers = json::array();
  for (const auto& t : s.tiers)
    tiers.push_back({{"tier", t.name},
                     {"present", t.present},
                     {"budget_bytes", budget_bytes(t.budget)},
                     {"used_bytes", t.used},
                     {"keys", t.keys}});
  j["tiers"] = tiers;
  j["counters"] = counters_json(s.counters.total);
  j["counters"]["rejected"] = s.counters.rejected_total();
  json rejected = json::object();
  for (int r = 0; r < engine::reject_reason_count; ++r)
    rejected[engine::reject_reason_name(engine::reject_reason(r))] = s.counters.rejected[r];
  j["rejected_by_reason"] = rejected;
  json circuits = json::object();
  for (const auto& [id, m] : s.counters.circuits) circuits[id] = counters_json(m.counters);
  j["circuit_counters"] = circuits;
  json cfg = json::object();
  for (const auto& k : config_table())
    if (full || !k.local_only) cfg[k.name] = config_value(k.show(c));
  j["config"] = cfg;
  if (cluster) j["cluster"] = cluster_status_json(*cluster, full);
  return j.dump(2);
}

std::string prometheus_text(const engine::engine_snapshot& s) {
  std::ostringstream os;
  const auto counter = [&](const char* name, const char* help, auto get) {
    os << "# HELP cuzk_jobs_" << name << "_total " << help << "\n# TYPE cuzk_jobs_" << name
       << "_total counter\n";
    for (const auto& [id, m] : s.counters.circuits)
      os << "cuzk_jobs_" << name << "_total{circuit=\"" << id << "\"} " << get(m.counters) << "\n";
  };
  counter("submitted", "jobs accepted", [](const auto& c) { return c.submitted; });
  counter("completed", "jobs that ended with proofs", [](const auto& c) { return c.completed; });
  counter("failed", "jobs that ended in an error", [](const auto& c) { return c.failed; });
  counter("cancelled", "jobs cancelled", [](const auto& c) { return c.cancelled; });
  counter("deadline_missed", "jobs that ended after their deadline",
          [](const auto& c) { return c.deadline_misses; });
  counter("recovered", "jobs requeued from the store at start", [](const auto& c) { return c.recovered; });
  counter("partitions_proved", "partitions proved", [](const auto& c) { return c.partitions_proved; });
  // By reason, a fixed set, every one always present: never by the circuit a refused request named.
  os << "# HELP cuzk_jobs_rejected_total submissions refused, by reason\n# TYPE cuzk_jobs_rejected_total "
        "counter\n";
  for (int r = 0; r < engine::reject_reason_count; ++r)
    os << "cuzk_jobs_rejected_total{reason=\"" << engine::reject_reason_name(engine::reject_reason(r))
       << "\"} " << s.counters.rejected[r] << "\n";

  os << "# HELP cuzk_phase_seconds time each job spent in each phase\n# TYPE cuzk_phase_seconds histogram\n";
  for (const auto& [id, m] : s.counters.circuits)
    for (int p = 0; p < engine::phase_count; ++p) {
      const auto& h = m.phases[p];
      if (h.count == 0 && engine::is_gpu_phase(engine::phase(p))) continue;  // no GPU proof yet
      const std::string labels =
          "circuit=\"" + id + "\",phase=\"" + engine::phase_name(engine::phase(p)) + "\"";
      uint64_t cum = 0;
      for (std::size_t b = 0; b < engine::latency_buckets_s.size(); ++b) {
        cum += h.counts[b];
        os << "cuzk_phase_seconds_bucket{" << labels << ",le=\"" << fmt_double(engine::latency_buckets_s[b])
           << "\"} " << cum << "\n";
      }
      os << "cuzk_phase_seconds_bucket{" << labels << ",le=\"+Inf\"} " << h.count << "\n";
      os << "cuzk_phase_seconds_sum{" << labels << "} " << fmt_double(h.sum) << "\n";
      os << "cuzk_phase_seconds_count{" << labels << "} " << h.count << "\n";
    }

  os << "# HELP cuzk_queue_depth jobs queued per priority\n# TYPE cuzk_queue_depth gauge\n";
  for (int p = 0; p < engine::priority_count; ++p)
    os << "cuzk_queue_depth{priority=\"" << engine::priority_name(engine::priority(p)) << "\"} "
       << s.queue_depth[p] << "\n";
  memory_metrics(os, s);
  os << "# HELP cuzk_routed_to_key_slot_total batches handed to the idle worker whose device held the key\n"
        "# TYPE cuzk_routed_to_key_slot_total counter\ncuzk_routed_to_key_slot_total "
     << s.routed_to_key_slot << "\n";
  // Whether the workers found their input JSON witnesses made: taken ready is the goal; waited and
  // computed by the worker are device time spent on the CPU's work.
  const engine::witness_ahead_snapshot& wa = s.witnesses_ahead;
  os << "# HELP cuzk_witness_threads threads computing input JSON witnesses ahead of the workers\n"
        "# TYPE cuzk_witness_threads gauge\ncuzk_witness_threads "
     << wa.threads
     << "\n# HELP cuzk_witnesses_ahead input JSON witnesses computing or made for queued jobs\n"
        "# TYPE cuzk_witnesses_ahead gauge\ncuzk_witnesses_ahead{state=\"computing\"} "
     << wa.computing << "\ncuzk_witnesses_ahead{state=\"ready\"} " << wa.ready
     << "\n# HELP cuzk_witness_takes_total input JSON witnesses as the workers got them\n"
        "# TYPE cuzk_witness_takes_total counter\ncuzk_witness_takes_total{how=\"ready\"} "
     << wa.taken_ready << "\ncuzk_witness_takes_total{how=\"waited\"} " << wa.waited
     << "\ncuzk_witness_takes_total{how=\"computed_by_worker\"} " << wa.computed_by_worker
     << "\n# HELP cuzk_witnesses_ahead_evicted_total ready witnesses dropped to make room for a job or a key\n"
        "# TYPE cuzk_witnesses_ahead_evicted_total counter\ncuzk_witnesses_ahead_evicted_total "
     << wa.evicted << "\n";
  std::size_t busy = 0;
  for (const auto& w : s.workers) busy += w.busy;
  os << "# HELP cuzk_workers_busy workers proving now\n# TYPE cuzk_workers_busy gauge\ncuzk_workers_busy "
     << busy << "\n# HELP cuzk_workers workers\n# TYPE cuzk_workers gauge\ncuzk_workers " << s.workers.size()
     << "\n";
  os << "# HELP cuzk_key_tier_used_bytes bytes of keys resident per tier\n# TYPE cuzk_key_tier_used_bytes "
        "gauge\n";
  for (const auto& t : s.tiers)
    os << "cuzk_key_tier_used_bytes{tier=\"" << t.name << "\"} " << t.used << "\n";
  os << "# HELP cuzk_resident_bytes process resident set\n# TYPE cuzk_resident_bytes "
        "gauge\ncuzk_resident_bytes "
     << s.rss_bytes << "\n# HELP cuzk_resident_peak_bytes process resident set, the most since start (VmHWM)\n"
     << "# TYPE cuzk_resident_peak_bytes gauge\ncuzk_resident_peak_bytes " << s.telemetry.rss_peak_bytes
     << "\n# HELP cuzk_uptime_seconds seconds since start\n# TYPE cuzk_uptime_seconds gauge\n"
     << "cuzk_uptime_seconds " << fmt_double(s.uptime_s) << "\n";
  device_metrics(os, s);
  gpu_metrics(os, s);
  return os.str();
}

}  // namespace cuzk::service
