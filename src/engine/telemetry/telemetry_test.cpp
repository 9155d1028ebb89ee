// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's hardware view (device_telemetry.hpp) and its Chrome trace with device lanes, with a
// device backend and NVML stood in by fakes: every proof's kernel intervals reach its slot's busy
// totals, a slot is matched to its NVML device by PCI bus id (and a slot NVML does not know gets
// none), an engine whose NVML does not answer says so once in the log, a CPU engine starts no
// monitor, and the trace parses as JSON with one process per device slot, one thread per worker
// and the fields Perfetto's JSON importer reads. The oracle is the fake's own record of what it
// reported.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;
using nlohmann::json;

struct fake_nvml final : gpu_sample_source {
  result<unsigned> device_count() override { return 1u; }
  result<gpu_sample> sample(unsigned i) override {
    gpu_sample s;
    s.index = i;
    s.name = "Fake GPU";
    s.sm_busy_pct = 75;
    s.memory_used = 3000;
    s.memory_total = 8000;
    return s;
  }
  result<unsigned> index_of_pci_bus_id(const std::string& bus) override {
    if (bus == "0000:01:00.0") return 0u;
    return status(errc::not_found, "no device at " + bus);
  }
};

class any_slot_key final : public device_key {
 public:
  uint64_t bytes() const noexcept override { return 1000; }
};

class any_slot_uploader final : public device_uploader {
 public:
  uint64_t estimate_bytes(const loaded_key&, uint64_t) const override { return 1000; }
  result<std::shared_ptr<const device_key>> upload(const loaded_key&, int, const device_slot&) override {
    return std::shared_ptr<const device_key>(std::make_shared<any_slot_key>());
  }
};

// Two slots, one worker each; each proof reports two held intervals of 1 ms and a part inside the
// first, ending just before prove() returns.
class spans_backend final : public prover_backend {
 public:
  const char* name() const noexcept override { return "fake-gpu"; }
  std::vector<int> worker_slots() const override { return {0, 1}; }
  result<any_proof> prove(const prove_call& c, const any_witness&, const cancel_token&,
                          prove_report& t) override {
    std::this_thread::sleep_for(5ms);
    const auto now = std::chrono::steady_clock::now();
    t.phases.kernel_spans = {{"msm_abc", now - 4000us, now - 3000us, true},
                             {"msm_a", now - 4000us, now - 3500us, false},
                             {"ntt_h", now - 2000us, now - 1000us, true}};
    t.ran_on = c.slot == 0 ? "device:0" : "device:1";
    std::lock_guard lk(m);
    ++proofs[c.slot];
    return any_proof(formats::proof<bn254>{bn254_g1::generator, bn254_g2::generator, bn254_g1::generator});
  }
  std::vector<device_activity> activity() const override {
    std::vector<device_activity> out(2);
    out[0].name = "device:0";
    out[0].description = "Fake GPU";
    out[0].pci_bus_id = "0000:01:00.0";
    out[1].name = "device:1";
    out[1].ordinal = 1;
    out[1].pci_bus_id = "0000:02:00.0";  // not a device NVML knows
    return out;
  }
  std::mutex m;
  std::map<int, int> proofs;
};

struct harness {
  // Declared before the engine, so they outlive it: its destructor drains, and a drain logs.
  std::vector<std::string> log;
  std::mutex log_m;
  std::unique_ptr<engine> eng;
  spans_backend* backend = nullptr;
  gpu_utilization_monitor* monitor = nullptr;

  explicit harness(std::unique_ptr<gpu_utilization_monitor> m) {
    engine_options o;
    o.verify_proofs = false;
    o.spool_dir = temp_dir("telemetry-spool");
    o.log = [this](log_level, const std::string& l) {
      std::lock_guard lk(log_m);
      log.push_back(l);
    };
    auto b = std::make_unique<spans_backend>();
    backend = b.get();
    monitor = m.get();
    engine_parts parts;
    parts.backend = std::move(b);
    parts.devices = {make_device_slots({0, 1}, 10000), std::make_shared<any_slot_uploader>(), {}};
    parts.gpu_monitor = std::move(m);
    eng = engine::create(std::move(o), std::move(parts)).value();
    EXPECT_TRUE(eng->register_circuit("small", small_zkey).is_ok());
  }
  void prove(int n) {
    std::vector<job_id> ids;
    for (int i = 0; i < n; ++i) ids.push_back(eng->submit(request("small")).value());
    for (job_id id : ids) ASSERT_EQ(eng->await(id, 20s).value().state, job_state::done);
  }
  int log_count(const std::string& needle) {
    std::lock_guard lk(log_m);
    int n = 0;
    for (const auto& l : log) n += l.find(needle) != std::string::npos;
    return n;
  }
};

