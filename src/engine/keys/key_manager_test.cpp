// SPDX-License-Identifier: MIT OR Apache-2.0
// The key manager on real (small) snarkjs keys: loading, LRU eviction within a budget, reference
// counts that pin a key, the hot tier's honest name, and the refusals.
#include "engine/keys/key_manager.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <future>
#include <vector>
#include <thread>

#include <unistd.h>

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

const std::string small_bn = std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/bn128/circuit.zkey";

struct sizes {
  key_summary summary;
  uint64_t warm = 0, hot = 0;
};

sizes measure() {
  sizes s;
  s.summary = read_key_summary(small_bn).value();
  auto k = loaded_key::load_warm(small_bn, s.summary, point_check::on_curve).value();
  s.warm = k->resident_bytes();
  s.hot = k->hot_bytes();
  return s;
}

key_tier tier_of(const key_manager& m, const std::string& id) {
  for (const auto& e : m.entries())
    if (e.circuit == id) return e.tier;
  return key_tier::cold;
}

TEST(key_summary, reads_the_header_and_rejects_what_is_not_a_zkey) {
  auto s = read_key_summary(small_bn);
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  EXPECT_EQ(s->curve, formats::curve_id::bn254);
  EXPECT_GT(s->n_vars, s->n_public);
  auto bad = read_key_summary(std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/bn128/circuit.wtns");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("circuit.wtns"), std::string::npos) << bad.error().to_string();
  EXPECT_FALSE(read_key_summary("/nonexistent.zkey").is_ok());
}

TEST(key_manager, loads_once_and_reuses) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({}, alloc, point_check::on_curve);
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  EXPECT_EQ(tier_of(m, "a"), key_tier::cold);
  double load_s = -1;
  {
    auto l = m.acquire("a", nullptr, &load_s);
    ASSERT_TRUE(l.is_ok()) << l.error().to_string();
    EXPECT_EQ(l->key().tier(), key_tier::warm);
    EXPECT_EQ(m.entries()[0].users, 1u);
  }
  EXPECT_EQ(m.entries()[0].users, 0u);
  ASSERT_TRUE(m.acquire("a").is_ok());
  const auto e = m.entries()[0];
  EXPECT_EQ(e.loads, 1u);
  EXPECT_EQ(e.tier_name, "warm");
  EXPECT_EQ(e.mapped_bytes, sz.summary.file_bytes);
  EXPECT_TRUE(e.last_use.has_value());
  EXPECT_FALSE(m.acquire("missing").is_ok());
}

TEST(key_manager, evicts_the_least_recently_used_unreferenced_key) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({.warm = 2 * sz.warm + sz.warm / 2}, alloc, point_check::on_curve);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(m.add(id, small_bn, sz.summary).is_ok());
  ASSERT_TRUE(m.acquire("a").is_ok());
  ASSERT_TRUE(m.acquire("b").is_ok());
  ASSERT_TRUE(m.acquire("a").is_ok());  // a is now more recent than b
  ASSERT_TRUE(m.acquire("c").is_ok());
  EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
  EXPECT_EQ(tier_of(m, "b"), key_tier::cold);
  EXPECT_EQ(tier_of(m, "c"), key_tier::warm);
  EXPECT_LE(m.tiers()[static_cast<int>(key_tier::warm)].used, 2 * sz.warm + sz.warm / 2);
}

TEST(key_manager, a_referenced_key_is_never_evicted) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({.warm = 2 * sz.warm + sz.warm / 2}, alloc, point_check::on_curve);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(m.add(id, small_bn, sz.summary).is_ok());
  auto la = m.acquire("a").value();
  auto lb = m.acquire("b").value();
  EXPECT_FALSE(m.evict("a").is_ok());  // in use

  // c needs room; both residents are in use, so it waits until one lease ends.
  auto waiter = std::async(std::launch::async, [&] { return m.acquire("c"); });
  EXPECT_EQ(waiter.wait_for(150ms), std::future_status::timeout);
  EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
  EXPECT_EQ(tier_of(m, "b"), key_tier::warm);
  lb.release();
  auto lc = waiter.get();
  ASSERT_TRUE(lc.is_ok()) << lc.error().to_string();
  EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
  EXPECT_EQ(tier_of(m, "b"), key_tier::cold);

  // A waiter gives up when its job is cancelled.
  cancel_token tok;
  auto w2 = std::async(std::launch::async, [&] { return m.acquire("b", &tok); });
  std::this_thread::sleep_for(50ms);
  tok.request(cancel_reason::caller);
  EXPECT_FALSE(w2.get().is_ok());
}

