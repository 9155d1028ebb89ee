// SPDX-License-Identifier: MIT OR Apache-2.0
// Tests of the memory budget: strict arrival order, partial release, eviction order and amounts,
// cancellation and timeouts that leave the line, the oversize error, and a many-thread stress run
// whose oracle is an independent count of the bytes every thread holds.
//
// Waits on other threads are by state, never by sleeping: a helper polls the budget's snapshot
// until a condition holds (a bug shows as that condition never holding, within 10 s).
#include "engine/memory/memory_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "base/poll_until.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

reservation take(memory_budget& b, uint64_t n) {
  auto r = b.acquire(n);
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  return std::move(r).value();
}

// A request on its own thread; the reservation is kept until the future is read.
std::future<result<reservation>> request(memory_budget& b, uint64_t n, acquire_options opt = {}) {
  return std::async(std::launch::async, [&b, n, opt] { return b.acquire(n, opt); });
}

TEST(memory_budget, grants_within_the_limit_and_counts) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto r1 = take(b, 40);
  auto r2 = take(b, 60);
  EXPECT_EQ(b.used(), 100u);
  r1.release(15);
  EXPECT_EQ(r1.bytes(), 25u);
  EXPECT_EQ(b.used(), 85u);
  r1.release(1000);  // more than held: returns what is left
  EXPECT_EQ(r1.bytes(), 0u);
  EXPECT_TRUE(static_cast<bool>(r1));
  r2.reset();
  EXPECT_FALSE(static_cast<bool>(r2));
  const auto s = b.snapshot();
  EXPECT_EQ(s.used, 0u);
  EXPECT_EQ(s.peak, 100u);
  EXPECT_EQ(s.granted, 2u);
  EXPECT_EQ(s.waited, 0u);
  EXPECT_EQ(s.waiting, 0u);
  EXPECT_EQ(s.name, "host");
  EXPECT_EQ(s.ordinal, -1);
}

TEST(memory_budget, zero_bytes_and_a_request_equal_to_the_limit) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto z = take(b, 0);
  EXPECT_TRUE(static_cast<bool>(z));
  EXPECT_EQ(z.bytes(), 0u);
  auto all = take(b, 100);
  EXPECT_EQ(b.used(), 100u);

  // An "unlimited" budget: sums near 2^64 must not wrap into a grant.
  memory_budget big("host", memory_kind::host, -1, UINT64_MAX);
  auto most = take(big, UINT64_MAX - 10);
  acquire_options now;
  now.timeout = 0ms;
  EXPECT_FALSE(big.acquire(20, now).is_ok());
  EXPECT_TRUE(big.acquire(10, now).is_ok());
}

TEST(memory_budget, a_request_larger_than_the_limit_fails_at_once_naming_budget_request_and_limit) {
  memory_budget b("device0", memory_kind::device, 0, 8ull << 30);
  refusal why = refusal::none;
  acquire_options opt;
  opt.purpose = "job 7 working set";
  opt.why = &why;
  auto r = b.acquire(10ull << 30, opt);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(why, refusal::too_large);
  EXPECT_EQ(r.error().code(), errc::resource_exhausted);
  const std::string& m = r.error().message();
  EXPECT_NE(m.find("memory budget \"device0\""), std::string::npos) << m;
  EXPECT_NE(m.find("10.00 GiB (10737418240 bytes)"), std::string::npos) << m;
  EXPECT_NE(m.find("job 7 working set"), std::string::npos) << m;
  EXPECT_NE(m.find("limit 8.00 GiB (8589934592 bytes)"), std::string::npos) << m;
  EXPECT_EQ(b.snapshot().refused_too_large, 1u);
  EXPECT_EQ(b.snapshot().waiting, 0u);

  memory_budget zero("host", memory_kind::host, -1, 0);
  auto z = zero.acquire(1, opt);
  EXPECT_FALSE(z.is_ok());
  EXPECT_EQ(why, refusal::too_large);
}

