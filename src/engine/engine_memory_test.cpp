// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine under a host memory budget: each job reserves its proof's working set (and its key's
// load) in dispatch order before it runs, so how many proofs run at once follows from the budget
// and not from the worker count; a job larger than the whole budget fails with a message naming
// the budget; a job waiting for memory leaves at once when cancelled or when the engine drains;
// an unused key is moved out for a job that needs its room. The oracle is a backend that counts
// the proofs inside it at once and says each proof needs 1 MiB (so the keys, a few KiB, are small
// beside it).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"
#include "engine/jobs/memory_job_store.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

// Sleeps in prove() (until released, when gated) and records the most proofs inside at once.
class counting_backend final : public prover_backend {
 public:
  explicit counting_backend(bool gated = false) : gated_(gated) {}
  const char* name() const noexcept override { return "counting"; }
  result<any_proof> prove(const prove_call&, const any_witness&, const cancel_token&, prove_report&) override {
    const int now = ++inside;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    ++calls;
    if (gated_)
      while (!released.load()) std::this_thread::sleep_for(1ms);
    else
      std::this_thread::sleep_for(20ms);
    --inside;
    return any_proof(formats::proof<bn254>{bn254_g1::generator, bn254_g2::generator, bn254_g1::generator});
  }
  proof_memory memory_per_proof(const key_summary&) const override { return {uint64_t{1} << 20, 0}; }
  std::atomic<int> inside{0}, most{0}, calls{0};
  std::atomic<bool> released{false};

 private:
  const bool gated_;
};

// One proof's working set, as the backend declares it.
constexpr uint64_t one_proof() { return uint64_t{1} << 20; }

// What admission adds for a key that is not resident (key_manager::load_estimate).
uint64_t key_estimate(const std::string& zkey) {
  const auto k = read_key_summary(zkey);
  EXPECT_TRUE(k.is_ok());
  return 2 * k->file_bytes + 16 * (uint64_t{k->domain_size} + 1);
}

struct harness {
  std::unique_ptr<engine> eng;
  counting_backend* backend = nullptr;
  std::shared_ptr<memory_job_store> store = std::make_shared<memory_job_store>();
};

harness make(uint64_t budget, unsigned workers, bool gated = false) {
  harness h;
  engine_options o;
  o.verify_proofs = false;
  o.workers = workers;
  o.host_memory_budget = budget;
  o.spool_dir = temp_dir("memory-spool");
  auto b = std::make_unique<counting_backend>(gated);
  h.backend = b.get();
  engine_parts parts;
  parts.backend = std::move(b);
  parts.store = h.store;
  auto e = engine::create(std::move(o), std::move(parts));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  h.eng = std::move(e).value();
  EXPECT_TRUE(h.eng->register_circuit("small", small_zkey).is_ok());
  return h;
}

std::vector<job_result> run_jobs(harness& h, int count) {
  std::vector<job_id> ids;
  for (int i = 0; i < count; ++i) ids.push_back(h.eng->submit(request("small")).value());
  std::vector<job_result> out;
  for (job_id id : ids) {
    out.push_back(h.eng->await(id, 20s).value());
    EXPECT_EQ(out.back().state, job_state::done) << out.back().error.to_string();
  }
  return out;
}

TEST(engine_memory, the_budget_not_the_worker_count_bounds_the_proofs_in_flight) {
  const uint64_t need = one_proof();
  ASSERT_GT(need, 0u);
  ASSERT_LT(key_estimate(small_zkey), need / 2);
  {
    const uint64_t limit = need + need / 2;  // room for one proof (and the key), four workers
    auto h = make(limit, 4);
    const auto results = run_jobs(h, 8);
    EXPECT_EQ(h.backend->most.load(), 1);
    // The wait for memory is reported per job, as a part of its queue wait.
    double waited = 0;
    for (const auto& r : results) {
      EXPECT_LE(r.times[phase::reservation_wait], r.times[phase::queue_wait]);
      waited += r.times[phase::reservation_wait];
    }
    EXPECT_GT(waited, 0.0);
    const auto b = h.eng->snapshot().memory_budgets.at(0);
    EXPECT_EQ(b.name, "host");
    EXPECT_EQ(b.limit, limit);
    EXPECT_LE(b.peak, limit);
    EXPECT_GE(b.granted, 8u);
    EXPECT_GT(b.waited, 0u);  // eight jobs, four workers, room for one: some waited
  }
  {
    const uint64_t limit = 2 * need + need / 2;  // room for two
    auto h = make(limit, 4);
    run_jobs(h, 12);
    EXPECT_EQ(h.backend->most.load(), 2);
    EXPECT_LE(h.eng->snapshot().memory_budgets.at(0).peak, limit);
  }
}

