// SPDX-License-Identifier: MIT OR Apache-2.0
// The key manager's device tier with a fake uploader (no GPU): one upload per key and slot, reuse,
// per-slot budgets with least-recently-used demotion of copies no proof uses, reference counts
// that pin a copy, waiting for room, keys too large for a slot, failed uploads, preload/evict
// aimed at one slot or all, and status naming each copy's slot, bytes, users and last use. With
// device memory budgets: each copy's measured bytes held in its device's budget (shared by the
// slots of one device), unused copies evicted for other work on that budget, uploads waiting in
// the budget's line, and a copy measured larger than the budget's free room dropped with the
// reason. The oracle is the fake's own record of what it was asked to upload.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "engine/keys/key_manager.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

const std::string small_bn = std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/bn128/circuit.zkey";

// A device key that remembers which slot it was made for.
class fake_device_key final : public device_key {
 public:
  fake_device_key(int slot, uint64_t bytes, uint64_t host = 0) : slot_(slot), bytes_(bytes), host_(host) {}
  uint64_t bytes() const noexcept override { return bytes_; }
  uint64_t host_bytes() const noexcept override { return host_; }
  std::string placement() const override { return "slot " + std::to_string(slot_) + "'s layout"; }
  int slot() const noexcept { return slot_; }

 private:
  int slot_;
  uint64_t bytes_, host_;
};

class fake_uploader final : public device_uploader {
 public:
  uint64_t estimate = 100;  // what estimate_bytes() says
  uint64_t measured = 100;  // what an upload then takes
  uint64_t host_estimate = 0, host_measured = 0;  // the same for the pinned host copies
  bool fail = false;

  uint64_t estimate_bytes(const loaded_key&, uint64_t) const override { return estimate; }
  uint64_t estimate_host_bytes(const loaded_key&, uint64_t) const override { return host_estimate; }
  result<std::shared_ptr<const device_key>> upload(const loaded_key& key, int slot,
                                                   const device_slot& where) override {
    std::lock_guard lk(m);
    uploads.push_back({slot, where.name, key.path()});
    if (fail) return status(errc::cuda_error, "fake: out of memory");
    return std::shared_ptr<const device_key>(std::make_shared<fake_device_key>(slot, measured, host_measured));
  }
  struct call {
    int slot;
    std::string name;
    std::string path;
  };
  std::mutex m;
  std::vector<call> uploads;
  std::size_t count() {
    std::lock_guard lk(m);
    return uploads.size();
  }
};

struct fixture {
  std::shared_ptr<fake_uploader> up = std::make_shared<fake_uploader>();
  pageable_allocator alloc;
  std::unique_ptr<key_manager> m;

  explicit fixture(uint64_t slot_budget, std::vector<int> ordinals = {0, 1}, tier_budgets host = {},
                   memory_budgets* memory = nullptr) {
    device_tier dt{make_device_slots(ordinals, slot_budget), up, {}};
    m = std::make_unique<key_manager>(host, alloc, point_check::skip, dt, memory);
    const auto sum = read_key_summary(small_bn).value();
    for (const char* id : {"a", "b", "c"}) EXPECT_TRUE(m->add(id, small_bn, sum).is_ok());
  }
  key_entry_status entry(const std::string& id) const {
    for (auto& e : m->entries())
      if (e.circuit == id) return e;
    ADD_FAILURE() << "no entry " << id;
    return {};
  }
  bool on(const std::string& id, const std::string& slot) const {
    for (const auto& d : entry(id).devices)
      if (d.slot == slot && d.bytes > 0) return true;
    return false;
  }
};

TEST(device_slots, are_named_by_ordinal_with_repeats_numbered) {
  const auto s = make_device_slots({0, 0, 1, 0}, 7);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "device:0");
  EXPECT_EQ(s[1].name, "device:0#1");
  EXPECT_EQ(s[2].name, "device:1");
  EXPECT_EQ(s[3].name, "device:0#2");
  EXPECT_EQ(s[1].ordinal, 0);
  EXPECT_EQ(s[3].budget, 7u);
}