TEST(memory_budget, a_waiting_big_request_blocks_a_later_small_one) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 60);
  auto big = request(b, 50);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  // 10 bytes would fit next to the holder, but the 50 came first.
  auto small = request(b, 10);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 2; }));
  EXPECT_EQ(b.used(), 60u);
  EXPECT_EQ(b.snapshot().waiting_bytes, 60u);
  holder.release(20);  // 40 used: the 50 fits, then the 10
  auto rb = big.get();
  auto rs = small.get();
  ASSERT_TRUE(rb.is_ok());
  ASSERT_TRUE(rs.is_ok());
  EXPECT_EQ(b.used(), 100u);
  EXPECT_EQ(b.snapshot().waited, 2u);
}

// ahead_of_line: memory a running calculation needs to go on is granted where it fits though a
// request waits in line (which a request without it, told not to wait, never is), and refused
// where it does not fit, leaving the line as it was.
TEST(memory_budget, a_request_ahead_of_the_line_takes_what_fits_past_the_waiters) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 60);
  auto big = request(b, 50);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  acquire_options in_line{nullptr, 0ms, "in line", false, nullptr};
  EXPECT_FALSE(b.acquire(10, in_line).is_ok()) << "the 50 came first";
  acquire_options ahead = in_line;
  ahead.ahead_of_line = true;
  auto r = b.acquire(10, ahead);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(b.used(), 70u);
  refusal why = refusal::none;
  ahead.why = &why;
  EXPECT_FALSE(b.acquire(31, ahead).is_ok()) << "30 bytes free";
  EXPECT_EQ(why, refusal::timed_out);
  EXPECT_EQ(b.snapshot().waiting, 1u) << "the 50 still first in line";
  EXPECT_EQ(big.wait_for(20ms), std::future_status::timeout);
  r->reset();
  holder.release(20);  // 40 used: the 50 fits
  auto granted = big.get();
  ASSERT_TRUE(granted.is_ok());
  EXPECT_EQ(b.used(), 90u);
}

TEST(memory_budget, waiters_are_served_in_arrival_order) {
  // Requests queue behind a full budget; the holder then returns 5 bytes at a time. At every step
  // the requests granted must be exactly the longest prefix that fits, which the bytes still
  // waiting tell apart (every suffix of `sizes` has a different sum).
  const std::vector<uint64_t> sizes{30, 10, 20, 5, 35};
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 100);
  std::vector<std::future<result<reservation>>> waiters;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    waiters.push_back(request(b, sizes[i]));
    ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == i + 1; }));
  }
  uint64_t returned = 0;
  while (returned < 100) {
    holder.release(5);
    returned += 5;
    std::size_t expect_granted = 0;
    uint64_t sum = 0;
    while (expect_granted < sizes.size() && sum + sizes[expect_granted] <= returned)
      sum += sizes[expect_granted++];
    uint64_t expect_waiting_bytes = 0;
    for (std::size_t i = expect_granted; i < sizes.size(); ++i) expect_waiting_bytes += sizes[i];
    ASSERT_TRUE(poll_until([&] { return b.snapshot().granted == 1 + expect_granted; })) << returned;
    const auto s = b.snapshot();
    EXPECT_EQ(s.waiting, sizes.size() - expect_granted) << returned;
    EXPECT_EQ(s.waiting_bytes, expect_waiting_bytes) << returned;
  }
  for (auto& w : waiters) EXPECT_TRUE(w.get().is_ok());
  EXPECT_EQ(b.used(), 0u);  // the futures' reservations ended with the loop
}

TEST(memory_budget, a_partial_release_wakes_a_waiter) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto job = take(b, 100);
  auto next = request(b, 40);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  job.release(40);  // say a/b/c reached the GPU
  auto r = next.get();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->bytes(), 40u);
  EXPECT_EQ(job.bytes(), 60u);
  EXPECT_EQ(b.used(), 100u);
  EXPECT_GT(b.snapshot().wait_seconds, 0.0);
}

