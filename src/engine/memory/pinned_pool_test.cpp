// SPDX-License-Identifier: MIT OR Apache-2.0
// Tests of the pinned pool against a fake allocator that counts its calls and can be told to fail:
// reuse after warm-up (no allocation), best fit, capacity hints and prewarm, the pageable fallback
// when the allocator fails or the budget is full, shrinking when the budget's evictor asks, the
// charge that keeps a/b/c from being counted twice, and leases that outlive the pool.
#include "engine/memory/pinned_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

namespace cuzk::engine {
namespace {

struct fake_counts {
  std::atomic<int> allocations{0}, frees{0}, failures{0};
  std::atomic<uint64_t> live_bytes{0};
};

// Stands in for cudaHostAlloc/cudaFreeHost.
class fake_allocator final : public host_allocator {
 public:
  explicit fake_allocator(const char* kind = "pinned") : kind_(kind) {}
  const char* kind() const noexcept override { return kind_; }
  result<host_block> allocate(std::size_t bytes) override {
    if (fail.load()) {
      counts->failures.fetch_add(1);
      return status(errc::cuda_error, "cudaHostAlloc: out of memory (fake)");
    }
    counts->allocations.fetch_add(1);
    counts->live_bytes.fetch_add(bytes);
    void* p = std::malloc(bytes);
    return host_block(p, bytes, [c = counts, bytes](void* q) {
      std::free(q);
      c->frees.fetch_add(1);
      c->live_bytes.fetch_sub(bytes);
    });
  }

  std::shared_ptr<fake_counts> counts = std::make_shared<fake_counts>();
  std::atomic<bool> fail{false};

 private:
  const char* kind_;
};

struct fixture {
  explicit fixture(uint64_t limit, const char* kind = "pinned")
      : alloc(std::make_shared<fake_allocator>(kind)),
        budget("host", memory_kind::host, -1, limit),
        pool(alloc, budget, {[this](const pool_event& e) {
               std::lock_guard lk(m);
               events.push_back(e);
             }}) {}

  pinned_lease get(const std::string& circuit, uint64_t bytes, reservation* charge = nullptr) {
    auto r = pool.acquire(circuit, bytes, charge);
    EXPECT_TRUE(r.is_ok()) << r.error().to_string();
    return std::move(r).value();
  }
  std::vector<pool_event> events_of(pool_event_kind k) {
    std::lock_guard lk(m);
    std::vector<pool_event> v;
    for (const auto& e : events)
      if (e.kind == k) v.push_back(e);
    return v;
  }