TEST(device_key_tier, uploads_once_per_slot_and_every_lease_reuses_the_copy) {
  fixture f(1000);
  f.up->measured = 120;
  {
    auto l = f.m->acquire("a", nullptr, nullptr, 0);
    ASSERT_TRUE(l.is_ok()) << l.error().to_string();
    ASSERT_NE(l->on_device(), nullptr);
    EXPECT_EQ(l->slot(), 0);
    EXPECT_EQ(static_cast<const fake_device_key*>(l->on_device())->slot(), 0);
    EXPECT_TRUE(l->device_note().is_ok());
    auto l2 = f.m->acquire("a", nullptr, nullptr, 0).value();
    EXPECT_EQ(l2.on_device(), l->on_device());  // the same copy
    EXPECT_EQ(f.up->count(), 1u);
    const auto e = f.entry("a");
    EXPECT_EQ(e.tier, key_tier::device);
    EXPECT_EQ(e.tier_name, "device:0");
    EXPECT_EQ(e.host_tier_name, "warm");
    EXPECT_EQ(e.users, 2u);
    ASSERT_EQ(e.devices.size(), 1u);
    EXPECT_EQ(e.devices[0].users, 2u);
    EXPECT_EQ(e.devices[0].bytes, 120u);
  }
  auto l1 = f.m->acquire("a", nullptr, nullptr, 1).value();
  EXPECT_EQ(l1.slot(), 1);
  EXPECT_EQ(static_cast<const fake_device_key*>(l1.on_device())->slot(), 1);
  ASSERT_EQ(f.up->count(), 2u);
  EXPECT_EQ(f.up->uploads[1].name, "device:1");
  const auto e = f.entry("a");
  EXPECT_EQ(e.tier_name, "device:0,device:1");
  EXPECT_EQ(e.device_bytes, 240u);
  EXPECT_EQ(e.devices[0].users, 0u);
  EXPECT_TRUE(e.devices[0].last_use.has_value());
  EXPECT_EQ(e.devices[1].users, 1u);
  const auto t = f.m->tiers()[static_cast<int>(key_tier::device)];
  EXPECT_TRUE(t.present);
  EXPECT_EQ(t.budget, 2000u);
  EXPECT_EQ(t.used, 240u);
  EXPECT_EQ(t.keys, 1u);
  EXPECT_EQ(f.m->tiers()[static_cast<int>(key_tier::warm)].keys, 1u);  // on the host too
  const auto slots = f.m->slots();
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_EQ(slots[1].name, "device:1");
  EXPECT_EQ(slots[1].used, 120u);
  EXPECT_EQ(slots[1].keys, 1u);
  // A lease without a slot neither uploads nor references a copy.
  auto host_only = f.m->acquire("b").value();
  EXPECT_EQ(host_only.on_device(), nullptr);
  EXPECT_EQ(host_only.slot(), -1);
  EXPECT_EQ(f.up->count(), 2u);
}

// How a copy is laid out (device_key::placement: for the GPU backend, what streams and whether B2
// runs beside) is in the name of its load's upload step, which the daemon logs, and in the status.
TEST(device_key_tier, the_upload_step_and_the_status_say_how_the_copy_is_laid_out) {
  fixture f(1000);
  std::vector<std::string> steps;
  f.m->set_load_progress([&](const std::string&, const char* step, uint64_t, uint64_t, double) { steps.push_back(step); });
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 1).is_ok());
  EXPECT_NE(std::find(steps.begin(), steps.end(), "upload to device:1 (slot 1's layout)"), steps.end())
      << (steps.empty() ? "no step" : steps.back());
  const auto e = f.entry("a");
  ASSERT_EQ(e.devices.size(), 1u);
  EXPECT_EQ(e.devices[0].placement, "slot 1's layout");
}

TEST(device_key_tier, the_least_recently_used_unreferenced_copy_makes_room) {
  fixture f(250);
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("b", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());  // a is now more recent than b
  ASSERT_TRUE(f.m->acquire("c", nullptr, nullptr, 0).is_ok());
  EXPECT_TRUE(f.on("a", "device:0"));
  EXPECT_FALSE(f.on("b", "device:0"));
  EXPECT_TRUE(f.on("c", "device:0"));
  EXPECT_EQ(f.entry("b").tier, key_tier::warm);  // dropped from the device only
  EXPECT_LE(f.m->slots()[0].used, 250u);
  // The other slot's budget is its own.
  ASSERT_TRUE(f.m->acquire("b", nullptr, nullptr, 1).is_ok());
  EXPECT_TRUE(f.on("a", "device:0"));
  EXPECT_TRUE(f.on("b", "device:1"));
}