TEST(key_manager, hot_tier_is_reported_as_pageable_and_demotes_to_warm) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({.hot = sz.hot + sz.hot / 2}, alloc, point_check::on_curve);
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  ASSERT_TRUE(m.add("b", small_bn, sz.summary).is_ok());
  ASSERT_TRUE(m.preload("a", key_tier::hot).is_ok());
  auto ea = m.entries()[0];
  EXPECT_EQ(ea.tier, key_tier::hot);
  EXPECT_EQ(ea.tier_name, "hot(pageable)");
  EXPECT_EQ(ea.mapped_bytes, 0u);
  EXPECT_EQ(ea.owned_bytes, sz.hot);
  ASSERT_TRUE(m.preload("b", key_tier::hot).is_ok());
  EXPECT_EQ(tier_of(m, "a"), key_tier::warm);  // moved down one tier, not dropped
  EXPECT_EQ(tier_of(m, "b"), key_tier::hot);
  {
    auto l = m.acquire("a").value();  // promoted again when a proof wants it and room can be made
    EXPECT_EQ(l.key().tier(), key_tier::hot);
  }
  EXPECT_EQ(tier_of(m, "b"), key_tier::warm);
  ASSERT_TRUE(m.evict("a", key_tier::warm).is_ok());
  EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
  ASSERT_TRUE(m.evict("a").is_ok());
  EXPECT_EQ(tier_of(m, "a"), key_tier::cold);
}

TEST(key_manager, a_hot_copy_holds_the_same_points_and_reports_its_progress) {
  const auto sz = measure();
  const auto warm = loaded_key::load_warm(small_bn, sz.summary, point_check::on_curve).value();
  pageable_allocator alloc;
  key_manager m({.hot = sz.hot * 2}, alloc, point_check::on_curve);
  struct report {
    std::string id, step;
    uint64_t done, total;
    double seconds;
  };
  std::vector<report> reports;
  m.set_load_progress([&](const std::string& id, const char* step, uint64_t done, uint64_t total, double seconds) {
    reports.push_back({id, step, done, total, seconds});
  });
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  ASSERT_TRUE(m.preload("a", key_tier::hot).is_ok());
  auto l = m.acquire("a").value();
  ASSERT_EQ(l.key().tier(), key_tier::hot);
  const auto& want = warm->get<bn254>()->view;
  const auto& got = l.key().get<bn254>()->view;
  auto same = [](auto x, auto y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size_bytes()) == 0 && x.data() != y.data();
  };
  EXPECT_TRUE(same(want.a, got.a));
  EXPECT_TRUE(same(want.b1, got.b1));
  EXPECT_TRUE(same(want.b2, got.b2));
  EXPECT_TRUE(same(want.c, got.c));
  EXPECT_TRUE(same(want.h, got.h));
  const uint64_t point_bytes =
      want.a.size_bytes() + want.b1.size_bytes() + want.b2.size_bytes() + want.c.size_bytes() + want.h.size_bytes();
  // The first step's beginning, then each step's end, in order; a hot copy slower than 2 s (a
  // loaded machine, a sanitizer) may report its progress before its end.
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.front().step, "map");
  EXPECT_EQ(reports.front().done, 0u);
  EXPECT_EQ(reports.front().total, sz.summary.file_bytes);
  EXPECT_EQ(reports.front().seconds, 0.0);
  std::vector<report> ends;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& r = reports[i];
    EXPECT_EQ(r.id, "a");
    EXPECT_LE(r.done, r.total);
    EXPECT_GE(r.seconds, 0.0);
    if (r.done == r.total) {
      ends.push_back(r);
    } else if (i > 0) {
      EXPECT_EQ(r.step, "hot copy");
    }
  }
  const std::vector<std::string> steps = {"map", "point check", "matrices", "hot copy"};
  ASSERT_EQ(ends.size(), steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(ends[i].step, steps[i]);
    EXPECT_GT(ends[i].total, 0u);
  }
  EXPECT_EQ(reports.back().id, "a");
  EXPECT_EQ(reports.back().step, "hot copy");
  EXPECT_EQ(reports.back().done, point_bytes);
  EXPECT_EQ(reports.back().total, point_bytes);
  EXPECT_GE(reports.back().seconds, 0.0);
}

