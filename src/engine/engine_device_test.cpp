// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine with a device backend stood in by a fake (no GPU): two slots of two workers each, as
// two GPUs would be. Each proof reaches the backend on its worker's slot with the key's copy on
// that slot; the key is uploaded once per slot; the GPU phase times flow into results, the log,
// the histograms and the snapshot; a key that does not fit a slot's budget is proved without a
// copy; preload/evict reach one slot by name; a device preload makes the pinned staging of the
// workers proving there. The oracle is the fake's record of every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "engine/backends/backend_select.hpp"
#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

class slot_key final : public device_key {
 public:
  explicit slot_key(int s) : slot(s) {}
  uint64_t bytes() const noexcept override { return 1000; }
  const int slot;
};

class slot_uploader final : public device_uploader {
 public:
  uint64_t estimate_bytes(const loaded_key&, uint64_t) const override { return 1000; }
  result<std::shared_ptr<const device_key>> upload(const loaded_key&, int slot, const device_slot&) override {
    std::lock_guard lk(m);
    ++uploads[slot];
    return std::shared_ptr<const device_key>(std::make_shared<slot_key>(slot));
  }
  std::mutex m;
  std::map<int, int> uploads;
};

// Records each call, sleeps a little (so jobs spread over the workers) and reports GPU phases.
class fake_device_backend final : public prover_backend {
 public:
  struct call_record {
    int worker, slot, key_slot;  // key_slot: the slot the key copy was made for (-1: none)
  };
  const char* name() const noexcept override { return "fake-gpu"; }
  std::vector<int> worker_slots() const override { return {0, 1, 0, 1}; }
  // A proof's pinned staging, as the GPU backend's would be (its witness and a | b | c).
  proof_memory memory_per_proof(const key_summary&) const override {
    return {2 * staging_bytes, staging_bytes};
  }
  uint64_t staging_bytes = uint64_t{1} << 20;
  bool lease_staging = false;
  result<any_proof> prove(const prove_call& c, const any_witness&, const cancel_token&,
                          prove_report& r) override {
    {
      std::lock_guard lk(m);
      calls.push_back({c.worker, c.slot, c.on_device ? static_cast<const slot_key*>(c.on_device)->slot : -1});
    }
    // Staging from the pool as the GPU backend takes it (take_staging), held while it proves.
    pinned_lease staging;
    if (lease_staging && c.pinned != nullptr) {
      auto l = c.pinned->acquire(std::string(c.circuit), staging_bytes, c.working_set);
      if (!l) return l.error();
      staging = std::move(l).value();
    }
    std::this_thread::sleep_for(10ms);
    groth16::phase_timings& t = r.phases;
    t.synthesis = 0.002;
    t.total = 0.010;  // 8 ms after synthesis
    if (c.on_device) {
      t.h2d = 0.001;
      t.h2d_bytes = 50e6;  // 50 GB/s
      t.ntt = 0.0005;
      t.msm_a = t.msm_b1 = t.msm_c = t.msm_h = 0.001;
      t.msm_b2 = 0.003;
      t.assembly = 0.0002;
      t.lock_wait = 0.0001;
      t.lock_held = 0.007;
      r.ran_on = c.slot == 0 ? "device:0" : "device:1";
    }
    return any_proof(formats::proof<bn254>{bn254_g1::generator, bn254_g2::generator, bn254_g1::generator});
  }
  std::vector<device_activity> activity() const override {
    return {{"device:0", 0, "fake", 1, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, ""},
            {"device:1", 1, "fake", 2, 0, 0.25, 0, 0, 0, 0, 0, 0, 0, ""}};
  }
  std::mutex m;
  std::vector<call_record> calls;
};

struct device_harness {
  std::unique_ptr<engine> eng;
  fake_device_backend* backend = nullptr;
  std::shared_ptr<slot_uploader> up = std::make_shared<slot_uploader>();
  std::shared_ptr<std::vector<std::string>> log_lines = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<std::mutex> log_m = std::make_shared<std::mutex>();

