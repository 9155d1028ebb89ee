// SPDX-License-Identifier: MIT OR Apache-2.0
// witness_stream: each witness is handed out as soon as its own read ends, in partition order
// whatever order the reads end in; no more than `at_once` reads run together; partitions named
// for the stream's own thread read there; after a failure later partitions are not read and the
// first failure in partition order is the batch's, and the first a wait() handed out is known; a
// read that throws is a failed read; a stream made after another reads only once that one's reads
// have ended; a stream dropped early reads nothing more.
#include "engine/jobs/witness_stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

// A witness that says which partition it is: one value, p.
any_witness tagged(std::size_t p) {
  any_witness w;
  w.values = bulk_array<bn254::fr::repr>(1);
  w.values[0] = bn254::fr::repr::from_u64(p);
  return w;
}

uint64_t tag_of(const any_witness& w) { return w.values[0].limb[0]; }

TEST(witness_stream, a_witness_is_there_once_its_own_read_ends_while_a_later_one_is_still_read) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  witness_stream s(5, 2, [&](std::size_t p) -> result<any_witness> {
    if (p == 1) released.wait();  // partition 1 is slow: 0 and 2 end while it is read
    return tagged(p);
  });
  ASSERT_EQ(s.size(), 5u);
  auto w0 = s.wait(0);
  ASSERT_TRUE(w0.is_ok()) << w0.error().to_string();
  EXPECT_EQ(tag_of(**w0), 0u);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(s.ready(1));
  EXPECT_TRUE(s.first_failure().is_ok());
  release.set_value();
  for (std::size_t p = 0; p < 5; ++p) {
    auto w = s.wait(p);
    ASSERT_TRUE(w.is_ok()) << w.error().to_string();
    EXPECT_EQ(tag_of(**w), p);
    EXPECT_TRUE(s.ready(p));
  }
  EXPECT_TRUE(s.wait_all().is_ok());
  EXPECT_EQ(s.wait(5).error().code(), errc::out_of_range);
  EXPECT_FALSE(s.ready(5));
}

TEST(witness_stream, no_more_reads_run_together_than_at_once) {
  std::mutex m;
  int running = 0, most = 0;
  witness_stream s(12, 3, [&](std::size_t p) -> result<any_witness> {
    {
      std::lock_guard lk(m);
      most = std::max(most, ++running);
    }
    std::this_thread::sleep_for(5ms);
    {
      std::lock_guard lk(m);
      --running;
    }
    return tagged(p);
  });
  ASSERT_TRUE(s.wait_all().is_ok());
  EXPECT_LE(most, 3);
  EXPECT_GE(most, 2) << "the reads never overlapped";
}

TEST(witness_stream, partitions_named_for_the_stream_thread_are_read_there_in_turn) {
  std::mutex m;
  std::set<std::thread::id> driver_ids, other_ids;
  witness_stream s(
      6, 4,
      [&](std::size_t p) -> result<any_witness> {
        std::lock_guard lk(m);
        (p % 2 == 0 ? driver_ids : other_ids).insert(std::this_thread::get_id());
        return tagged(p);
      },
      [](std::size_t p) { return p % 2 == 0; });
  ASSERT_TRUE(s.wait_all().is_ok());
  ASSERT_EQ(driver_ids.size(), 1u);  // one thread for all of them: the stream's own
  EXPECT_EQ(driver_ids.count(std::this_thread::get_id()), 0u);
  for (const auto& id : other_ids) EXPECT_EQ(driver_ids.count(id), 0u);
}