TEST(device_key_tier, a_copy_in_use_is_never_dropped_and_an_upload_waits_for_room) {
  fixture f(250);
  auto la = f.m->acquire("a", nullptr, nullptr, 0).value();
  auto lb = f.m->acquire("b", nullptr, nullptr, 0).value();
  EXPECT_FALSE(f.m->evict("a", tier_target(key_tier::device, 0)).is_ok());  // in use
  auto waiter = std::async(std::launch::async, [&] { return f.m->acquire("c", nullptr, nullptr, 0); });
  EXPECT_EQ(waiter.wait_for(150ms), std::future_status::timeout);
  EXPECT_TRUE(f.on("a", "device:0"));
  EXPECT_TRUE(f.on("b", "device:0"));
  lb.release();
  auto lc = waiter.get();
  ASSERT_TRUE(lc.is_ok()) << lc.error().to_string();
  EXPECT_NE(lc->on_device(), nullptr);
  EXPECT_TRUE(f.on("a", "device:0"));
  EXPECT_FALSE(f.on("b", "device:0"));

  // A waiter gives up when its job is cancelled.
  cancel_token tok;
  auto w2 = std::async(std::launch::async, [&] { return f.m->acquire("b", &tok, nullptr, 0); });
  std::this_thread::sleep_for(50ms);
  tok.request(cancel_reason::caller);
  auto r2 = w2.get();
  ASSERT_FALSE(r2.is_ok());
  EXPECT_NE(r2.error().message().find("cancelled"), std::string::npos) << r2.error().to_string();
}

TEST(device_key_tier, a_key_too_large_for_the_slot_is_leased_without_a_copy_and_says_why) {
  fixture f(250);
  f.up->estimate = 300;  // refused before uploading
  auto l = f.m->acquire("a", nullptr, nullptr, 0);
  ASSERT_TRUE(l.is_ok()) << l.error().to_string();
  EXPECT_EQ(l->on_device(), nullptr);
  EXPECT_EQ(l->slot(), -1);
  EXPECT_EQ(l->device_note().code(), errc::resource_exhausted);
  EXPECT_NE(l->device_note().message().find("device:0 budget of 250"), std::string::npos)
      << l->device_note().to_string();
  EXPECT_EQ(f.up->count(), 0u);
  l->release();

  f.up->estimate = 100;  // admitted, but the upload measures more than the whole budget
  f.up->measured = 400;
  auto l2 = f.m->acquire("b", nullptr, nullptr, 0);
  ASSERT_TRUE(l2.is_ok());
  EXPECT_EQ(l2->on_device(), nullptr);
  EXPECT_NE(l2->device_note().message().find("took 400 bytes"), std::string::npos)
      << l2->device_note().to_string();
  EXPECT_EQ(f.m->slots()[0].used, 0u);
  EXPECT_EQ(f.entry("b").tier, key_tier::warm);
}

TEST(device_key_tier, a_copy_larger_than_measured_evicts_more_after_the_upload) {
  fixture f(250);
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("b", nullptr, nullptr, 0).is_ok());
  f.up->measured = 200;  // admitted at 100 (room after dropping a), needs 200
  ASSERT_TRUE(f.m->acquire("c", nullptr, nullptr, 0).is_ok());
  EXPECT_FALSE(f.on("a", "device:0"));
  EXPECT_FALSE(f.on("b", "device:0"));
  EXPECT_TRUE(f.on("c", "device:0"));
  EXPECT_EQ(f.m->slots()[0].used, 200u);
}

TEST(device_key_tier, a_failed_upload_leaves_the_key_on_the_host_with_the_reason) {
  fixture f(1000);
  f.up->fail = true;
  auto l = f.m->acquire("a", nullptr, nullptr, 1);
  ASSERT_TRUE(l.is_ok()) << l.error().to_string();
  EXPECT_EQ(l->on_device(), nullptr);
  EXPECT_EQ(l->device_note().code(), errc::cuda_error);
  EXPECT_NE(l->device_note().message().find("device:1"), std::string::npos) << l->device_note().to_string();
  EXPECT_EQ(f.entry("a").tier, key_tier::warm);
  EXPECT_EQ(f.entry("a").users, 1u);
  l->release();
  f.up->fail = false;  // the next lease tries again
  auto l2 = f.m->acquire("a", nullptr, nullptr, 1).value();
  EXPECT_NE(l2.on_device(), nullptr);
  // preload reports the failure instead of falling back.
  f.up->fail = true;
  const status p = f.m->preload("b", tier_target(key_tier::device, 0));
  EXPECT_EQ(p.code(), errc::cuda_error);
}

