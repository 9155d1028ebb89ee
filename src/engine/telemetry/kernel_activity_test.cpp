// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernel-lock intervals and busy ratios (kernel_activity.hpp): hand-made intervals with known
// answers (since start, a window shorter than the configured one right after start, intervals cut
// by the window's edges and by now, parts not counted twice, slots out of range, nothing at all),
// then many random disjoint intervals against a plain sum over all of them, so that the pruning of
// old intervals never changes an answer.
#include "engine/telemetry/kernel_activity.hpp"

#include <gtest/gtest.h>

#include <random>

namespace cuzk::engine {
namespace {

constexpr int64_t s_us = 1'000'000;
constexpr int64_t t0 = 1'700'000'000 * s_us;  // a unix time, as the engine's clock gives

kernel_span held(double from_s, double to_s, const char* name = "ntt_h") {
  return {name, t0 + static_cast<int64_t>(from_s * s_us), t0 + static_cast<int64_t>(to_s * s_us), true};
}

TEST(kernel_activity, nothing_recorded_is_idle) {
  kernel_activity k(2, t0);
  for (const auto& b : k.busy(t0 + 3 * s_us)) {
    EXPECT_EQ(b.intervals, 0u);
    EXPECT_DOUBLE_EQ(b.busy_s, 0.0);
    EXPECT_DOUBLE_EQ(b.ratio, 0.0);
    EXPECT_DOUBLE_EQ(b.window_s, 3.0);  // only 3 s since start
    EXPECT_DOUBLE_EQ(b.window_ratio, 0.0);
  }
  // At the start itself nothing has a length: no division by zero.
  const auto at_start = k.busy(t0);
  EXPECT_DOUBLE_EQ(at_start[0].window_s, 0.0);
  EXPECT_DOUBLE_EQ(at_start[0].ratio, 0.0);
  EXPECT_DOUBLE_EQ(at_start[0].window_ratio, 0.0);
  EXPECT_TRUE(k.recent().empty());
  EXPECT_TRUE(kernel_activity(0, t0).busy(t0 + s_us).empty());
}

TEST(kernel_activity, since_start_and_a_window_shorter_than_configured) {
  kernel_activity k(1, t0);
  const std::vector<kernel_span> spans = {held(1, 2, "msm_abc"), {"msm_a", t0 + s_us, t0 + s_us + 1000, false},
                                          held(3, 3.5)};
  k.record(0, 1, 7, 0, spans);
  const auto b = k.busy(t0 + 4 * s_us).at(0);
  EXPECT_EQ(b.intervals, 2u);  // the part is not an interval of its own
  EXPECT_DOUBLE_EQ(b.busy_s, 1.5);
  EXPECT_DOUBLE_EQ(b.ratio, 1.5 / 4);
  EXPECT_DOUBLE_EQ(b.window_s, 4.0);
  EXPECT_DOUBLE_EQ(b.window_busy_s, 1.5);
  EXPECT_DOUBLE_EQ(b.window_ratio, 1.5 / 4);
  const auto r = k.recent();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].span.name, "msm_a");
  EXPECT_FALSE(r[1].span.held);
  EXPECT_EQ(r[0].worker, 1);
  EXPECT_EQ(r[0].job, 7u);
}

TEST(kernel_activity, the_window_cuts_intervals_at_its_edges_and_at_now) {
  kernel_activity k(2, t0);
  k.record(0, 0, 1, 0, std::vector<kernel_span>{held(1, 2), held(3, 3.5), held(11.5, 13)});
  k.record(1, 2, 2, 0, std::vector<kernel_span>{held(1.5, 2.5)});
  // Now = 12 s: the window is (2 s, 12 s]. [1, 2] ends at its edge (0), [1.5, 2.5] is cut to 0.5 s,
  // [11.5, 13] (reported by a clock a little ahead) to 0.5 s.
  const auto b = k.busy(t0 + 12 * s_us);
  EXPECT_DOUBLE_EQ(b[0].window_s, 10.0);
  EXPECT_DOUBLE_EQ(b[0].window_busy_s, 0.5 + 0.5);
  EXPECT_DOUBLE_EQ(b[0].window_ratio, 0.1);
  EXPECT_DOUBLE_EQ(b[0].busy_s, 1 + 0.5 + 1.5);  // since start counts whole intervals
  EXPECT_DOUBLE_EQ(b[1].window_busy_s, 0.5);
  EXPECT_DOUBLE_EQ(b[1].window_ratio, 0.05);
}

TEST(kernel_activity, slots_out_of_range_and_backward_spans_are_ignored) {
  kernel_activity k(1, t0);
  k.record(-1, 0, 1, 0, std::vector<kernel_span>{held(1, 2)});
  k.record(1, 0, 1, 0, std::vector<kernel_span>{held(1, 2)});
  k.record(0, 0, 1, 0, std::vector<kernel_span>{held(2, 1)});
  const auto b = k.busy(t0 + 5 * s_us).at(0);
  EXPECT_EQ(b.intervals, 0u);
  EXPECT_DOUBLE_EQ(b.busy_s, 0.0);
  EXPECT_TRUE(k.recent().empty());
}

TEST(kernel_activity, the_trace_ring_keeps_the_most_recent) {
  kernel_activity k(1, t0, std::chrono::milliseconds(10000), 4);
  for (int i = 0; i < 10; ++i) k.record(0, 0, static_cast<job_id>(i), 0, std::vector<kernel_span>{held(i, i + 0.5)});
  const auto r = k.recent();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.front().job, 6u);
  EXPECT_EQ(r.back().job, 9u);
  EXPECT_EQ(k.busy(t0 + 20 * s_us).at(0).intervals, 10u);  // the ratios do not depend on the ring
}

// Random disjoint intervals over 200 s, reported a proof at a time; at each report the windowed
// busy time must equal the plain sum of overlaps over every interval so far.
TEST(kernel_activity, windowed_busy_matches_a_plain_sum_over_all_intervals) {
  std::mt19937_64 rng(6);
  std::uniform_int_distribution<int64_t> gap(0, 300'000), len(1, 400'000);
  kernel_activity k(1, t0, std::chrono::milliseconds(2000));
  std::vector<std::pair<int64_t, int64_t>> all;
  int64_t at = t0;
  while (at < t0 + 200 * s_us) {
    const int64_t b = at + gap(rng), e = b + len(rng);
    at = e;
    all.emplace_back(b, e);
    k.record(0, 0, all.size(), 0, std::vector<kernel_span>{{"ntt_h", b, e, true}});
    const int64_t now = e + gap(rng);
    const int64_t from = std::max(now - 2 * s_us, t0);
    int64_t want = 0, total = 0;
    for (const auto& [lo, hi] : all) {
      total += hi - lo;
      want += std::max<int64_t>(0, std::min(hi, now) - std::max(lo, from));
    }
    const auto got = k.busy(now).at(0);
    ASSERT_NEAR(got.window_busy_s, static_cast<double>(want) / 1e6, 1e-9) << "after " << all.size();
    ASSERT_NEAR(got.busy_s, static_cast<double>(total) / 1e6, 1e-9);
    ASSERT_LE(got.window_ratio, 1.0);
  }
  EXPECT_GT(all.size(), 300u);
}

}  // namespace
}  // namespace cuzk::engine
