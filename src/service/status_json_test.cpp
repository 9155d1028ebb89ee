// SPDX-License-Identifier: MIT OR Apache-2.0
// The /metrics and /status documents from a hand-made snapshot: refusals appear by reason, every
// reason always, and a circuit label only for circuits the snapshot counts jobs of; the memory
// budgets and the pinned pool with their numbers; the GPU's kernel busy time per slot and NVML's
// numbers per GPU, with a slot NVML does not know, an NVML that does not answer and a CPU daemon
// (no GPU lines at all); the public view (HTTP's) without request ids or paths.
#include "service/status_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/version.hpp"

namespace cuzk::service {
namespace {

using engine::reject_reason;

engine::engine_snapshot snapshot_with_refusals() {
  engine::engine_snapshot s;
  s.counters.circuits["poseidon"].counters.submitted = 3;
  s.counters.total.submitted = 3;
  s.counters.rejected[static_cast<int>(reject_reason::unknown_circuit)] = 5;
  s.counters.rejected[static_cast<int>(reject_reason::bad_witness)] = 2;
  return s;
}

TEST(status_json, prometheus_counts_refusals_by_reason_only) {
  const std::string text = prometheus_text(snapshot_with_refusals());
  EXPECT_NE(text.find("# TYPE cuzk_jobs_rejected_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_jobs_rejected_total{reason=\"unknown_circuit\"} 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cuzk_jobs_rejected_total{reason=\"bad_witness\"} 2\n"), std::string::npos);
  for (int r = 0; r < engine::reject_reason_count; ++r)  // zeros too: a fixed set of series
    EXPECT_NE(text.find(std::string("cuzk_jobs_rejected_total{reason=\"") +
                        engine::reject_reason_name(reject_reason(r)) + "\"}"),
              std::string::npos)
        << engine::reject_reason_name(reject_reason(r));
  EXPECT_EQ(text.find("cuzk_jobs_rejected_total{circuit="), std::string::npos);
  EXPECT_NE(text.find("cuzk_jobs_submitted_total{circuit=\"poseidon\"} 3\n"), std::string::npos);
}

TEST(status_json, status_reports_refusals_by_reason) {
  auto j = nlohmann::json::parse(status_json(snapshot_with_refusals(), daemon_config{}, status_view::full));
  EXPECT_EQ(j["counters"]["rejected"], 7);
  EXPECT_EQ(j["rejected_by_reason"]["unknown_circuit"], 5);
  EXPECT_EQ(j["rejected_by_reason"]["draining"], 0);
  EXPECT_EQ(j["rejected_by_reason"].size(), static_cast<std::size_t>(engine::reject_reason_count));
  EXPECT_EQ(j["circuit_counters"].size(), 1u);
  EXPECT_FALSE(j["circuit_counters"]["poseidon"].contains("rejected"));
}

engine::engine_snapshot snapshot_with_memory() {
  engine::engine_snapshot s;
  engine::budget_snapshot host;
  host.name = "host";
  host.limit = 1000;
  host.used = 600;
  host.peak = 900;
  host.waited = 4;
  host.wait_seconds = 1.5;
  host.evictors.push_back({"pinned pool", engine::evictor_rank::idle_pinned_buffers, 2, 100, 80});
  s.memory_budgets.push_back(host);
  s.pinned_pool.memory = "pinned";
  s.pinned_pool.buffers = 2;
  s.pinned_pool.bytes = 512;
  s.pinned_pool.hits = 7;
  s.pinned_pool.fallbacks = 1;
  s.routed_to_key_slot = 3;
  s.witnesses_ahead.threads = 14;
  s.witnesses_ahead.ready = 2;
  s.witnesses_ahead.taken_ready = 40;
  s.witnesses_ahead.computed_by_worker = 1;
  s.witnesses_ahead.evicted = 5;
  return s;
}

TEST(status_json, memory_budgets_and_the_pinned_pool_in_status_and_metrics) {
  const auto s = snapshot_with_memory();
  auto j = nlohmann::json::parse(status_json(s, daemon_config{}, status_view::full));
  ASSERT_EQ(j["memory_budgets"].size(), 1u);
  EXPECT_EQ(j["memory_budgets"][0]["name"], "host");
  EXPECT_EQ(j["memory_budgets"][0]["limit_bytes"], 1000);
  EXPECT_EQ(j["memory_budgets"][0]["peak_bytes"], 900);
  EXPECT_EQ(j["memory_budgets"][0]["evictors"][0]["bytes_freed"], 80);
  EXPECT_EQ(j["pinned_pool"]["memory"], "pinned");
  EXPECT_EQ(j["pinned_pool"]["hits"], 7);
  EXPECT_EQ(j["routed_to_key_slot"], 3);
  const std::string text = prometheus_text(s);
  EXPECT_NE(text.find("cuzk_memory_budget_limit_bytes{budget=\"host\"} 1000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cuzk_memory_budget_peak_bytes{budget=\"host\"} 900\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_memory_budget_wait_seconds_total{budget=\"host\"} 1.5\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_pinned_pool_fallbacks_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_routed_to_key_slot_total 3\n"), std::string::npos);
  EXPECT_EQ(j["witnesses_ahead"]["threads"], 14);
  EXPECT_EQ(j["witnesses_ahead"]["taken_ready"], 40);
  EXPECT_NE(text.find("cuzk_witness_threads 14\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_witnesses_ahead{state=\"ready\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_witness_takes_total{how=\"ready\"} 40\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_witness_takes_total{how=\"computed_by_worker\"} 1\n"), std::string::npos);
  EXPECT_EQ(j["witnesses_ahead"]["evicted"], 5);
  EXPECT_NE(text.find("cuzk_witnesses_ahead_evicted_total 5\n"), std::string::npos);
}

// Two slots; NVML answers for one GPU, which is slot 0's; slot 1 has no NVML device.
engine::engine_snapshot snapshot_with_gpus() {
  engine::engine_snapshot s;
  s.uptime_s = 20;
  s.rss_bytes = 1000;
  s.device_tiers = {{"device:0", 0, 5000, 1000, 1}, {"device:1", 1, 5000, 0, 0}};
  auto& t = s.telemetry;
  t.rss_peak_bytes = 4096;
  t.kernel.resize(2);
  t.kernel[0] = {40, 15.0, 0.75, 10.0, 9.5, 0.95};
  t.kernel_window_s = 10;
  t.nvml_started = true;
  t.nvml.available = true;
  t.nvml.interval_s = 0.2;
  t.nvml.window_s = 10;
  engine::gpu_device_stats d;
  d.last.name = "NVIDIA H200";
  d.last.sm_busy_pct = 97;
  d.last.mem_busy_pct = 40;
  d.last.memory_used = 7000;
  d.last.memory_total = 140000;
  d.last.pcie_rx_mb_s = 2500;
  d.last.pcie_tx_mb_s = 1.5;
  d.samples = 100;
  d.sm_busy_pct_sum = 6000;
  d.sm_busy_mean_pct = 60;
  d.window_samples = 50;
  d.sm_busy_window_pct = 95;
  d.memory_used_peak = 9000;
  d.memory_used_window_peak = 8000;
  t.nvml.devices = {d};
  t.nvml_index = {0, -1};
  return s;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(status_json, status_shows_kernel_busy_per_slot_and_nvml_per_gpu) {
  auto j = nlohmann::json::parse(status_json(snapshot_with_gpus(), daemon_config{}, status_view::full));
  EXPECT_EQ(j["memory"]["rss_peak_bytes"], 4096);
  ASSERT_EQ(j["devices"].size(), 2u);
  const auto& d0 = j["devices"][0];
  EXPECT_EQ(d0["nvml_index"], 0);
  EXPECT_EQ(d0["kernel_busy"]["intervals"], 40);
  EXPECT_DOUBLE_EQ(d0["kernel_busy"]["busy_s"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(d0["kernel_busy"]["ratio"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(d0["kernel_busy"]["window_ratio"].get<double>(), 0.95);
  EXPECT_TRUE(j["devices"][1]["nvml_index"].is_null());
  const auto& g = j["gpu_utilization"];
  EXPECT_EQ(g["monitor"], "running");
  EXPECT_DOUBLE_EQ(g["interval_s"].get<double>(), 0.2);
  ASSERT_EQ(g["devices"].size(), 1u);
  const auto& n = g["devices"][0];
  EXPECT_EQ(n["name"], "NVIDIA H200");
  EXPECT_EQ(n["slots"], nlohmann::json::array({"device:0"}));
  EXPECT_EQ(n["samples"], 100);
  EXPECT_DOUBLE_EQ(n["sm_busy"]["last"].get<double>(), 0.97);
  EXPECT_DOUBLE_EQ(n["sm_busy"]["window"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(n["sm_busy"]["since_start"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(n["sm_busy"]["sum"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(n["mem_busy"]["last"].get<double>(), 0.4);
  EXPECT_EQ(n["memory_used_bytes"], 7000);
  EXPECT_EQ(n["memory_total_bytes"], 140000);
  EXPECT_EQ(n["memory_used_peak_bytes"], 9000);
  EXPECT_DOUBLE_EQ(n["pcie_rx_mb_s"].get<double>(), 2500.0);
}

TEST(status_json, metrics_have_gpu_gauges_with_help_and_type) {
  const std::string text = prometheus_text(snapshot_with_gpus());
  for (const char* family :
       {"cuzk_gpu_sm_busy_ratio gauge", "cuzk_gpu_sm_busy_window_ratio gauge", "cuzk_gpu_memory_busy_ratio gauge",
        "cuzk_gpu_memory_used_bytes gauge", "cuzk_gpu_memory_total_bytes gauge",
        "cuzk_gpu_pcie_rx_bytes_per_second gauge", "cuzk_gpu_pcie_tx_bytes_per_second gauge",
        "cuzk_gpu_kernel_busy_seconds_total counter", "cuzk_gpu_kernel_busy_window_ratio gauge",
        "cuzk_gpu_nvml_up gauge", "cuzk_resident_peak_bytes gauge"}) {
    const std::string f(family);
    const std::string name = f.substr(0, f.find(' '));
    EXPECT_TRUE(has_line(text, "# TYPE " + f)) << f;
    EXPECT_NE(text.find("# HELP " + name + " "), std::string::npos) << name;
  }
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_sm_busy_ratio{gpu="0",name="NVIDIA H200"} 0.97)")) << text;
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_memory_used_bytes{gpu="0",name="NVIDIA H200"} 7000)"));
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_pcie_rx_bytes_per_second{gpu="0",name="NVIDIA H200"} 2.5e+09)"));
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_kernel_busy_seconds_total{device="device:0",gpu="0"} 15)"));
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_kernel_busy_seconds_total{device="device:1"} 0)"));
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_kernel_busy_window_ratio{device="device:0",gpu="0"} 0.95)"));
  EXPECT_TRUE(has_line(text, "cuzk_gpu_nvml_up 1"));
  EXPECT_TRUE(has_line(text, "cuzk_resident_peak_bytes 4096"));
}

TEST(status_json, nvml_that_does_not_answer_and_a_cpu_daemon) {
  auto s = snapshot_with_gpus();
  s.telemetry.nvml.available = false;
  s.telemetry.nvml.reason = "nvml: libnvidia-ml.so.1 not loadable";
  s.telemetry.nvml.devices.clear();
  s.telemetry.nvml_index = {-1, -1};
  auto j = nlohmann::json::parse(status_json(s, daemon_config{}, status_view::full));
  EXPECT_EQ(j["gpu_utilization"]["monitor"], "unavailable");
  EXPECT_EQ(j["gpu_utilization"]["reason"], "nvml: libnvidia-ml.so.1 not loadable");
  EXPECT_TRUE(j["gpu_utilization"]["devices"].empty());
  std::string text = prometheus_text(s);
  EXPECT_TRUE(has_line(text, "cuzk_gpu_nvml_up 0"));
  EXPECT_EQ(text.find("cuzk_gpu_sm_busy_ratio"), std::string::npos);
  EXPECT_TRUE(has_line(text, R"(cuzk_gpu_kernel_busy_seconds_total{device="device:0"} 15)"));

  const engine::engine_snapshot cpu;
  j = nlohmann::json::parse(status_json(cpu, daemon_config{}, status_view::full));
  EXPECT_EQ(j["gpu_utilization"]["monitor"], "off");
  EXPECT_EQ(j["gpu_utilization"]["reason"], "no GPU backend");
  text = prometheus_text(cpu);
  EXPECT_EQ(text.find("cuzk_gpu_"), std::string::npos) << text;
}

// docs/HARDENING.md, finding 15: /status over HTTP showed request ids and zkey paths to whoever
// reached the port. The public view has the job, its circuit and state, the key and its tier, and
// no request id, key path or path from the config; the full view (gRPC's) has them all.
TEST(status_json, the_public_view_names_no_request_id_and_no_path) {
  engine::engine_snapshot s;
  engine::live_job_status lj;
  lj.info.id = 7;
  lj.info.request_id = "client-secret-request";
  lj.info.circuit = "poseidon";
  lj.info.state = engine::job_state::proving;
  s.jobs.push_back(lj);
  engine::key_entry_status k;
  k.circuit = "poseidon";
  k.path = "/srv/keys/private-name.zkey";
  k.tier_name = "warm";
  s.keys.push_back(k);
  s.counters.circuits["poseidon"].counters.submitted = 1;
  daemon_config c;
  c.data_dir = "/srv/cuzk-state";
  c.socket = "/srv/cuzk-state/control.sock";
  c.witness_dirs = {"/srv/witness-dir"};

  const std::string pub = status_json(s, c, status_view::public_view);
  for (const char* secret : {"client-secret-request", "private-name.zkey", "/srv/"})
    EXPECT_EQ(pub.find(secret), std::string::npos) << secret << " in\n" << pub;
  auto j = nlohmann::json::parse(pub);
  ASSERT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["id"], 7);
  EXPECT_EQ(j["jobs"][0]["circuit"], "poseidon");
  EXPECT_EQ(j["jobs"][0]["state"], "proving");
  EXPECT_FALSE(j["jobs"][0].contains("request_id"));
  ASSERT_EQ(j["keys"].size(), 1u);
  EXPECT_EQ(j["keys"][0]["tier"], "warm");
  EXPECT_FALSE(j["keys"][0].contains("path"));
  EXPECT_FALSE(j["config"].contains("data_dir"));
  EXPECT_FALSE(j["config"].contains("witness_dirs"));
  EXPECT_EQ(j["config"]["workers"], 1);  // the rest of the config stays
  EXPECT_EQ(j["circuit_counters"]["poseidon"]["submitted"], 1);

  auto full = nlohmann::json::parse(status_json(s, c, status_view::full));
  EXPECT_EQ(full["jobs"][0]["request_id"], "client-secret-request");
  EXPECT_EQ(full["keys"][0]["path"], "/srv/keys/private-name.zkey");
  EXPECT_EQ(full["config"]["data_dir"], "/srv/cuzk-state");
  EXPECT_EQ(full["config"]["socket"], "/srv/cuzk-state/control.sock");
  EXPECT_EQ(full["config"]["witness_dirs"], nlohmann::json::array({"/srv/witness-dir"}));
}

// The status page shows recent proofs with their phase times, and the store takes an ended job
// out of `jobs` at once, so /status lists the last ones that ended on their own. A failed job's
// reason is there in both views; the error's text can name a witness path, which only the full
// view keeps (with the request id): the public one says <path> in its place.
TEST(status_json, recent_jobs_carry_phase_times_and_the_public_view_the_reason_without_paths) {
  engine::engine_snapshot s;
  engine::job_result r;
  r.id = 12;
  r.request_id = "client-secret-request";
  r.circuit = "poseidon";
  r.state = engine::job_state::failed;
  r.partitions = 2;
  r.ran_on = "cpu";
  r.error =
      status(errc::io_error, "cannot read /srv/witness-dir/w.wtns: (partition 1, \"spool/3.wtns\") is short");
  r.times.seconds[static_cast<int>(engine::phase::queue_wait)] = 0.25;
  r.times.seconds[static_cast<int>(engine::phase::witness)] = 1.5;
  s.recent_jobs.push_back(r);
  daemon_config c;

  const std::string pub = status_json(s, c, status_view::public_view);
  EXPECT_EQ(pub.find("client-secret-request"), std::string::npos) << pub;
  EXPECT_EQ(pub.find("/srv/witness-dir"), std::string::npos) << pub;
  auto j = nlohmann::json::parse(pub);
  ASSERT_EQ(j["recent_jobs"].size(), 1u);
  const auto& job = j["recent_jobs"][0];
  EXPECT_EQ(job["id"], 12);
  EXPECT_EQ(job["circuit"], "poseidon");
  EXPECT_EQ(job["state"], "failed");
  EXPECT_EQ(job["partitions"], 2);
  EXPECT_EQ(job["ran_on"], "cpu");
  EXPECT_EQ(job["times"]["queue_wait"], 0.25);
  EXPECT_EQ(job["times"]["witness"], 1.5);
  EXPECT_FALSE(job["times"].contains("msm_a")) << job["times"];  // a CPU job: no GPU phases
  EXPECT_EQ(job["error_code"], "io_error");
  EXPECT_EQ(job["error"], "io_error: cannot read <path>: (partition 1, \"<path>\") is short");

  auto full = nlohmann::json::parse(status_json(s, c, status_view::full));
  EXPECT_EQ(full["recent_jobs"][0]["request_id"], "client-secret-request");
  EXPECT_NE(full["recent_jobs"][0]["error"].get<std::string>().find("/srv/witness-dir"), std::string::npos);
}

// A live job says how long it has existed and, on a worker, how long it has run and on which
// partition: a job stuck in one phase is visible as itself, not only in a count by state.
TEST(status_json, live_jobs_carry_their_age_time_running_and_partition) {
  engine::engine_snapshot s;
  s.started_at = engine::from_unix_ms(1'000'000);
  s.uptime_s = 100;  // now: 1'100'000 ms
  engine::live_job_status running;
  running.info.id = 3;
  running.info.circuit = "poseidon";
  running.info.state = engine::job_state::synthesizing;
  running.info.submitted_at = engine::from_unix_ms(1'040'000);
  running.worker = 0;
  running.events.push_back({3, 0, engine::event_kind::queued, -1, 1'040'000'000});
  running.events.push_back({3, 0, engine::event_kind::dispatched, 0, 1'070'000'000});
  s.jobs.push_back(running);
  engine::live_job_status queued;
  queued.info.id = 4;
  queued.info.submitted_at = engine::from_unix_ms(1'090'000);
  s.jobs.push_back(queued);
  engine::worker_status w;
  w.busy = true;
  w.job = 3;
  w.partition = 2;
  s.workers.push_back(w);

  auto j = nlohmann::json::parse(status_json(s, daemon_config{}, status_view::public_view));
  ASSERT_EQ(j["jobs"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["jobs"][0]["elapsed_s"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(j["jobs"][0]["running_s"].get<double>(), 30.0);
  EXPECT_EQ(j["jobs"][0]["partition"], 2);
  EXPECT_EQ(j["jobs"][0]["worker"], 0);
  EXPECT_DOUBLE_EQ(j["jobs"][1]["elapsed_s"].get<double>(), 10.0);
  EXPECT_FALSE(j["jobs"][1].contains("running_s"));
  EXPECT_FALSE(j["jobs"][1].contains("partition"));
}

// The witness phase is a histogram of its own on /metrics, for every job (not only GPU ones).
TEST(status_json, metrics_have_the_witness_phase) {
  engine::engine_snapshot s;
  auto& h = s.counters.circuits["poseidon"].phases[static_cast<int>(engine::phase::witness)];
  h.count = 1;
  h.sum = 2.5;
  const std::string text = prometheus_text(s);
  EXPECT_NE(text.find("cuzk_phase_seconds_sum{circuit=\"poseidon\",phase=\"witness\"} 2.5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cuzk_phase_seconds_count{circuit=\"poseidon\",phase=\"synthesis\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("phase=\"msm_a\""), std::string::npos) << text;  // no GPU proof: no GPU phases
}

// Issue 21: /status nested config values as JSON strings ("workers": "1", "data_dir":
// "\"/var/lib/cuzk\""), showed an unlimited budget as 18446744073709551615 and had no version.
TEST(status_json, config_values_keep_their_types_unlimited_is_null_and_the_version_is_there) {
  engine::engine_snapshot s;
  s.tiers[0].name = "warm";
  s.tiers[0].budget = UINT64_MAX;
  s.tiers[1].name = "hot";
  s.tiers[1].budget = 1 << 20;
  engine::budget_snapshot host;
  host.name = "host";
  host.limit = UINT64_MAX;
  s.memory_budgets.push_back(host);
  daemon_config c;
  c.workers = 3;
  c.verify_proofs = false;
  c.gpu_devices = {0, 1};
  c.data_dir = "/srv/a \"quoted\" dir";
  const auto j = nlohmann::json::parse(status_json(s, c, status_view::full));
  EXPECT_EQ(j["config"]["workers"], 3);
  EXPECT_EQ(j["config"]["verify_proofs"], false);
  EXPECT_EQ(j["config"]["gpu_devices"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(j["config"]["backend"], "auto");
  EXPECT_EQ(j["config"]["data_dir"], "/srv/a \"quoted\" dir");
  EXPECT_TRUE(j["tiers"][0]["budget_bytes"].is_null()) << j["tiers"].dump();
  EXPECT_EQ(j["tiers"][1]["budget_bytes"], 1 << 20);
  EXPECT_TRUE(j["memory_budgets"][0]["limit_bytes"].is_null());
  EXPECT_TRUE(j["memory"]["host_budget_bytes"].is_null());
  EXPECT_EQ(status_json(s, c, status_view::public_view).find("18446744073709551615"), std::string::npos);
  EXPECT_EQ(j["version"], version());
  EXPECT_EQ(j["revision"], revision());
}

}  // namespace
}  // namespace cuzk::service