TEST(device_key_tier, preload_and_evict_aim_at_one_slot_or_every_slot) {
  fixture f(1000, {0, 1, 1});
  const auto t = f.m->parse_target("device:1#1");
  ASSERT_TRUE(t.is_ok()) << t.error().to_string();
  EXPECT_EQ(t->tier, key_tier::device);
  EXPECT_EQ(t->slot, 2);
  EXPECT_EQ(f.m->parse_target("device")->slot, -1);
  EXPECT_EQ(f.m->parse_target("hot")->tier, key_tier::hot);
  const auto bad = f.m->parse_target("device:7");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("device:1#1"), std::string::npos) << bad.error().to_string();

  ASSERT_TRUE(f.m->preload("a", key_tier::device).is_ok());  // every slot
  EXPECT_EQ(f.entry("a").tier_name, "device:0,device:1,device:1#1");
  EXPECT_EQ(f.entry("a").users, 0u);
  ASSERT_TRUE(f.m->preload("b", *t).is_ok());  // one slot
  EXPECT_EQ(f.entry("b").tier_name, "device:1#1");
  EXPECT_EQ(f.up->count(), 4u);
  ASSERT_TRUE(f.m->preload("a", key_tier::device).is_ok());  // already there: no upload
  EXPECT_EQ(f.up->count(), 4u);

  ASSERT_TRUE(f.m->evict("a", tier_target(key_tier::device, 1)).is_ok());
  EXPECT_EQ(f.entry("a").tier_name, "device:0,device:1#1");
  {
    auto l = f.m->acquire("a", nullptr, nullptr, 2).value();
    EXPECT_FALSE(f.m->evict("a", tier_target(key_tier::device, 2)).is_ok());
    EXPECT_TRUE(f.m->evict("a", tier_target(key_tier::device, 0)).is_ok());  // not the one in use
    EXPECT_FALSE(f.m->evict("a", key_tier::warm).is_ok());
  }
  ASSERT_TRUE(f.m->evict("a", key_tier::warm).is_ok());  // below the device tier: copies go
  EXPECT_EQ(f.entry("a").tier_name, "warm");
  EXPECT_EQ(f.entry("a").device_bytes, 0u);
  ASSERT_TRUE(f.m->evict("b", key_tier::cold).is_ok());
  EXPECT_EQ(f.entry("b").tier_name, "cold");
  EXPECT_EQ(f.m->slots()[2].used, 0u);
}

TEST(device_key_tier, a_key_leaving_the_host_loses_its_device_copies_but_hot_to_warm_keeps_them) {
  const auto sum = read_key_summary(small_bn).value();
  auto probe = loaded_key::load_warm(small_bn, sum, point_check::skip).value();
  const uint64_t warm = probe->resident_bytes(), hot = probe->hot_bytes();
  // Room for two warm keys and one hot key.
  fixture f(1000, {0}, tier_budgets{.hot = hot + hot / 2, .warm = 2 * warm + warm / 2});
  ASSERT_TRUE(f.m->add("d", small_bn, sum).is_ok());
  ASSERT_TRUE(f.m->preload("a", key_tier::hot).is_ok());
  ASSERT_TRUE(f.m->preload("a", key_tier::device).is_ok());
  EXPECT_EQ(f.entry("a").host_tier_name, "hot(pageable)");
  ASSERT_TRUE(f.m->preload("b", key_tier::hot).is_ok());  // a: hot -> warm, keeps its copy
  EXPECT_EQ(f.entry("a").host_tier_name, "warm");
  EXPECT_EQ(f.entry("b").host_tier_name, "hot(pageable)");
  EXPECT_TRUE(f.on("a", "device:0"));
  ASSERT_TRUE(f.m->acquire("c").is_ok());
  ASSERT_TRUE(f.m->acquire("d").is_ok());  // the warm tier is full: a (oldest) goes cold, off the device
  EXPECT_EQ(f.entry("a").tier, key_tier::cold);
  EXPECT_FALSE(f.on("a", "device:0"));
  EXPECT_EQ(f.m->slots()[0].used, 0u);
}

