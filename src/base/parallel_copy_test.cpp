// SPDX-License-Identifier: MIT OR Apache-2.0
// parallel_copy: ranges of odd sizes (none, one byte, a slice and a byte, many slices) arrive
// exactly, on one thread and on many; progress is reported on the caller, never goes back, never
// passes the total, and ends with the total once.
#include "base/parallel_copy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cuzk {
namespace {

TEST(parallel_copy, every_range_arrives_exactly_on_any_number_of_threads) {
  std::mt19937_64 rng(3);
  const std::vector<std::size_t> sizes = {0, 1, 4097, 4096 * 3 + 1, 100000};
  for (unsigned threads : {1u, 2u, 7u, 0u}) {
    SCOPED_TRACE(threads);
    std::vector<std::vector<std::uint8_t>> from, to;
    std::vector<copy_range> ranges;
    for (auto n : sizes) {
      from.emplace_back(n);
      for (auto& b : from.back()) b = static_cast<std::uint8_t>(rng());
      to.emplace_back(n, 0);
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) ranges.push_back({to[i].data(), from[i].data(), sizes[i]});
    parallel_copy(ranges, threads, {}, std::chrono::milliseconds(1), 4096);  // slices of a page
    EXPECT_EQ(to, from);
  }
}

TEST(parallel_copy, progress_is_reported_on_the_caller_rises_and_ends_at_the_total) {
  std::vector<std::uint8_t> from(std::size_t{64} << 20, 7), to(from.size(), 0);
  const copy_range r{to.data(), from.data(), from.size()};
  std::vector<std::uint64_t> seen;
  const auto caller = std::this_thread::get_id();
  bool all_on_caller = true;
  parallel_copy(
      std::span(&r, 1), 2,
      [&](std::uint64_t copied, std::uint64_t total) {
        EXPECT_EQ(total, from.size());
        EXPECT_LE(copied, total);
        all_on_caller = all_on_caller && std::this_thread::get_id() == caller;
        seen.push_back(copied);
      },
      std::chrono::milliseconds(0), 4096);
  EXPECT_TRUE(all_on_caller);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), from.size());
  EXPECT_EQ(std::count(seen.begin(), seen.end(), from.size()), 1);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(to, from);
}

TEST(parallel_copy, one_thread_with_progress_copies_everything_and_ends_with_the_total_once) {
  std::vector<std::uint8_t> from(std::size_t{8} << 20), to(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<std::uint8_t>(i * 7);
  const copy_range r{to.data(), from.data(), from.size()};
  std::vector<std::uint64_t> seen;
  parallel_copy(
      std::span(&r, 1), 1, [&](std::uint64_t copied, std::uint64_t) { seen.push_back(copied); },
      std::chrono::milliseconds(0), 4096);
  EXPECT_EQ(to, from);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(std::count(seen.begin(), seen.end(), from.size()), 1);
  EXPECT_EQ(seen.back(), from.size());
}

TEST(parallel_copy, a_progress_report_that_throws_stops_the_reports_not_the_copy) {
  std::vector<std::uint8_t> from(std::size_t{32} << 20, 9), to(from.size(), 0);
  const copy_range r{to.data(), from.data(), from.size()};
  int calls = 0;
  bool ended = false;
  parallel_copy(
      std::span(&r, 1), 2,
      [&](std::uint64_t copied, std::uint64_t total) {
        ++calls;
        if (copied == total) {
          ended = true;
          return;
        }
        throw std::runtime_error("a log that failed");
      },
      std::chrono::milliseconds(0), 4096);
  EXPECT_EQ(to, from);
  EXPECT_TRUE(ended);
  EXPECT_LE(calls, 2);  // at most one report during the copy, then the end's
}

TEST(parallel_copy, nothing_to_copy_reports_zero_of_zero_once) {
  std::vector<std::uint64_t> seen;
  parallel_copy({}, 4, [&](std::uint64_t copied, std::uint64_t total) {
    EXPECT_EQ(total, 0u);
    seen.push_back(copied);
  });
  EXPECT_EQ(seen, std::vector<std::uint64_t>{0});
}

}  // namespace
}  // namespace cuzk