  std::shared_ptr<fake_allocator> alloc;
  memory_budget budget;
  std::mutex m;
  std::vector<pool_event> events;
  pinned_pool pool;  // after what its callback uses
};

reservation take(memory_budget& b, uint64_t n) {
  auto r = b.acquire(n);
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  return std::move(r).value();
}

TEST(pinned_pool, buffers_are_reused_after_warm_up) {
  fixture f(1 << 20);
  for (int i = 0; i < 10; ++i) {
    auto l = f.get("c", 1000);
    ASSERT_TRUE(static_cast<bool>(l));
    EXPECT_TRUE(l.pooled());
    EXPECT_TRUE(l.pinned());
    EXPECT_TRUE(l.fallback_reason().empty());
    EXPECT_EQ(l.requested(), 1000u);
    EXPECT_EQ(l.capacity(), 1000u);
    EXPECT_EQ(l.bytes().size(), 1000u);
    std::memset(l.data(), i, 1000);  // the memory is usable
    EXPECT_EQ(f.budget.used(), 1000u);
  }
  EXPECT_EQ(f.alloc->counts->allocations.load(), 1);
  const auto s = f.pool.snapshot();
  EXPECT_EQ(s.memory, "pinned");
  EXPECT_EQ(s.buffers, 1u);
  EXPECT_EQ(s.idle, 1u);
  EXPECT_EQ(s.bytes, 1000u);
  EXPECT_EQ(s.acquires, 10u);
  EXPECT_EQ(s.hits, 9u);
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.fallbacks, 0u);
  EXPECT_EQ(f.events_of(pool_event_kind::allocated).size(), 1u);
  EXPECT_EQ(f.budget.used(), 1000u);  // idle buffers stay counted
}

TEST(pinned_pool, concurrent_leases_get_their_own_buffers_then_all_are_reused) {
  fixture f(1 << 20);
  {
    auto a = f.get("c", 1000);
    auto b = f.get("c", 1000);
    EXPECT_NE(a.data(), b.data());
  }
  for (int i = 0; i < 5; ++i) {
    auto a = f.get("c", 1000);
    auto b = f.get("c", 1000);
  }
  EXPECT_EQ(f.alloc->counts->allocations.load(), 2);
  EXPECT_EQ(f.pool.snapshot().hits, 10u);
}

TEST(pinned_pool, the_smallest_idle_buffer_that_fits_is_used) {
  fixture f(1 << 20);
  {
    auto big = f.get("big", 5000);
    auto mid = f.get("mid", 1000);
    auto small = f.get("small", 100);
  }
  auto l = f.get("other", 900);
  EXPECT_EQ(l.capacity(), 1000u);
  EXPECT_EQ(f.alloc->counts->allocations.load(), 3);
}

TEST(pinned_pool, capacity_hints_size_new_buffers_and_prewarm) {
  fixture f(1 << 20);
  EXPECT_EQ(f.pool.capacity_hint("c"), 0u);
  {
    auto first = f.get("c", 3000);   // the hint becomes 3000
    auto second = f.get("c", 1000);  // a miss: allocated at the hint's size
    EXPECT_EQ(second.capacity(), 3000u);
    EXPECT_EQ(second.requested(), 1000u);
  }
  EXPECT_EQ(f.pool.capacity_hint("c"), 3000u);
  f.pool.set_capacity_hint("c", 2000);  // never lowers
  EXPECT_EQ(f.pool.capacity_hint("c"), 3000u);

  // prewarm: allocates ahead, so the next proofs allocate nothing.
  f.pool.set_capacity_hint("k", 4096);
  ASSERT_TRUE(f.pool.prewarm("k", 2).is_ok());
  EXPECT_EQ(f.alloc->counts->allocations.load(), 4);
  ASSERT_TRUE(f.pool.prewarm("k", 2).is_ok());  // already there
  EXPECT_EQ(f.alloc->counts->allocations.load(), 4);
  {
    auto a = f.get("k", 4096);
    auto b = f.get("k", 4000);
    EXPECT_EQ(a.capacity(), 4096u);
    EXPECT_EQ(b.capacity(), 4096u);
  }
  EXPECT_EQ(f.alloc->counts->allocations.load(), 4);

  auto none = f.pool.prewarm("unknown", 1);
  EXPECT_FALSE(none.is_ok());
  EXPECT_EQ(none.code(), errc::failed_precondition);
  EXPECT_NE(none.message().find("no capacity hint"), std::string::npos) << none.message();
  const auto hints = f.pool.snapshot().capacity_hints;
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints[0], (std::pair<std::string, uint64_t>{"c", 3000}));
}

TEST(pinned_pool, a_hint_larger_than_the_budget_allows_falls_back_to_the_exact_size) {
  fixture f(5000);
  f.pool.set_capacity_hint("c", 8000);
  auto l = f.get("c", 2000);
  EXPECT_TRUE(l.pooled());
  EXPECT_EQ(l.capacity(), 2000u);
}

TEST(pinned_pool, prewarm_reports_a_budget_or_allocator_refusal) {
  fixture f(5000);
  f.pool.set_capacity_hint("c", 2000);
  auto st = f.pool.prewarm("c", 3);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("2 of 3 buffers"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("memory budget \"host\": no room without waiting"), std::string::npos)
      << st.message();
  EXPECT_EQ(f.pool.snapshot().idle, 2u);  // it did not evict its own buffers to make the third
  EXPECT_EQ(f.pool.snapshot().evicted_buffers, 0u);

  f.pool.trim(UINT64_MAX);
  f.alloc->fail = true;
  f.pool.set_capacity_hint("d", 3000);
  auto st2 = f.pool.prewarm("d", 1);
  EXPECT_FALSE(st2.is_ok());
  EXPECT_NE(st2.message().find("0 of 1 buffers"), std::string::npos) << st2.message();
  EXPECT_NE(st2.message().find("allocator failed"), std::string::npos) << st2.message();
  EXPECT_NE(st2.message().find("out of memory (fake)"), std::string::npos) << st2.message();
  EXPECT_EQ(f.budget.used(), 0u);  // the refused buffer's bytes went back
}