TEST(memory_budget, split_and_absorb_move_bytes_without_touching_the_budget) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto r = take(b, 70);
  auto part = r.split(30);
  EXPECT_EQ(r.bytes(), 40u);
  EXPECT_EQ(part.bytes(), 30u);
  EXPECT_TRUE(part.belongs_to(b));
  EXPECT_EQ(b.used(), 70u);
  auto more = r.split(1000);  // more than held: all of it
  EXPECT_EQ(more.bytes(), 40u);
  EXPECT_EQ(r.bytes(), 0u);
  ASSERT_TRUE(part.absorb(std::move(more)).is_ok());
  EXPECT_EQ(part.bytes(), 70u);
  EXPECT_FALSE(static_cast<bool>(more));
  reservation detached;
  EXPECT_FALSE(static_cast<bool>(detached.split(5)));
  ASSERT_TRUE(detached.absorb(std::move(part)).is_ok());
  EXPECT_EQ(detached.bytes(), 70u);

  memory_budget other("device0", memory_kind::device, 0, 100);
  auto o = take(other, 10);
  auto st = detached.absorb(std::move(o));
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("device0"), std::string::npos) << st.message();
  detached.reset();
  EXPECT_EQ(b.used(), 0u);
}

// grow() takes more from the reservation's budget as acquire() would (in line, with the evictors,
// refused past the limit or without room when told not to wait), and works once the budget
// object is gone: the recording of a witness graph grows its reservation on a thread that may
// outlive the engine's budgets.
TEST(memory_budget, a_reservation_grows_from_its_budget_as_acquire_grants) {
  reservation r;
  {
    memory_budget b("host", memory_kind::host, -1, 100);
    r = take(b, 30);
    ASSERT_TRUE(r.grow(20).is_ok());
    EXPECT_EQ(r.bytes(), 50u);
    EXPECT_EQ(b.used(), 50u);
    auto other = take(b, 40);
    const status no_room = r.grow(20, {nullptr, 0ms, "more", false, nullptr});
    EXPECT_EQ(no_room.code(), errc::resource_exhausted);
    EXPECT_NE(no_room.message().find("no room without waiting for 20 bytes for more"), std::string::npos)
        << no_room.message();
    EXPECT_EQ(r.bytes(), 50u) << "a refused grow leaves the reservation as it was";
    const status too_large = r.grow(101);
    EXPECT_NE(too_large.message().find("larger than the whole budget"), std::string::npos) << too_large.message();
    other.reset();
    EXPECT_EQ(b.used(), 50u);
  }
  ASSERT_TRUE(r.grow(40).is_ok()) << "the budget's state outlives its object";
  EXPECT_EQ(r.bytes(), 90u);
  EXPECT_EQ(r.grow(11, {nullptr, 0ms, "", false, nullptr}).code(), errc::resource_exhausted);
  r.reset();
  reservation detached;
  EXPECT_EQ(detached.grow(1).code(), errc::failed_precondition);
}

// A cache of reservations that an evictor drops, oldest first, recording what it was asked.
struct cache {
  std::mutex m;
  std::vector<reservation> items;
  std::vector<uint64_t> asked;

  void put(reservation r) {
    std::lock_guard lk(m);
    items.push_back(std::move(r));
  }
  uint64_t evict(uint64_t missing) {
    std::vector<reservation> dead;
    uint64_t freed = 0;
    {
      std::lock_guard lk(m);
      asked.push_back(missing);
      while (freed < missing && !items.empty()) {
        freed += items.front().bytes();
        dead.push_back(std::move(items.front()));
        items.erase(items.begin());
      }
    }
    return freed;  // `dead` releases through the budget here
  }
};

