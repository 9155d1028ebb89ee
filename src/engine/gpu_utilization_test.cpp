// The NVML monitor (gpu_utilization.hpp). Where a driver answers (the GPU machine), samples must
// appear within a second with the card's name, its memory size and percentages in [0, 100], and
// the summary must average them; where none does (CI), the monitor must say why and stay empty
// rather than fail the daemon's start.
#include "engine/gpu_utilization.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace cuzk::engine {
namespace {

TEST(gpu_utilization, samples_or_says_why_not) {
  gpu_utilization_monitor monitor(std::chrono::milliseconds(20));
  if (!monitor.available()) {
    EXPECT_NE(monitor.unavailable_reason().find("nvml"), std::string::npos) << monitor.unavailable_reason();
    EXPECT_TRUE(monitor.latest().empty());
    EXPECT_TRUE(monitor.summary().empty());
    GTEST_SKIP() << "no NVML here (" << monitor.unavailable_reason() << "); the sampling half runs on a GPU machine";
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline && monitor.summary().front().samples < 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto latest = monitor.latest();
  ASSERT_FALSE(latest.empty());
  for (const auto& s : latest) {
    EXPECT_FALSE(s.name.empty());
    EXPECT_GT(s.memory_total, 0u);
    EXPECT_LE(s.memory_used, s.memory_total);
    EXPECT_GE(s.sm_busy_pct, 0.0);
    EXPECT_LE(s.sm_busy_pct, 100.0);
  }
  const auto sum = monitor.summary();
  ASSERT_EQ(sum.size(), latest.size());
  EXPECT_GE(sum.front().samples, 3u);
  EXPECT_LE(sum.front().mean_sm_busy_pct, 100.0);
  monitor.reset();
  EXPECT_EQ(monitor.summary().front().samples, 0u);
}

}  // namespace
}  // namespace cuzk::engine