TEST(pinned_pool, falls_back_to_pageable_memory_when_the_allocator_fails) {
  fixture f(1 << 20);
  f.alloc->fail = true;
  {
    auto l = f.get("c", 1000);
    ASSERT_TRUE(static_cast<bool>(l));
    EXPECT_FALSE(l.pooled());
    EXPECT_FALSE(l.pinned());
    EXPECT_NE(l.fallback_reason().find("allocator failed"), std::string::npos) << l.fallback_reason();
    EXPECT_NE(l.fallback_reason().find("out of memory (fake)"), std::string::npos) << l.fallback_reason();
    std::memset(l.data(), 7, 1000);
    // The pageable memory is still counted, by the lease itself.
    EXPECT_EQ(l.reserved_bytes(), 1000u);
    EXPECT_EQ(f.budget.used(), 1000u);
  }
  EXPECT_EQ(f.budget.used(), 0u);
  const auto s = f.pool.snapshot();
  EXPECT_EQ(s.fallbacks, 1u);
  EXPECT_EQ(s.fallbacks_allocation, 1u);
  EXPECT_EQ(s.allocation_failures, 1u);
  EXPECT_EQ(s.buffers, 0u);
  const auto ev = f.events_of(pool_event_kind::fallback);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].circuit, "c");
  EXPECT_EQ(ev[0].bytes, 1000u);
  EXPECT_NE(ev[0].reason.find("allocator failed"), std::string::npos);

  // Once the allocator recovers, the pool serves again.
  f.alloc->fail = false;
  auto l = f.get("c", 1000);
  EXPECT_TRUE(l.pooled());
}

TEST(pinned_pool, falls_back_to_pageable_memory_when_the_budget_is_full) {
  fixture f(1000);
  auto other = take(f.budget, 900);
  auto l = f.get("c", 500);
  EXPECT_FALSE(l.pooled());
  EXPECT_NE(l.fallback_reason().find("no room in the budget"), std::string::npos) << l.fallback_reason();
  EXPECT_NE(l.fallback_reason().find("memory budget \"host\""), std::string::npos) << l.fallback_reason();
  EXPECT_EQ(l.reserved_bytes(), 0u);  // no charge given: the budget does not see it
  EXPECT_EQ(f.alloc->counts->allocations.load(), 0);
  const auto s = f.pool.snapshot();
  EXPECT_EQ(s.fallbacks_budget, 1u);
  EXPECT_EQ(s.fallbacks_allocation, 0u);
  EXPECT_EQ(f.budget.used(), 900u);
}

TEST(pinned_pool, the_pool_is_the_budgets_first_evictor_and_frees_least_recently_used_idle_buffers) {
  fixture f(1000);
  { auto a = f.get("c1", 300); }
  { auto b = f.get("c2", 400); }
  ASSERT_EQ(f.budget.used(), 700u);
  const auto evs = f.budget.snapshot().evictors;
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].rank, evictor_rank::idle_pinned_buffers);
  EXPECT_NE(evs[0].name.find("pinned pool"), std::string::npos);

  // 600 for someone else: 300 missing, the older idle buffer (c1's 300) goes.
  auto other = take(f.budget, 600);
  EXPECT_EQ(f.budget.used(), 1000u);
  EXPECT_EQ(f.alloc->counts->frees.load(), 1);
  auto s = f.pool.snapshot();
  EXPECT_EQ(s.buffers, 1u);
  EXPECT_EQ(s.bytes, 400u);
  EXPECT_EQ(s.evicted_buffers, 1u);
  EXPECT_EQ(s.evicted_bytes, 300u);
  const auto freed = f.events_of(pool_event_kind::freed);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].bytes, 300u);

  // A leased buffer is never evicted: the request waits instead (here: does not wait, and fails).
  {
    auto held = f.get("c2", 400);
    acquire_options now;
    now.timeout = std::chrono::milliseconds(0);
    EXPECT_FALSE(f.budget.acquire(100, now).is_ok());
    EXPECT_EQ(f.pool.snapshot().buffers, 1u);
  }

  // The pool makes room for its own new buffer by freeing an idle one of another size.
  other.reset();
  auto keep = take(f.budget, 400);  // 800 used: 400 idle in the pool + this
  auto l = f.get("c3", 500);
  EXPECT_TRUE(l.pooled());
  EXPECT_EQ(f.pool.snapshot().buffers, 1u);
  EXPECT_EQ(f.budget.used(), 900u);
}