TEST(memory_budget, evictors_are_asked_in_rank_then_registration_order_for_what_is_missing) {
  memory_budget b("host", memory_kind::host, -1, 100);
  cache keys, pinned_a, pinned_b;
  std::vector<std::string> order;
  auto reg_keys = b.add_evictor("keys", evictor_rank::proving_keys, [&](uint64_t n) {
    order.push_back("keys");
    return keys.evict(n);
  });
  auto reg_a = b.add_evictor("pinned a", evictor_rank::idle_pinned_buffers, [&](uint64_t n) {
    order.push_back("pinned a");
    return pinned_a.evict(n);
  });
  auto reg_b = b.add_evictor("pinned b", evictor_rank::idle_pinned_buffers, [&](uint64_t n) {
    order.push_back("pinned b");
    return pinned_b.evict(n);
  });
  for (int i = 0; i < 3; ++i) pinned_a.put(take(b, 10));
  pinned_b.put(take(b, 20));
  keys.put(take(b, 50));
  ASSERT_EQ(b.used(), 100u);

  // Nothing is asked while a request fits.
  {
    memory_budget roomy("host", memory_kind::host, -1, 10);
    auto reg = roomy.add_evictor("never", 0, [&](uint64_t) -> uint64_t {
      ADD_FAILURE() << "asked although the request fits";
      return 0;
    });
    auto r = take(roomy, 10);
  }

  // 45 missing: "pinned a" frees all 30 it has, "pinned b" is asked for the 15 still missing and
  // frees its whole 20-byte item; 95 then fits, so the keys are left alone.
  auto r = take(b, 45);
  EXPECT_EQ(order, (std::vector<std::string>{"pinned a", "pinned b"}));
  EXPECT_EQ(pinned_a.asked, std::vector<uint64_t>{45});
  EXPECT_EQ(pinned_b.asked, std::vector<uint64_t>{15});
  EXPECT_TRUE(keys.asked.empty());
  EXPECT_EQ(b.used(), 95u);
  auto s = b.snapshot();
  EXPECT_EQ(s.eviction_calls, 2u);
  EXPECT_EQ(s.eviction_bytes_requested, 60u);
  EXPECT_EQ(s.eviction_bytes_freed, 50u);
  ASSERT_EQ(s.evictors.size(), 3u);
  EXPECT_EQ(s.evictors[0].name, "pinned a");
  EXPECT_EQ(s.evictors[0].bytes_freed, 30u);
  EXPECT_EQ(s.evictors[1].name, "pinned b");
  EXPECT_EQ(s.evictors[1].bytes_requested, 15u);
  EXPECT_EQ(s.evictors[1].bytes_freed, 20u);
  EXPECT_EQ(s.evictors[2].name, "keys");
  EXPECT_EQ(s.evictors[2].calls, 0u);

  // Then the keys, once the pinned caches are empty.
  order.clear();
  r.release(40);  // 55 used
  auto r2 = take(b, 60);
  EXPECT_EQ(order, (std::vector<std::string>{"pinned a", "pinned b", "keys"}));
  EXPECT_EQ(keys.asked, std::vector<uint64_t>{15});
  EXPECT_EQ(b.used(), 65u);

  // An unregistered evictor is not asked again.
  reg_keys.reset();
  EXPECT_EQ(b.snapshot().evictors.size(), 2u);
}

TEST(memory_budget, a_request_that_eviction_cannot_satisfy_waits_for_a_release) {
  memory_budget b("host", memory_kind::host, -1, 100);
  cache c;
  auto reg = b.add_evictor("cache", 0, [&](uint64_t n) { return c.evict(n); });
  c.put(take(b, 20));
  auto other = take(b, 80);
  auto w = request(b, 50);
  // The cache gives its 20; 30 are still missing, so the request waits in line.
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1 && b.used() == 80; }));
  {
    std::lock_guard lk(c.m);
    EXPECT_EQ(c.asked.front(), 50u);
  }
  other.release(30);
  auto r = w.get();
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(b.used(), 100u);
}