// Partitions 2 and 4 fail; 4's read ends first. The batch's failure is 2's, and nothing after a
// failure is read once it is known.
TEST(witness_stream, the_first_failure_in_partition_order_is_the_batchs_and_later_reads_are_skipped) {
  std::promise<void> four_failed;
  std::shared_future<void> after_four = four_failed.get_future().share();
  std::atomic<int> reads{0};
  witness_stream s(8, 3, [&](std::size_t p) -> result<any_witness> {
    ++reads;
    if (p == 4) {
      four_failed.set_value();
      return status(errc::io_error, "partition 4: cut short");
    }
    if (p == 2) {
      after_four.wait();
      return status(errc::io_error, "partition 2: cut short");
    }
    return tagged(p);
  });
  EXPECT_TRUE(s.wait(0).is_ok());
  EXPECT_TRUE(s.wait(1).is_ok());
  auto two = s.wait(2);
  ASSERT_FALSE(two.is_ok());
  EXPECT_NE(two.error().message().find("partition 2"), std::string::npos) << two.error().to_string();
  const status all = s.wait_all();
  ASSERT_FALSE(all.is_ok());
  EXPECT_NE(all.message().find("partition 2"), std::string::npos) << all.to_string();
  EXPECT_NE(s.first_failure().message().find("partition 2"), std::string::npos);
  auto seven = s.wait(7);
  ASSERT_FALSE(seven.is_ok());
  EXPECT_EQ(seven.error().code(), errc::cancelled);
  EXPECT_NE(seven.error().message().find("not read"), std::string::npos) << seven.error().to_string();
  EXPECT_LT(reads.load(), 8) << "partitions after a failure were read";
}

TEST(witness_stream, a_stream_dropped_while_reading_reads_nothing_more) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> reads{0};
  std::jthread releaser;
  {
    witness_stream s(10, 1, [&](std::size_t p) -> result<any_witness> {
      ++reads;
      released.wait();
      return tagged(p);
    });
    for (int i = 0; i < 2000 && reads.load() == 0; ++i) std::this_thread::sleep_for(1ms);
    ASSERT_EQ(reads.load(), 1);
    releaser = std::jthread([&] {
      std::this_thread::sleep_for(20ms);
      release.set_value();
    });
  }  // waits for the running read, starts no other
  EXPECT_EQ(reads.load(), 1);
}

TEST(witness_stream, an_empty_batch_has_nothing_to_wait_for) {
  witness_stream s(0, 4, [](std::size_t) -> result<any_witness> { return status(errc::internal, "never read"); });
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.wait_all().is_ok());
  EXPECT_TRUE(s.first_failure().is_ok());
}

TEST(ready_witnesses, hands_out_what_it_holds) {
  const any_witness a = tagged(7), b = tagged(9);
  const std::vector<const any_witness*> all = {&a, &b};
  ready_witnesses r(all);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_TRUE(r.ready(1));
  EXPECT_EQ(tag_of(*r.wait(1).value()), 9u);
  EXPECT_EQ(r.wait(2).error().code(), errc::out_of_range);
}

TEST(witness_stream, the_failure_a_wait_handed_out_is_known_and_a_read_that_throws_is_a_failed_read) {
  witness_stream s(4, 2, [](std::size_t p) -> result<any_witness> {
    if (p == 1) throw std::bad_alloc();
    if (p == 2) throw std::runtime_error("disk on fire");
    return tagged(p);
  });
  EXPECT_TRUE(s.handed_out_failure().is_ok());
  EXPECT_TRUE(s.wait(0).is_ok());
  EXPECT_TRUE(s.handed_out_failure().is_ok());
  auto one = s.wait(1);
  ASSERT_FALSE(one.is_ok());
  EXPECT_EQ(one.error().code(), errc::resource_exhausted);
  EXPECT_EQ(s.handed_out_failure().code(), errc::resource_exhausted);
  EXPECT_EQ(s.wait_all().code(), errc::resource_exhausted);
}

TEST(witness_stream, a_stream_made_after_another_reads_only_once_that_ones_reads_have_ended) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first_ended{false};
  std::atomic<bool> second_read_early{false};
  witness_stream first(2, 2, [&](std::size_t p) -> result<any_witness> {
    if (p == 1) {
      released.wait();
      first_ended = true;  // the last of the first stream's reads, about to end
    }
    return tagged(p);
  });
  std::atomic<int> second_reads{0};
  witness_stream second(
      3, 2,
      [&](std::size_t p) -> result<any_witness> {
        if (!first_ended) second_read_early = true;
        ++second_reads;
        return tagged(10 + p);
      },
      nullptr, first.ended());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(second_reads.load(), 0);
  EXPECT_FALSE(second.ready(0));
  release.set_value();
  ASSERT_TRUE(second.wait_all().is_ok());
  EXPECT_EQ(tag_of(*second.wait(2).value()), 12u);
  EXPECT_FALSE(second_read_early.load());
  EXPECT_TRUE(first.wait_all().is_ok());
}

}  // namespace
}  // namespace cuzk::engine