TEST(pinned_pool, trim_frees_idle_buffers_on_request) {
  fixture f(1 << 20);
  {
    auto a = f.get("a", 100);
    auto b = f.get("b", 200);
    auto c = f.get("c", 300);
    a.reset();  // idle in this order: a is the least recently used
    b.reset();
    c.reset();
  }
  auto held = f.get("d", 1000);
  EXPECT_EQ(f.pool.trim(150), 300u);  // a (100), then b (200)
  EXPECT_EQ(f.pool.snapshot().buffers, 2u);
  EXPECT_EQ(f.pool.trim(UINT64_MAX), 300u);  // c; d is leased
  EXPECT_EQ(f.pool.trim(1), 0u);
  EXPECT_EQ(f.budget.used(), 1000u);
}

TEST(pinned_pool, a_charge_moves_the_abc_share_so_nothing_is_counted_twice) {
  fixture f(10000);
  // A job's working set (3000) includes 1000 bytes of a/b/c.
  auto job = take(f.budget, 3000);
  {
    auto l = f.get("c", 1000, &job);  // miss: the share becomes the buffer's reservation
    EXPECT_TRUE(l.pooled());
    EXPECT_EQ(job.bytes(), 2000u);
    EXPECT_EQ(f.budget.used(), 3000u);
  }
  EXPECT_EQ(f.budget.used(), 3000u);  // idle buffer 1000 + the job's 2000
  job.reset();
  EXPECT_EQ(f.budget.used(), 1000u);

  auto job2 = take(f.budget, 3000);
  {
    auto l = f.get("c", 1000, &job2);  // hit: the share goes back, the buffer is counted already
    EXPECT_TRUE(l.pooled());
    EXPECT_EQ(job2.bytes(), 2000u);
    EXPECT_EQ(f.budget.used(), 3000u);
  }
  job2.reset();

  // Allocator failure: the share covers the pageable memory and leaves with the lease.
  f.pool.trim(UINT64_MAX);
  f.alloc->fail = true;
  auto job3 = take(f.budget, 3000);
  {
    auto l = f.get("c", 1000, &job3);
    EXPECT_FALSE(l.pooled());
    EXPECT_EQ(l.reserved_bytes(), 1000u);
    EXPECT_EQ(job3.bytes(), 2000u);
    EXPECT_EQ(f.budget.used(), 3000u);
  }
  EXPECT_EQ(f.budget.used(), 2000u);
  job3.reset();
  f.alloc->fail = false;

  // A hint above the request: the share plus what the budget gives without waiting.
  f.pool.set_capacity_hint("h", 1500);
  auto job4 = take(f.budget, 3000);
  {
    auto l = f.get("h", 1000, &job4);
    EXPECT_EQ(l.capacity(), 1500u);
    EXPECT_EQ(job4.bytes(), 2000u);
    EXPECT_EQ(f.budget.used(), 3500u);
  }

  // A full budget: the pool cannot get more, yet the charged share covers a new buffer of the
  // requested size, so admission alone decides.
  auto rest = take(f.budget, 10000 - f.budget.used());
  auto job5 = job4.split(1600);  // larger than the idle 1500-byte buffer
  {
    auto l = f.get("n", 1600, &job5);
    EXPECT_TRUE(l.pooled());
    EXPECT_EQ(l.capacity(), 1600u);
    EXPECT_EQ(job5.bytes(), 0u);
  }
  EXPECT_EQ(f.budget.used(), 10000u);

  // A charge from another budget is refused.
  memory_budget device("device0", memory_kind::device, 0, 100);
  auto wrong = take(device, 10);
  auto r = f.pool.acquire("c", 10, &wrong);
  EXPECT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("not one of budget \"host\""), std::string::npos) << r.error().message();
}