TEST(memory_budget, a_cancelled_waiter_leaves_the_line_and_the_next_proceeds) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 100);
  cancel_token tok;
  refusal why = refusal::none;
  acquire_options opt;
  opt.cancel = &tok;
  opt.purpose = "job 3";
  opt.why = &why;
  auto first = request(b, 50, opt);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  auto second = request(b, 30);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 2; }));
  tok.request(cancel_reason::caller);
  b.wake_waiters();
  auto r1 = first.get();
  ASSERT_FALSE(r1.is_ok());
  EXPECT_EQ(why, refusal::cancelled);
  EXPECT_EQ(r1.error().code(), errc::cancelled);
  EXPECT_NE(r1.error().message().find("cancelled"), std::string::npos) << r1.error().message();
  EXPECT_NE(r1.error().message().find("job 3"), std::string::npos) << r1.error().message();
  EXPECT_EQ(b.snapshot().waiting, 1u);
  EXPECT_EQ(b.snapshot().cancelled, 1u);
  holder.release(30);
  ASSERT_TRUE(second.get().is_ok());
}

TEST(memory_budget, a_cancel_is_noticed_without_a_wake_up_and_before_queuing) {
  memory_budget b("host", memory_kind::host, -1, 10);
  auto holder = take(b, 10);
  cancel_token tok;
  acquire_options opt;
  opt.cancel = &tok;
  auto w = request(b, 5, opt);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  tok.request(cancel_reason::shutdown);  // no wake_waiters(): the poll sees it
  EXPECT_FALSE(w.get().is_ok());
  EXPECT_EQ(b.snapshot().waiting, 0u);

  refusal why = refusal::none;
  opt.why = &why;
  auto r = b.acquire(1, opt);  // already cancelled: refused without waiting
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(why, refusal::cancelled);
  EXPECT_EQ(b.snapshot().cancelled, 2u);
}

TEST(memory_budget, a_timed_out_waiter_leaves_the_line_and_the_next_proceeds) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 80);
  refusal why = refusal::none;
  acquire_options opt;
  opt.timeout = 500ms;
  opt.why = &why;
  auto first = request(b, 50, opt);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  // 20 would fit now but waits behind the 50, until the 50 gives up.
  auto second = request(b, 20);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 2; }));
  auto r1 = first.get();
  ASSERT_FALSE(r1.is_ok());
  EXPECT_EQ(why, refusal::timed_out);
  EXPECT_EQ(r1.error().code(), errc::resource_exhausted);
  EXPECT_NE(r1.error().message().find("timed out"), std::string::npos) << r1.error().message();
  ASSERT_TRUE(second.get().is_ok());
  EXPECT_EQ(b.snapshot().timed_out, 1u);
  EXPECT_EQ(b.snapshot().waited, 1u);
}

TEST(memory_budget, a_zero_timeout_does_not_wait_but_keeps_the_order) {
  memory_budget b("host", memory_kind::host, -1, 100);
  refusal why = refusal::none;
  acquire_options now;
  now.timeout = 0ms;
  now.why = &why;
  auto a = b.acquire(60, now);
  ASSERT_TRUE(a.is_ok());
  auto c = b.acquire(60, now);
  EXPECT_FALSE(c.is_ok());
  EXPECT_EQ(why, refusal::timed_out);
  // With someone in line, even a request that fits is refused rather than overtaking.
  auto waiter = request(b, 50);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  auto d = b.acquire(10, now);
  EXPECT_FALSE(d.is_ok());
  EXPECT_EQ(why, refusal::timed_out);
  a->reset();
  ASSERT_TRUE(waiter.get().is_ok());
}

// A request ahead of the line that does not fit asks the evictors itself, without joining the
// line, and takes what they freed; the first in line, which asks none, still waits. Told not to
// evict, it takes nothing from the caches.
TEST(memory_budget, a_request_ahead_of_the_line_asks_the_evictors_from_its_own_thread) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto holder = take(b, 60);
  cache c;
  c.put(take(b, 20));
  c.put(take(b, 20));
  auto reg = b.add_evictor("cache", 0, [&](uint64_t n) { return c.evict(n); });
  cancel_token stop;
  auto waiter = request(b, 50, {&stop, std::nullopt, "in line", false, nullptr});
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  acquire_options ahead{nullptr, 0ms, "ahead", false, nullptr};
  ahead.ahead_of_line = true;
  EXPECT_FALSE(b.acquire(20, ahead).is_ok()) << "no room, and no eviction asked";
  EXPECT_TRUE(c.asked.empty());
  ahead.evict = true;
  auto r = b.acquire(20, ahead);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(c.asked, std::vector<uint64_t>{20});
  EXPECT_EQ(b.used(), 100u) << "one cached item freed and taken";
  const auto s = b.snapshot();
  EXPECT_EQ(s.eviction_calls, 1u);
  EXPECT_EQ(s.eviction_bytes_freed, 20u);
  EXPECT_EQ(s.waiting, 1u) << "the 50 still first in line";
  EXPECT_EQ(waiter.wait_for(20ms), std::future_status::timeout);
  stop.request(cancel_reason::caller);
  b.wake_waiters();
  EXPECT_EQ(waiter.get().error().code(), errc::cancelled);
}

