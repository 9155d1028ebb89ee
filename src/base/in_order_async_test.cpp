// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/in_order_async.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace cuzk {
namespace {

TEST(in_order_async, results_come_back_in_index_order_with_at_most_at_once_running) {
  std::atomic<int> running{0}, most{0};
  const auto out = in_order_async<std::size_t>(12, 3, [&](std::size_t i) {
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    // Later tasks end first, so that order of completion and order of results differ.
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * (12 - static_cast<int>(i))));
    --running;
    return i * i;
  });
  ASSERT_EQ(out.size(), 12u);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i * i);
  EXPECT_LE(most.load(), 3);
  EXPECT_GE(most.load(), 2);  // they did overlap
}

TEST(in_order_async, tasks_marked_for_the_caller_run_on_its_thread_in_their_turn) {
  const auto caller = std::this_thread::get_id();
  const auto out = in_order_async<bool>(
      6, 2, [&](std::size_t) { return std::this_thread::get_id() == caller; },
      [](std::size_t i) { return i % 3 == 0; });
  EXPECT_EQ(out, (std::vector<bool>{true, false, false, true, false, false}));
}

TEST(in_order_async, nothing_to_run_and_a_zero_bound_are_handled) {
  EXPECT_TRUE(in_order_async<int>(0, 4, [](std::size_t) { return 1; }).empty());
  EXPECT_EQ(in_order_async<int>(3, 0, [](std::size_t i) { return static_cast<int>(i); }),
            (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace cuzk