// The private copy is laid out with its sections aligned, so none of its point sections is copied
// into memory again: what a key owns is its matrices, where the mapped file owns the misaligned
// sections' copies too; the points are the same and lie in the copy's mapping.
TEST(loaded_key, a_private_copy_uses_every_point_section_in_place) {
  const auto sz = measure();
  const std::string dir = ::testing::TempDir() + "/cuzk-key-copy-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const auto mapped = loaded_key::load_warm(small_bn, sz.summary, point_check::on_curve).value();
  const auto copied = loaded_key::load_warm(small_bn, sz.summary, point_check::on_curve, dir).value();
  const auto& in_file = *mapped->get<bn254>();
  const auto& in_copy = *copied->get<bn254>();
  ASSERT_GT(in_file.zk->copied_bytes(), 0u) << "the fixture has no misaligned section to test";
  EXPECT_EQ(in_copy.zk->copied_bytes(), 0u);
  EXPECT_EQ(mapped->owned_bytes() - copied->owned_bytes(), in_file.zk->copied_bytes());
  EXPECT_EQ(copied->owned_bytes(), in_copy.matrices->a.bytes() + in_copy.matrices->b.bytes());
  // Padding: at most one section of 12 + 7 bytes before each of the file's sections.
  EXPECT_GT(copied->mapped_bytes(), mapped->mapped_bytes());
  EXPECT_LE(copied->mapped_bytes(), mapped->mapped_bytes() + 19 * in_file.zk->file().sections().size());
  const auto map = in_copy.zk->file().bytes();
  auto same_in_copy = [&](auto x, auto y) {
    const auto* p = reinterpret_cast<const uint8_t*>(y.data());
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size_bytes()) == 0 && p >= map.data() &&
           p + y.size_bytes() <= map.data() + map.size();
  };
  EXPECT_TRUE(same_in_copy(in_file.view.a, in_copy.view.a));
  EXPECT_TRUE(same_in_copy(in_file.view.b1, in_copy.view.b1));
  EXPECT_TRUE(same_in_copy(in_file.view.b2, in_copy.view.b2));
  EXPECT_TRUE(same_in_copy(in_file.view.c, in_copy.view.c));
  EXPECT_TRUE(same_in_copy(in_file.view.h, in_copy.view.h));
  // The copy is unnamed: nothing is left in the directory.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// A load is admitted on an upper bound of the key's host bytes: twice the file for a mapping (the
// reader may copy every point section), the file once and its coefficients twice (the matrices, and
// their build's moment) for a private copy. Both bound what the key then holds.
TEST(key_manager, a_load_is_admitted_on_a_bound_of_what_its_copy_holds) {
  const auto sz = measure();
  const std::string dir = ::testing::TempDir() + "/cuzk-key-bound-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  pageable_allocator alloc;
  key_manager mapped({}, alloc, point_check::on_curve);
  key_manager copied({}, alloc, point_check::on_curve, {}, nullptr, dir);
  ASSERT_GT(sz.summary.coef_bytes, 0u);
  ASSERT_GT(sz.summary.sections, 0u);
  for (auto* m : {&mapped, &copied}) ASSERT_TRUE(m->add("a", small_bn, sz.summary).is_ok());
  const uint64_t row_starts = 16 * (uint64_t{sz.summary.domain_size} + 1);
  EXPECT_EQ(mapped.load_estimate("a"), 2 * sz.summary.file_bytes + row_starts);
  EXPECT_EQ(copied.load_estimate("a"),
            sz.summary.file_bytes + 19 * uint64_t{sz.summary.sections} + 2 * sz.summary.coef_bytes + 2 * row_starts);
  EXPECT_LT(copied.load_estimate("a"), mapped.load_estimate("a"));
  for (auto* m : {&mapped, &copied}) {
    const uint64_t bound = m->load_estimate("a");
    ASSERT_TRUE(m->preload("a", key_tier::warm).is_ok());
    EXPECT_EQ(m->load_estimate("a"), 0u);  // resident
    const auto e = m->entries().front();
    EXPECT_LE(e.mapped_bytes + e.owned_bytes, bound);
  }
  ASSERT_TRUE(copied.evict("a").is_ok());
  std::filesystem::remove_all(dir);
}