std::unique_ptr<gpu_utilization_monitor> manual_monitor() {
  gpu_monitor_options o;
  o.thread = false;
  return std::make_unique<gpu_utilization_monitor>(std::make_unique<fake_nvml>(), o);
}

TEST(telemetry, a_forgotten_job_leaves_the_timeline_and_the_others_stay_in_order) {
  timeline t;
  for (const job_id j : {job_id{1}, job_id{2}, job_id{1}, job_id{3}}) t.record({j, 0, event_kind::queued, -1, 0});
  t.forget(1);
  const auto left = t.recent();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].job, 2u);
  EXPECT_EQ(left[1].job, 3u);
  t.forget(42);  // none of its events: nothing changes
  EXPECT_EQ(t.recent().size(), 2u);
}

TEST(telemetry, kernel_intervals_reach_their_slots_and_nvml_matches_by_bus_id) {
  harness h(manual_monitor());
  h.prove(8);
  h.monitor->poll();
  const auto s = h.eng->snapshot();
  const auto& t = s.telemetry;
  ASSERT_EQ(t.kernel.size(), 2u);
  for (int slot = 0; slot < 2; ++slot) {
    const int proofs = h.backend->proofs[slot];
    EXPECT_EQ(t.kernel[slot].intervals, 2u * proofs) << slot;
    EXPECT_NEAR(t.kernel[slot].busy_s, 0.002 * proofs, 1e-9) << slot;
    EXPECT_GT(t.kernel[slot].ratio, 0.0);
    EXPECT_LE(t.kernel[slot].ratio, 1.0);
    EXPECT_NEAR(t.kernel[slot].window_busy_s, 0.002 * proofs, 1e-9) << "all within the last 10 s";
  }
  EXPECT_EQ(h.backend->proofs[0] + h.backend->proofs[1], 8);
  EXPECT_DOUBLE_EQ(t.kernel_window_s, 10.0);
  EXPECT_TRUE(t.nvml_started);
  ASSERT_TRUE(t.nvml.available);
  ASSERT_EQ(t.nvml.devices.size(), 1u);
  EXPECT_EQ(t.nvml.devices[0].samples, 1u);
  EXPECT_EQ(t.nvml.devices[0].last.name, "Fake GPU");
  EXPECT_EQ(t.nvml_index, (std::vector<int>{0, -1}));
  EXPECT_GT(s.rss_bytes, 0u);
  EXPECT_GE(t.rss_peak_bytes, s.rss_bytes);
  EXPECT_EQ(h.log_count("GPU utilization not sampled"), 0);
}

TEST(telemetry, nvml_that_does_not_answer_is_logged_once_and_shown) {
  gpu_monitor_options o;
  o.thread = false;
  harness h(std::make_unique<gpu_utilization_monitor>(nullptr, o, "nvml: fake absence"));
  h.prove(2);
  const auto t = h.eng->snapshot().telemetry;
  EXPECT_TRUE(t.nvml_started);
  EXPECT_FALSE(t.nvml.available);
  EXPECT_EQ(t.nvml.reason, "nvml: fake absence");
  EXPECT_EQ(t.nvml_index, (std::vector<int>{-1, -1}));
  (void)h.eng->snapshot();
  EXPECT_EQ(h.log_count("GPU utilization not sampled: nvml: fake absence"), 1);
}

TEST(telemetry, a_cpu_engine_runs_no_monitor) {
  engine_options o;
  o.verify_proofs = false;
  o.spool_dir = temp_dir("telemetry-cpu-spool");
  engine_parts parts;
  parts.backend = std::make_unique<gated_backend>();
  auto e = engine::create(std::move(o), std::move(parts)).value();
  const auto t = e->snapshot().telemetry;
  EXPECT_FALSE(t.nvml_started);
  EXPECT_TRUE(t.kernel.empty());
  EXPECT_TRUE(t.nvml_index.empty());
  EXPECT_EQ(json::parse(e->chrome_trace())["traceEvents"].size(), 2u);  // the workers' process and queue names
}