TEST(pinned_pool, a_pageable_allocator_gives_reused_buffers_that_say_they_are_not_pinned) {
  fixture f(1 << 20, "pageable");
  {
    auto l = f.get("c", 100);
    EXPECT_TRUE(l.pooled());
    EXPECT_FALSE(l.pinned());
  }
  EXPECT_EQ(f.pool.snapshot().memory, "pageable");
}

TEST(pinned_pool, zero_bytes_is_refused) {
  fixture f(1000);
  auto r = f.pool.acquire("c", 0);
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
}

TEST(pinned_pool, a_lease_may_outlive_the_pool) {
  auto alloc = std::make_shared<fake_allocator>();
  memory_budget budget("host", memory_kind::host, -1, 1000);
  pinned_lease kept;
  {
    pinned_pool pool(alloc, budget);
    { auto idle = pool.acquire("a", 100); }
    auto l = pool.acquire("b", 200);
    ASSERT_TRUE(l.is_ok());
    kept = std::move(*l);
    EXPECT_EQ(budget.used(), 300u);
  }
  EXPECT_EQ(alloc->counts->frees.load(), 1);  // the idle one
  EXPECT_EQ(budget.used(), 200u);
  EXPECT_TRUE(budget.snapshot().evictors.empty());
  std::memset(kept.data(), 1, 200);
  kept.reset();
  EXPECT_EQ(alloc->counts->frees.load(), 2);
  EXPECT_EQ(alloc->counts->live_bytes.load(), 0u);
  EXPECT_EQ(budget.used(), 0u);
}

TEST(pinned_pool, stress_threads_sharing_the_pool_and_the_budget_end_consistent) {
  auto alloc = std::make_shared<fake_allocator>();
  memory_budget budget("host", memory_kind::host, -1, 20000);
  {
    pinned_pool pool(alloc, budget);
    std::vector<std::thread> ts;
    std::atomic<uint64_t> over{0};
    for (int t = 0; t < 6; ++t) {
      ts.emplace_back([&, t] {
        std::mt19937_64 rng(99 + t);
        for (int i = 0; i < 300; ++i) {
          static const char* const circuits[] = {"c0", "c1", "c2"};
          const std::string circuit = circuits[rng() % 3];
          const uint64_t n = 500 + rng() % 3000;
          if (rng() % 3 == 0) {
            // A job that reserves its working set and charges the a/b/c share.
            auto job = budget.acquire(n + 1000);
            if (!job) continue;
            auto l = pool.acquire(circuit, n, &*job);
            if (l) std::memset(l->data(), 1, n);
          } else {
            auto l = pool.acquire(circuit, n);
            if (l) std::memset(l->data(), 2, n);
          }
          if (budget.used() > budget.limit()) over.fetch_add(1);
        }
      });
    }
    for (auto& th : ts) th.join();
    EXPECT_EQ(over.load(), 0u);
    const auto s = pool.snapshot();
    EXPECT_EQ(s.leased, 0u);
    EXPECT_EQ(budget.used(), s.bytes);  // only the idle buffers are left, all counted
    EXPECT_EQ(alloc->counts->live_bytes.load(), s.bytes);
    EXPECT_LE(budget.snapshot().peak, budget.limit());
  }
  EXPECT_EQ(budget.used(), 0u);
  EXPECT_EQ(alloc->counts->live_bytes.load(), 0u);
}

}  // namespace
}  // namespace cuzk::engine