// The hot tier's promotion never evicts the key being promoted (it used to, and then copied a
// key that was no longer there).
TEST(device_key_tier, promoting_a_key_to_hot_never_evicts_that_key) {
  const auto sum = read_key_summary(small_bn).value();
  auto probe = loaded_key::load_warm(small_bn, sum, point_check::skip).value();
  const uint64_t warm = probe->resident_bytes(), hot = probe->hot_bytes();
  // The warm tier holds b (loading on its way to hot) but not b and a's copy besides.
  fixture f(1000, {0}, tier_budgets{.hot = hot + hot / 2, .warm = warm + hot / 2});
  ASSERT_TRUE(f.m->preload("a", key_tier::hot).is_ok());
  ASSERT_TRUE(f.m->preload("b", key_tier::hot).is_ok());  // a has no warm room: it goes cold
  EXPECT_EQ(f.entry("b").host_tier_name, "hot(pageable)");
  EXPECT_EQ(f.entry("a").tier, key_tier::cold);
}

TEST(device_key_tier, without_slots_there_is_no_device_tier) {
  pageable_allocator alloc;
  key_manager m({}, alloc, point_check::skip);
  ASSERT_TRUE(m.add("a", small_bn, read_key_summary(small_bn).value()).is_ok());
  EXPECT_EQ(m.preload("a", key_tier::device).code(), errc::unsupported);
  EXPECT_FALSE(m.acquire("a", nullptr, nullptr, 0).is_ok());  // no slot 0
  EXPECT_TRUE(m.slots().empty());
  EXPECT_FALSE(m.parse_target("device:0").is_ok());
}

// ---- device memory budgets

constexpr uint64_t big = uint64_t{1} << 40;

TEST(key_device_budget, a_copy_holds_its_measured_bytes_in_its_devices_budget) {
  memory_budgets mem(big, {{0, 1000}, {1, 1000}});
  fixture f(1000, {0, 1}, {}, &mem);
  f.up->estimate = 100;
  f.up->measured = 120;
  auto l = f.m->acquire("a", nullptr, nullptr, 0).value();
  ASSERT_NE(l.on_device(), nullptr);
  EXPECT_EQ(mem.device(0)->used(), 120u);  // the estimate reserved, then the measured size
  EXPECT_EQ(mem.device(1)->used(), 0u);
  f.up->measured = 80;
  ASSERT_TRUE(f.m->preload("a", tier_target(key_tier::device, 1)).is_ok());
  EXPECT_EQ(mem.device(1)->used(), 80u);  // the surplus of the estimate returned
  l.release();
  ASSERT_TRUE(f.m->evict("a", tier_target(key_tier::device, 0)).is_ok());
  EXPECT_EQ(mem.device(0)->used(), 0u);
  ASSERT_TRUE(f.m->evict("a", key_tier::cold).is_ok());  // off the host: every copy goes
  EXPECT_EQ(mem.device(1)->used(), 0u);
}

TEST(key_device_budget, the_slots_of_one_device_share_its_budget) {
  memory_budgets mem(big, {{0, 250}});
  fixture f(1000, {0, 0}, {}, &mem);  // two slots on device 0, each with a large key budget
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("b", nullptr, nullptr, 1).is_ok());
  EXPECT_EQ(mem.device(0)->used(), 200u);
  ASSERT_TRUE(f.m->acquire("c", nullptr, nullptr, 1).is_ok());  // room made on either slot
  EXPECT_FALSE(f.on("a", "device:0"));                          // the least recently used
  EXPECT_TRUE(f.on("b", "device:0#1"));
  EXPECT_TRUE(f.on("c", "device:0#1"));
  EXPECT_EQ(mem.device(0)->used(), 200u);
}