// A poll for spare room: granted where it fits and nobody waits in line, else nothing, and a
// refusal neither counts (timed_out) nor wakes the line.
TEST(memory_budget, a_try_now_takes_spare_room_past_nobody_and_counts_no_refusal) {
  memory_budget b("host", memory_kind::host, -1, 100);
  auto r = b.try_now(60);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(b.used(), 60u);
  EXPECT_FALSE(b.try_now(41).has_value()) << "40 free";
  auto waiter = request(b, 50);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  EXPECT_FALSE(b.try_now(10).has_value()) << "it fits, but the 50 came first";
  const auto s = b.snapshot();
  EXPECT_EQ(s.timed_out, 0u);
  EXPECT_EQ(s.granted, 1u);
  EXPECT_EQ(s.waiting, 1u);
  r->reset();
  ASSERT_TRUE(waiter.get().is_ok());
  EXPECT_EQ(b.used(), 0u) << "the waiter's reservation read and dropped";
}

TEST(memory_budget, an_opportunistic_request_does_not_evict) {
  memory_budget b("host", memory_kind::host, -1, 100);
  cache c;
  c.put(take(b, 100));
  auto reg = b.add_evictor("cache", 0, [&](uint64_t n) { return c.evict(n); });
  acquire_options opt;
  opt.timeout = 0ms;
  opt.evict = false;
  auto r = b.acquire(10, opt);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.error().code(), errc::resource_exhausted);
  EXPECT_NE(r.error().message().find("no room without waiting for 10 bytes"), std::string::npos)
      << r.error().message();
  EXPECT_TRUE(c.asked.empty());
  opt.evict = true;
  EXPECT_TRUE(b.acquire(10, opt).is_ok());
  EXPECT_EQ(c.asked, std::vector<uint64_t>{10});
}

TEST(memory_budget, a_new_evictor_or_a_wake_up_makes_the_first_in_line_try_again) {
  memory_budget b("host", memory_kind::host, -1, 100);
  cache c;
  c.put(take(b, 100));
  auto w = request(b, 10);
  ASSERT_TRUE(poll_until([&] { return b.snapshot().waiting == 1; }));
  auto reg = b.add_evictor("late", 0, [&](uint64_t n) { return c.evict(n); });
  ASSERT_TRUE(w.get().is_ok());
  EXPECT_EQ(c.asked, std::vector<uint64_t>{10});
}