  explicit device_harness(uint64_t slot_budget = 10000) {
    engine_options o;
    o.verify_proofs = false;
    o.spool_dir = temp_dir("device-spool");
    o.log = [lines = log_lines, m = log_m](log_level, const std::string& l) {
      std::lock_guard lk(*m);
      lines->push_back(l);
    };
    auto b = std::make_unique<fake_device_backend>();
    backend = b.get();
    engine_parts parts;
    parts.backend = std::move(b);
    // Each device's memory budget holds the key copies (and would hold a real backend's buffers).
    parts.devices = {make_device_slots({0, 1}, slot_budget), up, {{0, 50000}, {1, 50000}}};
    auto e = engine::create(std::move(o), std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    eng = std::move(e).value();
    EXPECT_TRUE(eng->register_circuit("small", small_zkey).is_ok());
  }
  std::string log_with(const std::string& needle) {
    std::lock_guard lk(*log_m);
    for (const auto& l : *log_lines)
      if (l.find(needle) != std::string::npos) return l;
    return {};
  }
};

TEST(engine_device, every_call_runs_on_its_workers_slot_with_that_slots_copy) {
  device_harness h;
  std::vector<job_id> ids;
  for (int i = 0; i < 24; ++i) ids.push_back(h.eng->submit(request("small")).value());
  for (job_id id : ids) {
    const auto r = h.eng->await(id, 20s).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    EXPECT_TRUE(r.ran_on == "device:0" || r.ran_on == "device:1") << r.ran_on;
    EXPECT_DOUBLE_EQ(r.h2d_bytes, 50e6);
    EXPECT_DOUBLE_EQ(r.times[phase::msm_b2], 0.003);
    EXPECT_DOUBLE_EQ(r.times[phase::gpu_busy], 0.007);
  }
  std::set<int> slots_used, workers_used;
  {
    std::lock_guard lk(h.backend->m);
    ASSERT_EQ(h.backend->calls.size(), 24u);
    for (const auto& c : h.backend->calls) {
      EXPECT_EQ(c.slot, c.worker % 2) << "worker " << c.worker;  // worker_slots() = {0, 1, 0, 1}
      EXPECT_EQ(c.key_slot, c.slot) << "worker " << c.worker;
      slots_used.insert(c.slot);
      workers_used.insert(c.worker);
    }
  }
  EXPECT_EQ(slots_used.size(), 2u);
  EXPECT_GE(workers_used.size(), 2u);
  {
    std::lock_guard lk(h.up->m);
    EXPECT_EQ(h.up->uploads[0], 1);  // once per slot, then reused
    EXPECT_EQ(h.up->uploads[1], 1);
  }
  const auto s = h.eng->snapshot();
  EXPECT_EQ(s.backend, "fake-gpu");
  ASSERT_EQ(s.workers.size(), 4u);
  EXPECT_EQ(s.workers[0].device, "device:0");
  EXPECT_EQ(s.workers[3].device, "device:1");
  ASSERT_EQ(s.keys.size(), 1u);
  EXPECT_EQ(s.keys[0].tier_name, "device:0,device:1");
  EXPECT_EQ(s.keys[0].host_tier_name, "warm");
  EXPECT_EQ(s.keys[0].device_bytes, 2000u);
  ASSERT_EQ(s.device_tiers.size(), 2u);
  EXPECT_EQ(s.device_tiers[1].used, 1000u);
  // The host budget, then one per device, each holding that device's key copy.
  ASSERT_EQ(s.memory_budgets.size(), 3u);
  EXPECT_EQ(s.memory_budgets[1].name, "device0");
  EXPECT_EQ(s.memory_budgets[1].limit, 50000u);
  EXPECT_EQ(s.memory_budgets[1].used, 1000u);
  EXPECT_EQ(s.memory_budgets[2].used, 1000u);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[1].proofs, 2u);
  const auto& hist = s.counters.circuits.at("small").phases;
  EXPECT_EQ(hist[static_cast<int>(phase::msm_h)].count, 24u);
  EXPECT_EQ(hist[static_cast<int>(phase::h2d)].count, 24u);
  const std::string line = h.log_with("job ended id=" + std::to_string(ids[0]));
  EXPECT_NE(line.find("ran_on=device:"), std::string::npos) << line;
  EXPECT_NE(line.find("msm_b2_s=0.003"), std::string::npos) << line;
  EXPECT_NE(line.find("h2d_gb_per_s=50.0"), std::string::npos) << line;
}

