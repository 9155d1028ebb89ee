// SPDX-License-Identifier: MIT OR Apache-2.0
// run_chunks_on_own_threads: every chunk once, the last one short, on as many threads as asked
// where there are chunks enough; nothing for an empty loop.
#include "base/own_threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace cuzk {
namespace {

TEST(own_threads, runs_every_chunk_once_the_last_one_short) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{999}, std::size_t{1000}, std::size_t{100003}}) {
    SCOPED_TRACE(n);
    std::vector<std::atomic<int>> seen(n);
    std::mutex m;
    std::set<std::pair<std::size_t, std::size_t>> chunks;
    run_chunks_on_own_threads(n, 1000, 4, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) ++seen[i];
      std::lock_guard lk(m);
      chunks.insert({b, e});
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
    EXPECT_EQ(chunks.size(), (n + 999) / 1000);
    EXPECT_EQ(chunks.rbegin()->second, n);
  }
  run_chunks_on_own_threads(0, 10, 4, [](std::size_t, std::size_t) { ADD_FAILURE() << "no chunk to run"; });
  std::size_t ran = 0;
  run_chunks_on_own_threads(3, 0, 0, [&](std::size_t b, std::size_t e) { ran += e - b; });  // one thread
  EXPECT_EQ(ran, 3u);
}

TEST(own_threads, chunks_run_on_threads_of_their_own_beside_the_caller) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: the caller runs every chunk";
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> running{0}, most{0}, entered{0};
  run_chunks_on_own_threads(64, 1, 2, [&](std::size_t b, std::size_t) {
    ++entered;
    // The first chunk waits for the other thread to take one (it is started; on a loaded machine
    // it may be scheduled late), so that both are seen however the chunks would otherwise fall.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (b == 0 && entered.load() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    --running;
    std::lock_guard lk(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_LE(most.load(), 2);
}

}  // namespace
}  // namespace cuzk
