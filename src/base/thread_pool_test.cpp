// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace cuzk {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  for (unsigned threads : {1u, 2u, 5u}) {
    thread_pool pool(threads);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{100003}}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) hits[i]++;
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "threads=" << threads << " n=" << n;
    }
  }
}

TEST(ThreadPool, NestedCallsRunInline) {
  thread_pool pool(3);
  std::atomic<long> sum{0};
  pool.parallel_for(16, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      pool.parallel_for(10, [&](std::size_t b2, std::size_t e2) { sum += static_cast<long>(e2 - b2); });
    }
  });
  EXPECT_EQ(sum.load(), 160);
}

TEST(ThreadPool, ConcurrentCallersAreSerialized) {
  thread_pool pool(2);
  std::atomic<long> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        pool.parallel_for(100, [&](std::size_t b, std::size_t e) { sum += static_cast<long>(e - b); });
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(sum.load(), 4 * 50 * 100);
}

}  // namespace
}  // namespace cuzk