TEST(engine_device, jobs_go_to_the_workers_of_the_slot_that_holds_the_key) {
  // The key preloaded on device:1 only. Jobs submitted one at a time find every worker idle, so
  // each must run on a worker of slot 1 (there is always one idle: two per slot), and slot 0 never
  // uploads the key.
  device_harness h;
  ASSERT_TRUE(h.eng->preload("small", h.eng->parse_tier("device:1").value()).is_ok());
  for (int i = 0; i < 12; ++i) {
    // A job's result can be awaited before its worker is back in the scheduler's wait; on a loaded
    // machine both of slot 1's may still be on their way there, and the job would go to slot 0.
    const auto until = std::chrono::steady_clock::now() + 10s;
    for (;;) {
      const auto workers = h.eng->snapshot().workers;
      if (std::none_of(workers.begin(), workers.end(), [](const worker_status& w) { return w.busy; })) break;
      ASSERT_LT(std::chrono::steady_clock::now(), until) << "a worker stayed busy";
      std::this_thread::sleep_for(1ms);
    }
    std::this_thread::sleep_for(5ms);  // from the end of its job back into the wait
    const auto r = h.eng->await(h.eng->submit(request("small")).value(), 20s).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    EXPECT_EQ(r.ran_on, "device:1") << "job " << i;
  }
  {
    std::lock_guard lk(h.backend->m);
    for (const auto& c : h.backend->calls) EXPECT_EQ(c.slot, 1) << "worker " << c.worker;
  }
  {
    std::lock_guard lk(h.up->m);
    EXPECT_EQ(h.up->uploads[0], 0);
    EXPECT_EQ(h.up->uploads[1], 1);
  }
}

TEST(engine_device, a_key_over_the_slot_budget_is_proved_without_a_copy_and_logged) {
  device_harness h(500);  // the fake's keys take 1000 bytes
  const auto r = h.eng->await(h.eng->submit(request("small")).value(), 20s).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  EXPECT_EQ(r.ran_on, "cpu");
  EXPECT_EQ(r.h2d_bytes, 0.0);
  {
    std::lock_guard lk(h.backend->m);
    ASSERT_EQ(h.backend->calls.size(), 1u);
    EXPECT_EQ(h.backend->calls[0].key_slot, -1);
  }
  const std::string warn = h.log_with("proving on the CPU");
  EXPECT_NE(warn.find("budget of 500"), std::string::npos) << warn;
  EXPECT_EQ(h.eng->snapshot().counters.circuits.at("small").phases[static_cast<int>(phase::msm_h)].count, 0u);
}

TEST(engine_device, preload_and_evict_by_slot_name) {
  device_harness h;
  const auto t = h.eng->parse_tier("device:1");
  ASSERT_TRUE(t.is_ok()) << t.error().to_string();
  ASSERT_TRUE(h.eng->preload("small", *t).is_ok());
  EXPECT_EQ(h.eng->snapshot().keys.at(0).tier_name, "device:1");
  ASSERT_TRUE(h.eng->preload("small", key_tier::device).is_ok());
  EXPECT_EQ(h.eng->snapshot().keys.at(0).tier_name, "device:0,device:1");
  ASSERT_TRUE(h.eng->evict("small", h.eng->parse_tier("device:0").value()).is_ok());
  EXPECT_EQ(h.eng->snapshot().keys.at(0).tier_name, "device:1");
  ASSERT_TRUE(h.eng->evict("small", key_tier::warm).is_ok());
  EXPECT_EQ(h.eng->snapshot().keys.at(0).tier_name, "warm");
  EXPECT_FALSE(h.eng->parse_tier("device:2").is_ok());
  const auto up = h.log_with("key preloaded circuit=small");
  EXPECT_NE(up.find("tier=device:1"), std::string::npos) << up;
}

TEST(engine_device, a_backend_whose_workers_name_missing_slots_is_refused) {
  engine_options o;
  o.spool_dir = temp_dir("device-bad");
  engine_parts parts;
  parts.backend = std::make_unique<fake_device_backend>();  // slots 0 and 1
  parts.devices = {make_device_slots({0}, 1000), std::make_shared<slot_uploader>(), {}};
  auto e = engine::create(std::move(o), std::move(parts));
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message().find("serves slot 1"), std::string::npos) << e.error().to_string();
}

