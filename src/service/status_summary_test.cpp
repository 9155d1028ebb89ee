// SPDX-License-Identifier: MIT OR Apache-2.0
// The bench's hardware lines (status_summary.hpp) from /status documents rendered by status_json
// from hand-made snapshots, so the writer and the reader are checked against each other: the GPU
// busy ratio and NVML's mean are the run's differences, peaks are labelled since start, a host
// budget is shown against the peak, and a CPU daemon, an NVML that does not answer and a slot NVML
// does not know say so in words instead of zeros.
#include "service/status_summary.hpp"

#include <gtest/gtest.h>

#include "service/status_json.hpp"

namespace cuzk::service {
namespace {

engine::engine_snapshot gpu_snapshot(double busy_s, uint64_t samples, double sm_pct_sum) {
  engine::engine_snapshot s;
  s.backend = "gpu";
  s.device_tiers = {{"device:0", 0, 100ull << 30, 0, 0}, {"device:1", 1, 50ull << 30, 0, 0}};
  s.devices.resize(2);
  s.devices[1].pci_bus_id = "0000:02:00.0";
  auto& t = s.telemetry;
  t.rss_peak_bytes = 3ull << 30;
  t.kernel.resize(2);
  t.kernel[0].busy_s = busy_s;
  t.nvml_started = true;
  t.nvml.available = true;
  engine::gpu_device_stats d;
  d.last.name = "NVIDIA H200";
  d.last.memory_total = 140ull << 30;
  d.memory_used_peak = 41ull << 30;
  d.samples = samples;
  d.sm_busy_pct_sum = sm_pct_sum;
  t.nvml.devices = {d};
  t.nvml_index = {0, -1};
  return s;
}

std::vector<std::string> summary(const engine::engine_snapshot& a, const engine::engine_snapshot& b, double wall) {
  auto r = hardware_summary(status_json(a, daemon_config{}, status_view::full), status_json(b, daemon_config{}, status_view::full), wall);
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  return r.is_ok() ? *r : std::vector<std::string>{};
}

TEST(status_summary, the_runs_differences_and_the_peaks_since_start) {
  const auto lines = summary(gpu_snapshot(5, 50, 3000), gpu_snapshot(14.5, 100, 7800), 10);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "memory rss_peak=3.00GiB (since daemon start) host_budget=none");
  EXPECT_EQ(lines[1], "device:0 gpu_busy=0.950 (kernel lock held 9.50 s of 10.00 s)");
  EXPECT_EQ(lines[2],
            "device:0 nvml gpu=0 \"NVIDIA H200\" sm_busy_mean=0.960 (50 samples) memory_peak=41.00GiB (since daemon "
            "start) of 140.00GiB key_budget=100.00GiB");
  EXPECT_EQ(lines[3], "device:1 gpu_busy=0.000 (kernel lock held 0.00 s of 10.00 s)");
  EXPECT_EQ(lines[4], "device:1 nvml: no NVML device at its PCI bus id \"0000:02:00.0\"");
}

TEST(status_summary, no_samples_during_the_run_and_a_host_budget) {
  // The host budget as the engine's snapshot carries it (the host's first).
  auto before = gpu_snapshot(1, 20, 100);
  engine::budget_snapshot host;
  host.name = "host";
  host.limit = 12ull << 30;
  host.peak = 6ull << 30;
  before.memory_budgets.push_back(host);
  auto after = before;
  auto r = hardware_summary(status_json(before, daemon_config{}, status_view::full), status_json(after, daemon_config{}, status_view::full), 2);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ((*r)[0],
            "memory rss_peak=3.00GiB (since daemon start) host_budget=12.00GiB (25.0%), reserved peak 6.00GiB "
            "(since daemon start)");
  EXPECT_NE((*r)[2].find("sm_busy_mean=? (no samples during the run)"), std::string::npos) << (*r)[2];
}

TEST(status_summary, a_devices_memory_budget_once_per_device_with_its_peak) {
  auto s = gpu_snapshot(1, 20, 100);
  s.device_tiers.push_back({"device:0#1", 0, 100ull << 30, 0, 0});  // a second slot on device 0
  s.devices.resize(3);
  s.telemetry.kernel.resize(3);
  s.telemetry.nvml_index = {0, -1, 0};
  engine::budget_snapshot dev;
  dev.name = "device0";
  dev.kind = engine::memory_kind::device;
  dev.ordinal = 0;
  dev.limit = 120ull << 30;
  dev.peak = 30ull << 30;
  dev.used = 24ull << 30;
  s.memory_budgets = {engine::budget_snapshot{}, dev};
  const auto lines = summary(s, s, 2);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[2],
            "device:0 device_budget=120.00GiB reserved_peak=30.00GiB (25.0%, since daemon start) reserved_now=24.00GiB");
  for (std::size_t k = 3; k < lines.size(); ++k) EXPECT_EQ(lines[k].find("device_budget"), std::string::npos) << lines[k];
}

TEST(status_summary, without_a_gpu_or_nvml_it_says_so) {
  engine::engine_snapshot cpu;
  cpu.backend = "cpu";
  auto lines = summary(cpu, cpu, 3);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "gpu: no GPU (backend cpu)");

  auto no_nvml = gpu_snapshot(0, 0, 0);
  no_nvml.telemetry.nvml.available = false;
  no_nvml.telemetry.nvml.reason = "nvml: libnvidia-ml.so.1 not loadable";
  no_nvml.telemetry.nvml.devices.clear();
  lines = summary(no_nvml, no_nvml, 3);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[2], "device:0 nvml: unavailable (nvml: libnvidia-ml.so.1 not loadable)");

  EXPECT_EQ(hardware_summary("{", "{}", 1).error().code(), errc::parse_error);
  EXPECT_EQ(hardware_summary("{}", "[]", 1).error().code(), errc::parse_error);
  EXPECT_EQ(hardware_summary("{}", R"({"devices": [1]})", 1).error().code(), errc::parse_error);
}

}  // namespace
}  // namespace cuzk::service