TEST(key_device_budget, unused_copies_make_room_for_other_work_on_the_device_least_recent_first) {
  memory_budgets mem(big, {{0, 300}, {1, 300}});
  fixture f(1000, {0, 1}, {}, &mem);
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("b", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->acquire("c", nullptr, nullptr, 1).is_ok());
  // A worker's buffers: 150 more on device 0 push out a (least recent), not b, not device 1's c.
  auto buffers = mem.device(0)->acquire(150, {nullptr, 0ms, "buffers", true, nullptr});
  ASSERT_TRUE(buffers.is_ok()) << buffers.error().to_string();
  EXPECT_FALSE(f.on("a", "device:0"));
  EXPECT_TRUE(f.on("b", "device:0"));
  EXPECT_TRUE(f.on("c", "device:1"));
  EXPECT_EQ(f.entry("a").tier, key_tier::warm);  // it left the device only
  // A copy in use stays: with b leased nothing more can be freed.
  auto lb = f.m->acquire("b", nullptr, nullptr, 0).value();
  refusal why = refusal::none;
  auto more = mem.device(0)->acquire(100, {nullptr, 0ms, "more buffers", true, &why});
  EXPECT_FALSE(more.is_ok());
  EXPECT_EQ(why, refusal::timed_out);
  EXPECT_TRUE(f.on("b", "device:0"));
  const auto snap = mem.device(0)->snapshot();
  ASSERT_EQ(snap.evictors.size(), 1u);
  EXPECT_EQ(snap.evictors[0].name, "proving key copies");
  EXPECT_EQ(snap.evictors[0].bytes_freed, 100u);
}

TEST(key_device_budget, an_upload_waits_in_the_budgets_line_until_room_is_freed_or_it_is_cancelled) {
  memory_budgets mem(big, {{0, 150}});
  fixture f(1000, {0}, {}, &mem);
  auto held = mem.device(0)->acquire(100, {}).value();  // someone's buffers, in use
  auto waiter = std::async(std::launch::async, [&] { return f.m->acquire("a", nullptr, nullptr, 0); });
  EXPECT_EQ(waiter.wait_for(150ms), std::future_status::timeout);
  EXPECT_EQ(f.up->count(), 0u);  // nothing allocated while it waits
  held.reset();
  auto la = waiter.get();
  ASSERT_TRUE(la.is_ok()) << la.error().to_string();
  EXPECT_NE(la->on_device(), nullptr);
  EXPECT_EQ(mem.device(0)->used(), 100u);

  auto held2 = mem.device(0)->acquire(50, {}).value();
  cancel_token tok;
  auto w2 = std::async(std::launch::async, [&] { return f.m->acquire("b", &tok, nullptr, 0); });
  std::this_thread::sleep_for(50ms);
  tok.request(cancel_reason::caller);
  mem.device(0)->wake_waiters();
  auto r2 = w2.get();
  ASSERT_FALSE(r2.is_ok());
  EXPECT_EQ(r2.error().code(), errc::cancelled) << r2.error().to_string();
  EXPECT_EQ(f.up->count(), 1u);
  EXPECT_EQ(mem.device(0)->used(), 150u);
}

TEST(key_device_budget, a_key_beyond_the_budget_or_measured_beyond_its_room_has_no_copy_and_says_why) {
  memory_budgets mem(big, {{0, 150}});
  fixture f(1000, {0}, {}, &mem);
  f.up->estimate = 200;  // larger than the whole device budget: refused before uploading
  auto l = f.m->acquire("a", nullptr, nullptr, 0);
  ASSERT_TRUE(l.is_ok()) << l.error().to_string();
  EXPECT_EQ(l->on_device(), nullptr);
  EXPECT_EQ(l->device_note().code(), errc::resource_exhausted);
  EXPECT_NE(l->device_note().message().find("device0"), std::string::npos) << l->device_note().to_string();
  EXPECT_EQ(f.up->count(), 0u);
  l->release();

  auto held = mem.device(0)->acquire(40, {}).value();
  f.up->estimate = 100;  // admitted (110 free), but the copy measures 120
  f.up->measured = 120;
  auto l2 = f.m->acquire("b", nullptr, nullptr, 0);
  ASSERT_TRUE(l2.is_ok());
  EXPECT_EQ(l2->on_device(), nullptr);
  EXPECT_NE(l2->device_note().message().find("more than estimated"), std::string::npos)
      << l2->device_note().to_string();
  EXPECT_EQ(f.up->count(), 1u);
  EXPECT_EQ(mem.device(0)->used(), 40u);  // the dropped copy's reservation returned
  EXPECT_FALSE(f.on("b", "device:0"));
}