TEST(engine_backend, cpu_by_default_and_gpu_only_where_a_device_answers) {
  engine_options o;
  auto cpu = select_backend(o.backend, o.gpu, o.workers);
  ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
  EXPECT_STREQ(cpu->backend->name(), "cpu");
  EXPECT_TRUE(cpu->devices.slots.empty());
  EXPECT_EQ(groth16::prover_kind_name(groth16::prover_kind::automatic), std::string("auto"));
  // Without CUDA in the build, "gpu" is an error and "auto" says why it took the CPU. (With
  // CUDA, engine_gpu_tests covers both on a machine with and without a device.)
  if (!gpu_backend_built()) {
    o.backend = groth16::prover_kind::gpu;
    auto gpu = select_backend(o.backend, o.gpu, o.workers);
    ASSERT_FALSE(gpu.is_ok());
    EXPECT_EQ(gpu.error().code(), errc::unsupported);
    o.backend = groth16::prover_kind::automatic;
    auto a = select_backend(o.backend, o.gpu, o.workers);
    ASSERT_TRUE(a.is_ok());
    EXPECT_STREQ(a->backend->name(), "cpu");
    EXPECT_NE(a->note.find("no CUDA backend"), std::string::npos) << a->note;
  }
}

TEST(engine_device, a_device_preload_makes_the_pinned_staging_of_the_workers_proving_there) {
  device_harness h;
  ASSERT_TRUE(h.eng->preload("small", h.eng->parse_tier("device:0").value()).is_ok());
  auto pool = h.eng->snapshot().pinned_pool;
  EXPECT_EQ(pool.buffers, 2u);  // workers 0 and 2 prove on device:0
  EXPECT_EQ(pool.idle, 2u);
  EXPECT_EQ(pool.bytes, 2 * h.backend->staging_bytes);
  EXPECT_NE(h.log_with("engine: pinned staging ready circuit=small buffers=2 bytes=1048576"), "");
  // Then device:1: the key is on both slots, so its four workers prove it at once; the two
  // buffers already made count, two more are made.
  ASSERT_TRUE(h.eng->preload("small", h.eng->parse_tier("device:1").value()).is_ok());
  pool = h.eng->snapshot().pinned_pool;
  EXPECT_EQ(pool.buffers, 4u);
  EXPECT_EQ(pool.allocations, 4u);
  EXPECT_NE(h.log_with("engine: pinned staging ready circuit=small buffers=4"), "");
  // Every device again: nothing more.
  ASSERT_TRUE(h.eng->preload("small", key_tier::device).is_ok());
  EXPECT_EQ(h.eng->snapshot().pinned_pool.allocations, 4u);
  // The jobs take the buffers made: none is allocated on their path.
  h.backend->lease_staging = true;
  std::vector<job_id> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(h.eng->submit(request("small")).value());
  for (job_id id : ids) ASSERT_EQ(h.eng->await(id, 20s).value().state, job_state::done);
  pool = h.eng->snapshot().pinned_pool;
  EXPECT_EQ(pool.acquires, 8u);
  EXPECT_EQ(pool.hits, 8u);
  EXPECT_EQ(pool.allocations, 4u);
  // A preload short of the device makes none.
  device_harness warm;
  ASSERT_TRUE(warm.eng->preload("small", key_tier::warm).is_ok());
  EXPECT_EQ(warm.eng->snapshot().pinned_pool.buffers, 0u);
}

TEST(engine_device, pinned_staging_that_does_not_fit_the_host_budget_is_left_to_the_first_proof) {
  device_harness h;
  h.backend->staging_bytes = uint64_t{1} << 50;  // beyond any machine's budget
  ASSERT_TRUE(h.eng->preload("small", h.eng->parse_tier("device:1").value()).is_ok());
  EXPECT_EQ(h.eng->snapshot().pinned_pool.buffers, 0u);
  const std::string warn = h.log_with("engine: pinned staging not made at preload circuit=small buffers=2");
  EXPECT_NE(warn, "");
  EXPECT_NE(warn.find("pinned pool: prewarm of circuit small"), std::string::npos) << warn;
}

}  // namespace
}  // namespace cuzk::engine