// A key spared on a thread stays where it is in the host budget's eviction rounds run on that
// thread (the engine's admission, for the key it counted resident); other keys go as before, and a
// round run on another thread may take it.
TEST(key_manager, a_spared_key_stays_in_the_evictions_of_its_thread_only) {
  const auto sz = measure();
  pageable_allocator alloc;
  memory_budgets memory(uint64_t{1} << 30, {});
  key_manager m({}, alloc, point_check::on_curve, {}, &memory);
  for (const char* id : {"a", "b"}) {
    ASSERT_TRUE(m.add(id, small_bn, sz.summary).is_ok());
    ASSERT_TRUE(m.preload(id, key_tier::warm).is_ok());
  }
  ASSERT_GT(m.host_held("a"), 0u);
  // "a" is the least recently used: a round that may take any key takes it first.
  const uint64_t all = memory.host().limit();
  {
    const key_manager::spared_key spared(m, "a");
    auto r = memory.host().acquire(all - m.host_held("a"), {nullptr, 0ms, "a job", true, nullptr});
    EXPECT_TRUE(r.is_ok()) << r.error().to_string();
    EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
    EXPECT_EQ(tier_of(m, "b"), key_tier::cold);
    // Not even for a request that cannot fit beside it.
    auto more = memory.host().acquire(1, {nullptr, 0ms, "more", true, nullptr});
    EXPECT_FALSE(more.is_ok());
    EXPECT_EQ(tier_of(m, "a"), key_tier::warm);
  }
  std::thread([&] {
    auto r = memory.host().acquire(all, {nullptr, 0ms, "another thread's job", true, nullptr});
    EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  }).join();
  EXPECT_EQ(tier_of(m, "a"), key_tier::cold);
}

TEST(key_manager, no_device_tier_without_a_gpu_backend) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({}, alloc, point_check::on_curve);
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  auto s = m.preload("a", key_tier::device);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), errc::unsupported);
  const auto tiers = m.tiers();
  EXPECT_FALSE(tiers[static_cast<int>(key_tier::device)].present);
  EXPECT_FALSE(tiers[static_cast<int>(key_tier::hot)].present);
  EXPECT_TRUE(tiers[static_cast<int>(key_tier::warm)].present);
}

TEST(key_manager, a_key_bigger_than_the_budget_is_refused) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({.warm = sz.summary.file_bytes / 2}, alloc, point_check::on_curve);
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  auto l = m.acquire("a");
  ASSERT_FALSE(l.is_ok());
  EXPECT_NE(l.error().message().find("warm budget"), std::string::npos) << l.error().to_string();
}

// A size refusal names the key's file, not only the circuit's id.
TEST(key_manager, a_key_the_hot_tier_cannot_take_is_refused_naming_its_file) {
  const auto sz = measure();
  pageable_allocator alloc;
  key_manager m({.hot = sz.hot / 2}, alloc, point_check::on_curve);
  ASSERT_TRUE(m.add("a", small_bn, sz.summary).is_ok());
  const auto s = m.preload("a", key_tier::hot);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), errc::resource_exhausted);
  EXPECT_NE(s.message().find("circuit a: the hot tier cannot take key " + small_bn + " ("), std::string::npos)
      << s.to_string();
}

}  // namespace
}  // namespace cuzk::engine