// A copy that streams points from host memory holds their pinned copies: reserved in the host
// budget on the estimate before the upload, settled to the measured size, returned with the copy;
// a host budget without room for them leaves the key without a copy, and the lease says why.
// A copy's pinned points are charged to the host budget, first in place of the key's mapped file
// (whose pages the kernel can take back), and what goes beyond the mapping from free room; the
// mapping's charge comes back to the key with the copy's end.
TEST(key_device_budget, a_copys_pinned_points_are_charged_in_place_of_the_keys_mapping) {
  const uint64_t mapped = std::filesystem::file_size(small_bn);  // the key is mapped, not copied
  memory_budgets mem(big, {{0, 1000}});
  fixture f(1000, {0}, {}, &mem);
  f.m->acquire("a", nullptr, nullptr, -1).value().release();  // the key on the host only
  const uint64_t key_on_host = mem.host().used();
  ASSERT_GE(key_on_host, mapped);

  // Pinned points smaller than the mapping: nothing more is charged.
  f.up->host_estimate = mapped - 100;
  f.up->host_measured = mapped - 200;
  {
    auto l = f.m->acquire("a", nullptr, nullptr, 0).value();
    ASSERT_NE(l.on_device(), nullptr);
    EXPECT_EQ(mem.host().used(), key_on_host);
  }
  ASSERT_TRUE(f.m->evict("a", tier_target(key_tier::device, 0)).is_ok());
  EXPECT_EQ(mem.host().used(), key_on_host) << "the mapping's charge is the key's again";

  // Pinned points beyond the mapping: only what is beyond is new.
  f.up->host_estimate = mapped + 3000;
  f.up->host_measured = mapped + 2000;
  {
    auto l = f.m->acquire("a", nullptr, nullptr, 0).value();
    ASSERT_NE(l.on_device(), nullptr);
    EXPECT_EQ(mem.host().used(), key_on_host + 2000);
  }
  ASSERT_TRUE(f.m->evict("a", tier_target(key_tier::device, 0)).is_ok());
  EXPECT_EQ(mem.host().used(), key_on_host);
  // The key leaving the host takes its copies and every charge with it.
  ASSERT_TRUE(f.m->acquire("a", nullptr, nullptr, 0).is_ok());
  ASSERT_TRUE(f.m->evict("a", key_tier::cold).is_ok());
  EXPECT_EQ(mem.host().used(), 0u);
}

// The key and its pinned points together exceed the budget, but the points beyond the mapping fit:
// the copy is made. Room short of those is refused, saying why, and nothing is left charged.
TEST(key_device_budget, pinned_points_need_room_only_beyond_the_keys_mapping) {
  const uint64_t mapped = std::filesystem::file_size(small_bn);
  uint64_t key_on_host = 0;
  {
    memory_budgets probe(big, {{0, 1000}});
    fixture f(1000, {0}, {}, &probe);
    f.m->acquire("a", nullptr, nullptr, -1).value().release();
    key_on_host = probe.host().used();
  }
  for (const uint64_t room : {uint64_t{1000}, uint64_t{3000}}) {
    memory_budgets tight(uint64_t{1} << 20, {{0, 1000}});
    fixture f(1000, {0}, {}, &tight);
    f.up->host_estimate = mapped + 2000;
    f.up->host_measured = mapped + 2000;
    f.m->acquire("a", nullptr, nullptr, -1).value().release();
    ASSERT_EQ(tight.host().used(), key_on_host);
    auto filler = tight.host().acquire(tight.host().limit() - key_on_host - room, {}).value();
    auto l = f.m->acquire("a", nullptr, nullptr, 0);
    ASSERT_TRUE(l.is_ok()) << l.error().to_string();
    if (room < 2000) {
      EXPECT_EQ(l->on_device(), nullptr);
      EXPECT_EQ(l->device_note().code(), errc::resource_exhausted) << l->device_note().to_string();
      EXPECT_NE(l->device_note().message().find("pinned points"), std::string::npos) << l->device_note().to_string();
      EXPECT_EQ(f.up->count(), 0u);
      EXPECT_EQ(tight.host().used(), key_on_host + filler.bytes()) << "the lent charge went back to the key";
    } else {
      EXPECT_NE(l->on_device(), nullptr) << l->device_note().to_string();
      EXPECT_EQ(tight.host().used(), key_on_host + filler.bytes() + 2000);
      EXPECT_LT(room, mapped + 2000) << "charged beside the mapping, the points would not have fit";
    }
  }
}

}  // namespace
}  // namespace cuzk::engine