TEST(telemetry, the_trace_has_a_process_per_device_and_a_thread_per_worker) {
  harness h(manual_monitor());
  h.prove(6);
  const json doc = json::parse(h.eng->chrome_trace());
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::map<int, std::string> process_names;
  std::set<std::pair<int, int>> named_threads, used_threads;
  std::vector<json> held, parts;
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name")) << e.dump();
    const std::string ph = e["ph"];
    const int pid = e["pid"], tid = e["tid"];
    if (ph == "M") {
      if (e["name"] == "process_name") process_names[pid] = e["args"]["name"];
      if (e["name"] == "thread_name") named_threads.insert({pid, tid});
      continue;
    }
    ASSERT_TRUE(e.contains("ts")) << e.dump();
    used_threads.insert({pid, tid});
    if (ph != "X") continue;
    ASSERT_TRUE(e.contains("dur")) << e.dump();
    EXPECT_GE(e["dur"].get<int64_t>(), 0);
    EXPECT_GE(pid, device_trace_pid);
    (e["cat"] == "kernel_lock" ? held : parts).push_back(e);
  }
  EXPECT_EQ(process_names[1], "workers");
  EXPECT_EQ(process_names[device_trace_pid], "device:0 (Fake GPU)");
  EXPECT_EQ(process_names[device_trace_pid + 1], "device:1");
  for (const auto& th : used_threads)
    if (th.second != 0) {
      EXPECT_TRUE(named_threads.count(th)) << th.first << "/" << th.second;
    }
  // Worker 0 serves slot 0 and worker 1 slot 1: each device lane has that worker's row only.
  EXPECT_TRUE(used_threads.count({device_trace_pid, 1}));
  EXPECT_TRUE(used_threads.count({device_trace_pid + 1, 2}));
  EXPECT_FALSE(used_threads.count({device_trace_pid, 2}));
  EXPECT_EQ(held.size(), 12u);
  EXPECT_EQ(parts.size(), 6u);
  for (const auto& p : parts) {  // each part lies inside a held interval of its row
    bool inside = false;
    for (const auto& k : held)
      inside = inside || (k["pid"] == p["pid"] && k["tid"] == p["tid"] && k["ts"] <= p["ts"] &&
                          k["ts"].get<int64_t>() + k["dur"].get<int64_t>() >=
                              p["ts"].get<int64_t>() + p["dur"].get<int64_t>());
    EXPECT_TRUE(inside) << p.dump();
    EXPECT_EQ(p["name"], "msm_a");
  }
  // Each partition's witness read is an async span of its own ("b" then "e", one id), on its
  // worker's row, and ends before that job's synthesis begins: the synthesis span no longer holds
  // the read.
  std::map<std::string, int64_t> witness_begin, witness_end;
  std::map<uint64_t, int64_t> synthesis_begin;
  for (const auto& e : doc["traceEvents"]) {
    if (e["pid"] != 1) continue;
    if (e["name"] == "witness") {
      EXPECT_EQ(e["cat"], "witness");
      EXPECT_GE(e["tid"].get<int>(), 1) << e.dump();
      const std::string id = e["id"];
      EXPECT_EQ(id, std::to_string(e["args"]["job"].get<uint64_t>()) + "." +
                        std::to_string(e["args"]["partition"].get<uint32_t>()));
      (e["ph"] == "b" ? witness_begin : witness_end)[id] = e["ts"].get<int64_t>();
      EXPECT_TRUE(e["ph"] == "b" || e["ph"] == "e") << e.dump();
    } else if (e["name"] == "synthesis" && e["ph"] == "B") {
      synthesis_begin[e["args"]["job"].get<uint64_t>()] = e["ts"].get<int64_t>();
    }
  }
  EXPECT_EQ(witness_begin.size(), 6u);
  EXPECT_EQ(synthesis_begin.size(), 6u);
  for (const auto& [id, b] : witness_begin) {
    ASSERT_TRUE(witness_end.count(id)) << id;
    EXPECT_LE(b, witness_end[id]) << id;
    const uint64_t job = std::stoull(id.substr(0, id.find('.')));
    ASSERT_TRUE(synthesis_begin.count(job)) << id;
    EXPECT_LE(witness_end[id], synthesis_begin[job]) << id;
  }
}

// The witness phase is each partition's read, timed where it ran, and not part of synthesis: a
// job's witness time is positive and the same job's synthesis time is what the backend measured.
TEST(telemetry, a_jobs_witness_read_is_its_own_phase) {
  harness h(manual_monitor());
  h.prove(2);
  const auto snap = h.eng->snapshot();
  ASSERT_EQ(snap.recent_jobs.size(), 2u);
  for (const auto& r : snap.recent_jobs) {
    EXPECT_GT(r.times[phase::witness], 0) << r.id;
    EXPECT_LE(r.times[phase::witness], r.times[phase::total]) << r.id;
  }
  EXPECT_EQ(snap.counters.circuits.at("small").phases[static_cast<int>(phase::witness)].count, 2u);
}

}  // namespace
}  // namespace cuzk::engine
