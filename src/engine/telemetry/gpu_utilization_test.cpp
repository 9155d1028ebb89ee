// SPDX-License-Identifier: MIT OR Apache-2.0
// The NVML monitor (gpu_utilization.hpp). With a fake device and the test's own clock: the means
// since start and over the window (a sample exactly one window old has left it), the peaks, a
// failed sample counting nothing, no samples at all, a source without devices or none at all, and
// the PCI bus id lookup. The oracle is arithmetic on the values fed in. Then the real NVML: where
// a driver answers (an NVIDIA GPU), samples must appear within a second with the card's name,
// its memory size and percentages in [0, 100]; where none does (CI), the monitor must say why and
// stay empty rather than fail the daemon's start.
#include "engine/telemetry/gpu_utilization.hpp"

#include <gtest/gtest.h>

#include <map>
#include <thread>

namespace cuzk::engine {
namespace {

constexpr int64_t s_us = 1'000'000;

struct fake_source final : gpu_sample_source {
  explicit fake_source(unsigned devices) : next(devices), fail(devices, false) {
    for (unsigned i = 0; i < devices; ++i) {
      next[i].index = i;
      next[i].name = "fake " + std::to_string(i);
      next[i].memory_total = 1000;
    }
  }
  result<unsigned> device_count() override { return static_cast<unsigned>(next.size()); }
  result<gpu_sample> sample(unsigned i) override {
    if (fail[i]) return status(errc::cuda_error, "nvml: fake failure");
    return next[i];
  }
  result<unsigned> index_of_pci_bus_id(const std::string& bus) override {
    ++bus_queries;
    auto it = bus_ids.find(bus);
    if (it == bus_ids.end()) return status(errc::not_found, "no device at " + bus);
    return it->second;
  }
  std::vector<gpu_sample> next;
  std::vector<bool> fail;
  std::map<std::string, unsigned> bus_ids;
  int bus_queries = 0;
};

gpu_monitor_options manual() {
  gpu_monitor_options o;
  o.thread = false;
  return o;  // 200 ms, 10 s
}

TEST(gpu_utilization, means_and_peaks_since_start_and_over_the_window) {
  auto src = std::make_unique<fake_source>(2);
  fake_source* f = src.get();
  gpu_utilization_monitor m(std::move(src), manual());
  ASSERT_TRUE(m.available());
  // Device 0: SM busy 10, 20, ..., 150 % (not real percentages: easier sums) one sample a second
  // from t = 1 s to t = 15 s; memory used peaks at t = 3 s.
  const int64_t t0 = 1000 * s_us;
  for (int k = 1; k <= 15; ++k) {
    f->next[0].sm_busy_pct = 10.0 * k;
    f->next[0].mem_busy_pct = 1.0;
    f->next[0].memory_used = k == 3 ? 900 : 100 + k;
    f->next[0].pcie_rx_mb_s = 5;
    f->next[1].sm_busy_pct = 50;
    m.poll(t0 + k * s_us);
  }
  const auto st = m.status(t0 + 15 * s_us);
  ASSERT_EQ(st.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(st.interval_s, 0.2);
  EXPECT_DOUBLE_EQ(st.window_s, 10.0);
  const auto& d = st.devices[0];
  EXPECT_EQ(d.samples, 15u);
  EXPECT_DOUBLE_EQ(d.sm_busy_pct_sum, 10.0 * 120);
  EXPECT_DOUBLE_EQ(d.sm_busy_mean_pct, 80.0);
  EXPECT_DOUBLE_EQ(d.mem_busy_mean_pct, 1.0);
  EXPECT_EQ(d.memory_used_peak, 900u);
  // The window (5 s, 15 s]: the samples of 6 s .. 15 s; the one at exactly 5 s has left.
  EXPECT_EQ(d.window_samples, 10u);
  EXPECT_DOUBLE_EQ(d.sm_busy_window_pct, 10.0 * (6 + 15) / 2);
  EXPECT_EQ(d.memory_used_window_peak, 115u);
  EXPECT_DOUBLE_EQ(d.last.sm_busy_pct, 150.0);
  EXPECT_DOUBLE_EQ(d.last.pcie_rx_mb_s, 5.0);
  EXPECT_EQ(d.last.name, "fake 0");
  EXPECT_DOUBLE_EQ(st.devices[1].sm_busy_window_pct, 50.0);
  // Later, with no new samples, the window empties; the totals stay.
  const auto later = m.status(t0 + 30 * s_us);
  EXPECT_EQ(later.devices[0].window_samples, 0u);
  EXPECT_DOUBLE_EQ(later.devices[0].sm_busy_window_pct, 0.0);
  EXPECT_EQ(later.devices[0].memory_used_window_peak, 0u);
  EXPECT_EQ(later.devices[0].samples, 15u);
}

TEST(gpu_utilization, a_failed_sample_counts_nothing_and_keeps_the_last) {
  auto src = std::make_unique<fake_source>(1);
  fake_source* f = src.get();
  gpu_utilization_monitor m(std::move(src), manual());
  f->next[0].sm_busy_pct = 40;
  m.poll(1 * s_us);
  f->fail[0] = true;
  f->next[0].sm_busy_pct = 99;
  m.poll(2 * s_us);
  const auto d = m.status(2 * s_us).devices.at(0);
  EXPECT_EQ(d.samples, 1u);
  EXPECT_EQ(d.window_samples, 1u);
  EXPECT_DOUBLE_EQ(d.last.sm_busy_pct, 40.0);
  EXPECT_DOUBLE_EQ(d.sm_busy_window_pct, 40.0);
}

TEST(gpu_utilization, no_samples_yet_is_all_zeros) {
  gpu_utilization_monitor m(std::make_unique<fake_source>(1), manual());
  ASSERT_TRUE(m.available());
  const auto d = m.status(5 * s_us).devices.at(0);
  EXPECT_EQ(d.samples, 0u);
  EXPECT_EQ(d.window_samples, 0u);
  EXPECT_DOUBLE_EQ(d.sm_busy_mean_pct, 0.0);
  EXPECT_DOUBLE_EQ(d.sm_busy_window_pct, 0.0);
}

TEST(gpu_utilization, without_a_source_or_devices_it_says_why) {
  gpu_utilization_monitor none(nullptr, manual(), "nvml: not here");
  EXPECT_FALSE(none.available());
  EXPECT_EQ(none.unavailable_reason(), "nvml: not here");
  none.poll(s_us);
  const auto st = none.status(s_us);
  EXPECT_FALSE(st.available);
  EXPECT_EQ(st.reason, "nvml: not here");
  EXPECT_TRUE(st.devices.empty());
  EXPECT_EQ(none.index_of_pci_bus_id("0000:01:00.0").error().code(), errc::not_found);

  gpu_utilization_monitor empty(std::make_unique<fake_source>(0), manual());
  EXPECT_FALSE(empty.available());
  EXPECT_EQ(empty.unavailable_reason(), "nvml: no devices");
}

TEST(gpu_utilization, finds_devices_by_pci_bus_id_once) {
  auto src = std::make_unique<fake_source>(2);
  fake_source* f = src.get();
  f->bus_ids["0000:65:00.0"] = 1;
  gpu_utilization_monitor m(std::move(src), manual());
  EXPECT_EQ(m.index_of_pci_bus_id("0000:65:00.0").value(), 1u);
  EXPECT_EQ(m.index_of_pci_bus_id("0000:65:00.0").value(), 1u);
  EXPECT_EQ(m.index_of_pci_bus_id("0000:02:00.0").error().code(), errc::not_found);
  EXPECT_EQ(m.index_of_pci_bus_id("0000:02:00.0").error().code(), errc::not_found);
  EXPECT_EQ(f->bus_queries, 2);
}

TEST(gpu_utilization, samples_nvml_or_says_why_not) {
  gpu_monitor_options o;
  o.interval = std::chrono::milliseconds(20);
  gpu_utilization_monitor monitor(o);
  if (!monitor.available()) {
    EXPECT_NE(monitor.unavailable_reason().find("nvml"), std::string::npos) << monitor.unavailable_reason();
    EXPECT_TRUE(monitor.status().devices.empty());
    GTEST_SKIP() << "no NVML here (" << monitor.unavailable_reason() << "); the sampling half needs an NVIDIA GPU";
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline && monitor.status().devices.front().samples < 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto st = monitor.status();
  ASSERT_FALSE(st.devices.empty());
  for (const auto& d : st.devices) {
    EXPECT_FALSE(d.last.name.empty());
    EXPECT_GT(d.last.memory_total, 0u);
    EXPECT_LE(d.last.memory_used, d.last.memory_total);
    EXPECT_GE(d.last.sm_busy_pct, 0.0);
    EXPECT_LE(d.last.sm_busy_pct, 100.0);
    EXPECT_LE(d.sm_busy_mean_pct, 100.0);
    EXPECT_GE(d.window_samples, 1u);
    EXPECT_GE(d.memory_used_peak, d.last.memory_used);
  }
  EXPECT_GE(st.devices.front().samples, 3u);
}

}  // namespace
}  // namespace cuzk::engine