TEST(memory_budget, stress_many_threads_never_exceed_the_limit_and_end_at_zero) {
  constexpr uint64_t limit = 1000;
  constexpr int threads = 8, rounds = 400;
  memory_budget b("host", memory_kind::host, -1, limit);
  // Threads leave part of what they hold in a cache instead of releasing it; the evictor drops it.
  cache c;
  auto reg = b.add_evictor("cache", 0, [&](uint64_t n) { return c.evict(n); });
  std::atomic<int64_t> held{0};  // what the threads hold, counted on their side
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> samples{0}, over{0}, max_seen{0};
  std::thread watcher([&] {
    while (!stop.load()) {
      const uint64_t u = b.used();
      const auto h = held.load();
      if (u > limit || h > static_cast<int64_t>(limit)) over.fetch_add(1);
      max_seen.store(std::max(max_seen.load(), u));  // the only writer
      samples.fetch_add(1);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> ts;
  std::atomic<uint64_t> granted{0}, refused{0};
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      std::mt19937_64 rng(1234 + t);
      for (int i = 0; i < rounds; ++i) {
        const uint64_t n = 1 + rng() % 400;
        acquire_options opt;
        if (rng() % 8 == 0) opt.timeout = std::chrono::milliseconds(rng() % 2);
        auto r = b.acquire(n, opt);
        if (!r) {
          refused.fetch_add(1);
          continue;
        }
        granted.fetch_add(1);
        held.fetch_add(static_cast<int64_t>(n));
        const uint64_t part = rng() % (n + 1);
        held.fetch_sub(static_cast<int64_t>(part));
        if (rng() % 2)
          r->release(part);
        else
          c.put(r->split(part));  // cached: held by the cache, counted by the budget
        if (rng() % 4 == 0) std::this_thread::yield();
        held.fetch_sub(static_cast<int64_t>(r->bytes()));
        r->reset();
      }
    });
  }
  for (auto& th : ts) th.join();
  stop.store(true);
  watcher.join();
  {
    std::lock_guard lk(c.m);
    c.items.clear();
  }
  const auto s = b.snapshot();
  EXPECT_EQ(over.load(), 0u);
  EXPECT_LE(s.peak, limit);
  EXPECT_LE(max_seen.load(), limit);
  EXPECT_GT(samples.load(), 0u);
  EXPECT_EQ(s.used, 0u);
  EXPECT_EQ(s.waiting, 0u);
  EXPECT_EQ(held.load(), 0);
  EXPECT_EQ(granted.load() + refused.load(), static_cast<uint64_t>(threads * rounds));
  EXPECT_EQ(s.granted, granted.load());
  EXPECT_EQ(s.timed_out, refused.load());
}

TEST(memory_budgets, one_host_budget_and_one_per_device_ordinal) {
  memory_budgets set(1000, {{0, 500}, {2, 700}});
  EXPECT_EQ(set.host().name(), "host");
  EXPECT_EQ(set.host().kind(), memory_kind::host);
  ASSERT_NE(set.device(2), nullptr);
  EXPECT_EQ(set.device(2)->name(), "device2");
  EXPECT_EQ(set.device(2)->ordinal(), 2);
  EXPECT_EQ(set.device(2)->limit(), 700u);
  EXPECT_EQ(set.device(1), nullptr);
  EXPECT_EQ(set.device_ordinals(), (std::vector<int>{0, 2}));
  auto r = set.device(0)->acquire(100);
  ASSERT_TRUE(r.is_ok());
  const auto s = set.snapshot();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].name, "host");
  EXPECT_EQ(s[1].name, "device0");
  EXPECT_EQ(s[1].used, 100u);
  EXPECT_EQ(s[2].kind, memory_kind::device);
}

TEST(memory_budget, describe_bytes_is_exact_and_readable) {
  EXPECT_EQ(describe_bytes(0), "0 bytes");
  EXPECT_EQ(describe_bytes(1023), "1023 bytes");
  EXPECT_EQ(describe_bytes(1024), "1.00 KiB (1024 bytes)");
  EXPECT_EQ(describe_bytes(3ull << 29), "1.50 GiB (1610612736 bytes)");
  EXPECT_EQ(describe_bytes(5ull << 40), "5.00 TiB (5497558138880 bytes)");
  EXPECT_STREQ(refusal_name(refusal::timed_out), "timed_out");
}

TEST(memory_budget, reservations_and_registrations_may_outlive_the_budget_object) {
  reservation r;
  evictor_registration reg;
  {
    memory_budget b("host", memory_kind::host, -1, 10);
    r = take(b, 5);
    reg = b.add_evictor("x", 0, [](uint64_t) -> uint64_t { return 0; });
  }
  r.release(2);
  r.reset();
  reg.reset();
  SUCCEED();
}

}  // namespace
}  // namespace cuzk::engine