TEST(engine_memory, a_job_larger_than_the_budget_fails_naming_the_budget) {
  const uint64_t need = one_proof();
  auto h = make(need, 2);  // the proof alone fits; with its key's load it does not
  const auto r = h.eng->await(h.eng->submit(request("small")).value(), 20s).value();
  ASSERT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::resource_exhausted);
  EXPECT_NE(r.error.message().find("host"), std::string::npos) << r.error.to_string();
  EXPECT_NE(r.error.message().find("working set"), std::string::npos) << r.error.to_string();
  EXPECT_EQ(h.backend->calls.load(), 0);
  EXPECT_EQ(h.eng->snapshot().memory_budgets.at(0).refused_too_large, 1u);
}

TEST(engine_memory, a_job_waiting_for_memory_leaves_at_once_when_cancelled) {
  const uint64_t need = one_proof();
  auto h = make(need + need / 2, 2, /*gated=*/true);
  const job_id first = h.eng->submit(request("small")).value();
  for (int i = 0; i < 2000 && h.backend->calls.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(h.backend->calls.load(), 1);
  const job_id second = h.eng->submit(request("small")).value();
  for (int i = 0; i < 2000 && h.eng->snapshot().memory_budgets.at(0).waiting == 0; ++i)
    std::this_thread::sleep_for(1ms);
  ASSERT_EQ(h.eng->snapshot().memory_budgets.at(0).waiting, 1u);

  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(h.eng->cancel(second).is_ok());
  const auto r = h.eng->await(second, 5s).value();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(r.state, job_state::cancelled);
  EXPECT_EQ(r.error.code(), errc::cancelled);

  h.backend->released = true;
  EXPECT_EQ(h.eng->await(first, 20s).value().state, job_state::done);
  EXPECT_EQ(h.backend->calls.load(), 1);  // the cancelled job never reached the backend
}

TEST(engine_memory, drain_returns_a_job_waiting_for_memory_to_the_queue) {
  const uint64_t need = one_proof();
  auto h = make(need + need / 2, 2, /*gated=*/true);
  const job_id first = h.eng->submit(request("small")).value();
  for (int i = 0; i < 2000 && h.backend->calls.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  const job_id second = h.eng->submit(request("small")).value();
  for (int i = 0; i < 2000 && h.eng->snapshot().memory_budgets.at(0).waiting == 0; ++i)
    std::this_thread::sleep_for(1ms);
  ASSERT_EQ(h.eng->snapshot().memory_budgets.at(0).waiting, 1u);

  std::thread release([&] {
    std::this_thread::sleep_for(100ms);
    h.backend->released = true;  // the running proof ends; its job finishes or goes back
  });
  h.eng->drain(0ms);
  release.join();
  auto left = h.store->unfinished().value();
  std::vector<job_id> ids;
  for (const auto& rec : left) ids.push_back(rec.info.id);
  EXPECT_NE(std::find(ids.begin(), ids.end(), second), ids.end()) << "the waiting job must stay queued";
  EXPECT_EQ(h.backend->calls.load(), 1);
  (void)first;
}

TEST(engine_memory, a_key_holds_its_bytes_in_the_budget_and_an_unused_one_moves_out_for_a_job) {
  // Room for one proof, the small key's load and half the Poseidon key's: with Poseidon loaded
  // (and unused) the job does not fit until the budget's evictor takes Poseidon's key cold.
  const uint64_t limit = one_proof() + key_estimate(small_zkey) + key_estimate(poseidon_zkey) / 2;
  auto h = make(limit, 1);
  ASSERT_TRUE(h.eng->register_circuit("poseidon", poseidon_zkey).is_ok());
  ASSERT_TRUE(h.eng->preload("poseidon", key_tier::warm).is_ok());
  uint64_t poseidon_bytes = 0;
  for (const auto& k : h.eng->snapshot().keys)
    if (k.circuit == "poseidon") poseidon_bytes = k.mapped_bytes + k.owned_bytes;
  ASSERT_GT(poseidon_bytes, key_estimate(poseidon_zkey) / 2);
  EXPECT_EQ(h.eng->snapshot().memory_budgets.at(0).used, poseidon_bytes);  // the key's own bytes

  const auto r = h.eng->await(h.eng->submit(request("small")).value(), 20s).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  const auto s = h.eng->snapshot();
  for (const auto& k : s.keys) {
    if (k.circuit == "poseidon") {
      EXPECT_EQ(k.host_tier_name, "cold");
    } else {
      EXPECT_EQ(k.host_tier_name, "warm");
    }
  }
  const auto& b = s.memory_budgets.at(0);
  // The pinned pool first, then the witnesses computed ahead, then the keys.
  ASSERT_EQ(b.evictors.size(), 3u);
  EXPECT_EQ(b.evictors[1].name, "witnesses computed ahead");
  EXPECT_EQ(b.evictors[2].name, "proving keys");
  EXPECT_GE(b.evictors[2].bytes_freed, poseidon_bytes);
  EXPECT_LE(b.peak, limit);
}

// docs/HARDENING.md, finding 33: a job whose key is resident is admitted without its load, so its
// admission's wait leaves that key resident. Here another circuit's job proves and holds the room
// the job needs; the admission's eviction round finds only the job's own key unused. Moved out,
// the key would load again after admission with room the job never asked for (here the room the
// first job gives back holds it; where nothing does, the job waits for the load's 60 s limit and
// fails, as engine_input_json.the_witness_threads_start_no_calculation_the_spare_room_cannot_hold
// did).
TEST(engine_memory, a_jobs_admission_leaves_its_resident_key_where_it_is) {
  auto probe = make(uint64_t{1} << 30, 1);
  ASSERT_TRUE(probe.eng->register_circuit("poseidon", poseidon_zkey).is_ok());
  ASSERT_TRUE(probe.eng->preload("poseidon", key_tier::warm).is_ok());
  ASSERT_TRUE(probe.eng->preload("small", key_tier::warm).is_ok());
  const uint64_t keys_held = probe.eng->snapshot().memory_budgets.at(0).used;
  probe.eng.reset();

  // Room for both keys and one proof: the second job waits for the first's working set.
  auto h = make(keys_held + one_proof(), 2, /*gated=*/true);
  ASSERT_TRUE(h.eng->register_circuit("poseidon", poseidon_zkey).is_ok());
  ASSERT_TRUE(h.eng->preload("poseidon", key_tier::warm).is_ok());
  ASSERT_TRUE(h.eng->preload("small", key_tier::warm).is_ok());
  ASSERT_EQ(h.eng->snapshot().memory_budgets.at(0).used, keys_held);
  const job_id first = h.eng->submit(request("poseidon", 1, std::nullopt, poseidon_wtns)).value();
  for (int i = 0; i < 2000 && h.backend->calls.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(h.backend->calls.load(), 1);
  const job_id second = h.eng->submit(request("small")).value();
  // The second job's admission is in line and has asked the evictors (the keys are asked last).
  auto keys_asked = [&] {
    const auto b = h.eng->snapshot().memory_budgets.at(0);
    return b.waiting == 1 && b.evictors.size() == 3 && b.evictors[2].calls > 0;
  };
  for (int i = 0; i < 2000 && !keys_asked(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(keys_asked());
  for (const auto& k : h.eng->snapshot().keys) EXPECT_EQ(k.host_tier_name, "warm") << k.circuit;

  h.backend->released = true;
  EXPECT_EQ(h.eng->await(first, 20s).value().state, job_state::done);
  const auto r = h.eng->await(second, 20s).value();
  EXPECT_EQ(r.state, job_state::done) << r.error.to_string();
  const auto b = h.eng->snapshot().memory_budgets.at(0);
  EXPECT_EQ(b.evictors[2].bytes_freed, 0u) << "a key was moved out";
  EXPECT_LE(b.peak, keys_held + one_proof());
}

}  // namespace
}  // namespace cuzk::engine
