// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU backend in the engine on a real device: the snarkjs fixtures of both curves proved on the
// device by two workers sharing one key copy (synthesis on the device, and on the host into pinned
// buffers), each proof checked against snarkjs's
// verification_key.json (an oracle that shares no code with the GPU path) and its public.json;
// the key uploaded once, its device bytes what the uploader estimated to the byte (for both curves,
// synthesis on the device and on the host, resident and streamed) and all of them given back on
// eviction; no workspace allocation after
// each worker's first proof of a circuit; two slots standing for two GPUs (one ordinal twice on a
// machine with one GPU, ordinals 0 and 1 where there are two); a key over the slot budget proved by
// the CPU; the device memory budget holding exactly the key copies and the workers' buffers, and a
// budget too small for both keys at once served by evicting idle buffers and the unused key, every
// proof still on the device; a streamed key's partitions proven in batches, in order; a key budget
// above the device budget capped at it, and a key whose matrices leave a worker no room
// synthesizing on the host; the backend choice with and without a device.
// Without a CUDA device the device tests skip with a message (the choice test runs everywhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "engine/backends/backend_select.hpp"
#include "engine/backends/gpu_device_key.hpp"
#include "engine/backends/gpu_prover_backend.hpp"
#include "engine/backends/gpu_staging.hpp"
#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"
#include "engine/jobs/key_summary.hpp"
#include "engine/keys/loaded_key.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/gpu/gpu_devices.hpp"
#include "groth16/gpu/gpu_key_placement.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/synthesis_place.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

bool gpu_available() {
  auto c = groth16::choose_prover(groth16::prover_kind::automatic);
  return c.is_ok() && c->kind == groth16::prover_kind::gpu;
}

#define CUZK_REQUIRE_GPU()                                                                   \
  do {                                                                                       \
    if (!gpu_available())                                                                    \
      GTEST_SKIP() << "no usable CUDA device (" << groth16::choose_prover(groth16::prover_kind::automatic)->reason \
                   << "); the gpu tests need an NVIDIA GPU (scripts/gpu/daemon_check.sh)"; \
  } while (0)

struct fixture_files {
  std::string zkey, wtns, vk, public_json;
  formats::curve_id curve;
};

fixture_files poseidon(formats::curve_id c) {
  const std::string dir = data_dir + "/snarkjs/" + (c == formats::curve_id::bn254 ? "bn128" : "bls12381") + "/poseidon/";
  return {dir + "circuit.zkey", dir + "circuit.wtns", dir + "verification_key.json", dir + "public.json", c};
}

std::string file_text(const std::string& path) {
  auto b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

template <class C>
void expect_valid_as(const partition_proof& p, const fixture_files& f) {
  expect_valid_proof<C>(p, f.vk, file_text(f.public_json));
}

void expect_valid(const partition_proof& p, const fixture_files& f) {
  if (f.curve == formats::curve_id::bn254)
    expect_valid_as<bn254>(p, f);
  else
    expect_valid_as<bls12_381>(p, f);
}

std::unique_ptr<engine> gpu_engine(std::vector<int> devices, unsigned per_device, uint64_t key_budget = 0,
                                   uint64_t hot_budget = 0, const std::string& synthesis = "device") {
  engine_options o;
  o.spool_dir = temp_dir("gpu-spool");
  o.backend = groth16::prover_kind::gpu;
  o.gpu.devices = std::move(devices);
  o.gpu.workers_per_device = per_device;
  o.gpu.key_budget = key_budget;
  o.budgets.hot = hot_budget;
  o.gpu.synthesis = *groth16::parse_synthesis_place(synthesis);
  auto e = engine::create(std::move(o));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  return e.is_ok() ? std::move(e).value() : nullptr;
}

// The device budget of slot 0's device holds exactly its key copies and its workers' buffers, and
// never held more than its limit.
void expect_device_budget_holds_keys_and_buffers(const engine_snapshot& s) {
  ASSERT_GE(s.memory_budgets.size(), 2u);
  const auto& b = s.memory_budgets[1];
  EXPECT_EQ(b.name, "device0");
  uint64_t keys = 0;
  for (const auto& k : s.keys)
    for (const auto& d : k.devices) keys += d.bytes;
  EXPECT_EQ(b.used, keys + s.devices.at(0).workspace_device_bytes);
  EXPECT_LE(b.peak, b.limit);
}

std::size_t device_free_bytes(int device) {
  auto d = groth16::gpu_device(device);
  EXPECT_TRUE(d.is_ok()) << d.error().to_string();
  return d.is_ok() ? d->free_bytes : 0;
}

TEST(gpu_backend, the_choice_follows_the_devices) {
  engine_options o;
  o.backend = groth16::prover_kind::automatic;
  auto a = select_backend(o.backend, o.gpu, o.workers);
  ASSERT_TRUE(a.is_ok()) << a.error().to_string();
  o.backend = groth16::prover_kind::gpu;
  auto g = select_backend(o.backend, o.gpu, o.workers);
  if (gpu_available()) {
    EXPECT_STREQ(a->backend->name(), "gpu");
    EXPECT_FALSE(a->devices.slots.empty());
    EXPECT_STREQ(a->hot_allocator->kind(), "pinned");
    ASSERT_TRUE(g.is_ok()) << g.error().to_string();
    o.gpu.devices = {*groth16::gpu_device_count()};  // one past the last
    auto bad = select_backend(o.backend, o.gpu, o.workers);
    ASSERT_FALSE(bad.is_ok());
    EXPECT_NE(bad.error().message().find("visible devices"), std::string::npos) << bad.error().to_string();
  } else {
    EXPECT_STREQ(a->backend->name(), "cpu");
    EXPECT_NE(a->note.find("auto:"), std::string::npos) << a->note;
    ASSERT_FALSE(g.is_ok());
    EXPECT_EQ(g.error().code(), errc::unsupported);
  }
}

class gpu_backend_synthesis : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(places, gpu_backend_synthesis, ::testing::Values("device", "host-pinned"));

TEST_P(gpu_backend_synthesis, fixtures_of_both_curves_prove_on_the_device_and_verify) {
  CUZK_REQUIRE_GPU();
  auto e = gpu_engine({0}, 2, 0, 64 << 20, GetParam());
  ASSERT_NE(e, nullptr);
  const auto bn = poseidon(formats::curve_id::bn254), bls = poseidon(formats::curve_id::bls12_381);
  ASSERT_TRUE(e->register_circuit("bn", bn.zkey).is_ok());
  ASSERT_TRUE(e->register_circuit("bls", bls.zkey).is_ok());
  ASSERT_TRUE(e->preload("bls", key_tier::hot).is_ok());  // the host copy in pinned memory

  auto run_round = [&](int jobs) {
    std::vector<std::pair<job_id, const fixture_files*>> ids;
    for (int i = 0; i < jobs; ++i) {
      const auto& f = i % 2 == 0 ? bn : bls;
      ids.push_back({e->submit(request(i % 2 == 0 ? "bn" : "bls", 1 + i % 3, std::nullopt, f.wtns)).value(), &f});
    }
    for (const auto& [id, f] : ids) {
      const auto r = e->await(id, 60s).value();
      ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
      EXPECT_EQ(r.ran_on, "device:0");
      EXPECT_GT(r.h2d_bytes, 0.0);
      EXPECT_GT(r.times[phase::msm_h], 0.0);
      EXPECT_GT(r.times[phase::msm_b2], 0.0);
      EXPECT_GT(r.times[phase::gpu_busy], 0.0);
      for (const auto& p : r.proofs) expect_valid(p, *f);
    }
  };
  run_round(8);
  const auto first = e->snapshot();
  ASSERT_EQ(first.devices.size(), 1u);
  // The staging (witness, and a | b | c with synthesis on the host) is the engine's pinned pool's,
  // held in the host budget; the workspaces own no pinned memory.
  EXPECT_EQ(first.devices[0].workspace_pinned_bytes, 0u);
  EXPECT_EQ(first.pinned_pool.memory, "pinned");
  EXPECT_GT(first.pinned_pool.bytes, 0u);
  run_round(12);
  const auto s = e->snapshot();
  // A buffer is allocated only when no idle one fits: at most one per worker and circuit.
  EXPECT_GE(s.pinned_pool.allocations, 1u);
  EXPECT_LE(s.pinned_pool.allocations, 4u) << "the pool allocated after its buffers were warm";
  EXPECT_GT(s.pinned_pool.hits, 0u);
  EXPECT_EQ(s.pinned_pool.fallbacks, 0u);
  ASSERT_FALSE(s.memory_budgets.empty());
  EXPECT_LE(s.memory_budgets[0].peak, s.memory_budgets[0].limit);
  expect_device_budget_holds_keys_and_buffers(s);
  // Each of the two workers allocates on its first proof of each curve (one circuit per curve
  // here), whenever that comes, and never again: at most 2 x 2 over all 20 jobs.
  EXPECT_GE(s.devices[0].workspace_allocations, 1u);
  EXPECT_LE(s.devices[0].workspace_allocations, 4u) << "a workspace grew after its first proof";
  EXPECT_EQ(s.devices[0].proofs, s.counters.total.partitions_proved);
  EXPECT_EQ(s.devices[0].cpu_fallbacks, 0u);
  EXPECT_GT(s.devices[0].busy_s, 0.0);
  EXPECT_EQ(s.backend, "gpu");
  // The kernel-lock intervals the engine recorded: one to three per partition (the union of its
  // sides, H's, A, B1 and C's, and B2's where it runs beside them: one where they overlapped or
  // touched), summing to the backend's busy time (both are the same host-clock intervals, here
  // rounded to microseconds per span).
  ASSERT_EQ(s.telemetry.kernel.size(), 1u);
  EXPECT_GE(s.telemetry.kernel[0].intervals, s.devices[0].proofs);
  EXPECT_LE(s.telemetry.kernel[0].intervals, 3 * s.devices[0].proofs);
  EXPECT_NEAR(s.telemetry.kernel[0].busy_s, s.devices[0].busy_s, 1e-3);
  EXPECT_GT(s.telemetry.kernel[0].ratio, 0.0);
  EXPECT_LE(s.telemetry.kernel[0].window_ratio, 1.0);
  EXPECT_FALSE(s.devices[0].pci_bus_id.empty());
  if (s.telemetry.nvml.available) {
    EXPECT_GE(s.telemetry.nvml_index.at(0), 0) << "no NVML device at " << s.devices[0].pci_bus_id;
  }
  for (const auto& k : s.keys) {
    SCOPED_TRACE(k.circuit);
    EXPECT_EQ(k.tier_name, "device:0");
    ASSERT_EQ(k.devices.size(), 1u);
    EXPECT_EQ(k.devices[0].uploads, 1u);  // uploaded once, reused by every proof
    EXPECT_EQ(k.devices[0].users, 0u);
    EXPECT_GT(k.devices[0].bytes, 0u);
    EXPECT_TRUE(k.devices[0].last_use.has_value());
  }
  for (const auto& k : s.keys) {
    if (k.circuit == "bls") {
      EXPECT_EQ(k.host_tier_name, "hot(pinned)");
    }
  }
  std::printf("gpu_backend synthesis=%s proofs=%llu busy_s=%.3f wait_s=%.3f h2d=%.1f GB/s workspaces=%llu B pinned\n",
              GetParam(), static_cast<unsigned long long>(s.devices[0].proofs), s.devices[0].busy_s, s.devices[0].wait_s,
              s.devices[0].h2d_s > 0 ? s.devices[0].h2d_bytes / s.devices[0].h2d_s / 1e9 : 0.0,
              static_cast<unsigned long long>(s.devices[0].workspace_pinned_bytes));
}

TEST(gpu_backend, two_slots_stand_for_two_gpus) {
  CUZK_REQUIRE_GPU();
  const int count = *groth16::gpu_device_count();
  const std::vector<int> ordinals = count >= 2 ? std::vector<int>{0, 1} : std::vector<int>{0, 0};
  auto e = gpu_engine(ordinals, 2);
  ASSERT_NE(e, nullptr);
  const auto bn = poseidon(formats::curve_id::bn254);
  ASSERT_TRUE(e->register_circuit("bn", bn.zkey).is_ok());
  std::vector<job_id> ids;
  for (int i = 0; i < 24; ++i) ids.push_back(e->submit(request("bn", 1, std::nullopt, bn.wtns)).value());
  int on_second = 0;
  for (job_id id : ids) {
    const auto r = e->await(id, 60s).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    expect_valid(r.proofs.at(0), bn);
    on_second += r.ran_on != "device:0";
  }
  const auto s = e->snapshot();
  ASSERT_EQ(s.devices.size(), 2u);
  ASSERT_EQ(s.workers.size(), 4u);
  EXPECT_GT(s.devices[0].proofs, 0u);
  EXPECT_GT(s.devices[1].proofs, 0u);
  EXPECT_EQ(static_cast<uint64_t>(on_second), s.devices[1].proofs);
  EXPECT_EQ(s.devices[1].ordinal, ordinals[1]);
  ASSERT_EQ(s.keys.size(), 1u);
  EXPECT_EQ(s.keys[0].tier_name, "device:0," + s.device_tiers[1].name);
  EXPECT_GT(s.device_tiers[0].used, 0u);
  EXPECT_GT(s.device_tiers[1].used, 0u);
}

// A key's bytes are what its upload allocated (the key's counting arena), and all of it comes back
// when the key is evicted. The device's free memory dropped by about as much while it was there
// (the driver rounds allocations to its pages, so only roughly).
TEST(gpu_backend, device_bytes_are_what_the_key_allocated_and_come_back) {
  CUZK_REQUIRE_GPU();
  auto e = gpu_engine({0}, 1);
  ASSERT_NE(e, nullptr);
  const auto bls = poseidon(formats::curve_id::bls12_381);
  ASSERT_TRUE(e->register_circuit("bls", bls.zkey).is_ok());
  // A first upload and eviction: the context's one-time growth is not the key's.
  ASSERT_TRUE(e->preload("bls", key_tier::device).is_ok());
  ASSERT_TRUE(e->evict("bls", key_tier::warm).is_ok());
  const std::size_t before = device_free_bytes(0);
  ASSERT_TRUE(e->preload("bls", e->parse_tier("device:0").value()).is_ok());
  const std::size_t during = device_free_bytes(0);
  const auto k = e->snapshot().keys.at(0);
  ASSERT_EQ(k.devices.size(), 1u);
  EXPECT_GT(k.devices[0].bytes, 0u);
  EXPECT_NEAR(static_cast<double>(before - during), static_cast<double>(k.devices[0].bytes), 64.0 * (1 << 20));
  ASSERT_TRUE(e->evict("bls", e->parse_tier("device:0").value()).is_ok());
  EXPECT_EQ(device_free_bytes(0), before);
  EXPECT_EQ(e->snapshot().keys.at(0).tier_name, "warm");
  std::printf("gpu_backend bls12-381 poseidon key: %llu bytes on the device, free memory %lld bytes less\n",
              static_cast<unsigned long long>(k.devices[0].bytes), static_cast<long long>(before - during));
}

// The uploader's estimate of a key (what the device tier admits an upload on) is the bytes of the
// copy it then makes, exactly: both curves, synthesis on the device (points, twiddles, matrices)
// and on the host (no matrices), and in a slot budget too small for the whole key (the vectors and
// twiddles the budget chose).
TEST(gpu_backend, the_uploaders_estimate_is_what_the_copy_allocated) {
  CUZK_REQUIRE_GPU();
  for (const char* place : {"device", "host-pinned"}) {
    gpu_options o;
    o.devices = {0};
    o.synthesis = *groth16::parse_synthesis_place(place);
    auto parts = make_gpu_backend(o);
    ASSERT_TRUE(parts.is_ok()) << parts.error().to_string();
    const device_slot slot = parts->devices.slots.at(0);
    for (const auto curve : {formats::curve_id::bn254, formats::curve_id::bls12_381}) {
      const auto f = poseidon(curve);
      auto key = loaded_key::load_warm(f.zkey, read_key_summary(f.zkey).value(), point_check::skip);
      ASSERT_TRUE(key.is_ok()) << key.error().to_string();
      const uint64_t whole = parts->devices.uploader->estimate_bytes(**key, slot.budget);
      for (const uint64_t budget : {slot.budget, whole - 1}) {
        SCOPED_TRACE(std::string(place) + ", " + (curve == formats::curve_id::bn254 ? "bn254" : "bls12-381") +
                     ", slot budget " + std::to_string(budget));
        device_slot where = slot;
        where.budget = budget;
        const uint64_t estimate = parts->devices.uploader->estimate_bytes(**key, budget);
        auto copy = parts->devices.uploader->upload(**key, 0, where);
        ASSERT_TRUE(copy.is_ok()) << copy.error().to_string();
        EXPECT_EQ((*copy)->bytes(), estimate);
        if (budget < whole) {
          EXPECT_LT(estimate, whole);
        }
      }
    }
  }
}

TEST(gpu_backend, a_key_over_the_slot_budget_is_proved_on_the_cpu) {
  CUZK_REQUIRE_GPU();
  auto e = gpu_engine({0}, 1, 4096);
  ASSERT_NE(e, nullptr);
  const auto bn = poseidon(formats::curve_id::bn254);
  ASSERT_TRUE(e->register_circuit("bn", bn.zkey).is_ok());
  const auto r = e->await(e->submit(request("bn", 1, std::nullopt, bn.wtns)).value(), 60s).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  EXPECT_EQ(r.ran_on, "cpu");
  expect_valid(r.proofs.at(0), bn);
  const auto s = e->snapshot();
  EXPECT_EQ(s.devices.at(0).cpu_fallbacks, 1u);
  EXPECT_EQ(s.keys.at(0).tier_name, "warm");
  EXPECT_EQ(e->preload("bn", key_tier::device).code(), errc::resource_exhausted);
}

TEST(gpu_backend, a_tight_device_budget_frees_idle_buffers_and_unused_keys_and_every_proof_runs_on_the_gpu) {
  CUZK_REQUIRE_GPU();
  const auto bn = poseidon(formats::curve_id::bn254), bls = poseidon(formats::curve_id::bls12_381);
  auto prove_both = [&](engine& e, int rounds) {
    for (int i = 0; i < 2 * rounds; ++i) {
      const auto& f = i % 2 == 0 ? bn : bls;
      const auto r = e.await(e.submit(request(i % 2 == 0 ? "bn" : "bls", 1, std::nullopt, f.wtns)).value(), 60s).value();
      ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
      EXPECT_EQ(r.ran_on, "device:0");
      expect_valid(r.proofs.at(0), f);
    }
  };
  // The sizes, measured with room for everything: each key's copy and the worker's buffers.
  uint64_t key_bn = 0, key_bls = 0, buffers = 0;
  {
    auto e = gpu_engine({0}, 1);
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->register_circuit("bn", bn.zkey).is_ok());
    ASSERT_TRUE(e->register_circuit("bls", bls.zkey).is_ok());
    prove_both(*e, 1);
    const auto s = e->snapshot();
    for (const auto& k : s.keys) (k.circuit == "bn" ? key_bn : key_bls) = k.devices.at(0).bytes;
    buffers = s.devices.at(0).workspace_device_bytes;
    expect_device_budget_holds_keys_and_buffers(s);
  }
  ASSERT_GT(key_bn, 0u);
  ASSERT_GT(key_bls, 0u);
  ASSERT_GT(buffers, 0u);
  // Room for the larger key, both curves' buffers and half the smaller key: never both keys.
  engine_options o;
  o.spool_dir = temp_dir("gpu-spool");
  o.backend = groth16::prover_kind::gpu;
  o.gpu.devices = {0};
  o.gpu.workers_per_device = 1;
  o.gpu.device_memory_budget = std::max(key_bn, key_bls) + buffers + std::min(key_bn, key_bls) / 2;
  auto made = engine::create(std::move(o));
  ASSERT_TRUE(made.is_ok()) << made.error().to_string();
  auto e = std::move(made).value();
  ASSERT_TRUE(e->register_circuit("bn", bn.zkey).is_ok());
  ASSERT_TRUE(e->register_circuit("bls", bls.zkey).is_ok());
  prove_both(*e, 3);
  const auto s = e->snapshot();
  expect_device_budget_holds_keys_and_buffers(s);
  EXPECT_EQ(s.devices.at(0).cpu_fallbacks, 0u);
  const auto& b = s.memory_budgets.at(1);
  uint64_t freed_keys = 0;
  for (const auto& ev : b.evictors)
    if (ev.name == "proving key copies") freed_keys = ev.bytes_freed;
  EXPECT_GT(freed_keys, 0u) << "the two keys never had to leave each other room";
  uint64_t uploads = 0;
  for (const auto& k : s.keys) uploads += k.devices.at(0).uploads;
  EXPECT_GT(uploads, 2u);
  std::printf("gpu_backend tight device budget: limit=%llu peak=%llu keys=%llu+%llu buffers=%llu uploads=%llu "
              "buffer_evictions=%llu\n",
              static_cast<unsigned long long>(b.limit), static_cast<unsigned long long>(b.peak),
              static_cast<unsigned long long>(key_bn), static_cast<unsigned long long>(key_bls),
              static_cast<unsigned long long>(buffers), static_cast<unsigned long long>(uploads),
              static_cast<unsigned long long>(s.devices.at(0).workspace_evictions));
}

// The smallest budget in which fit_to_budget places pk with `o` (one worker's buffers counted).
template <class C>
uint64_t smallest_fitting_budget(const groth16::proving_key_view<C>& pk, const groth16::gpu_key_options& o) {
  uint64_t lo = 0, hi = uint64_t{1} << 34;  // 16 GiB holds either fixture many times over
  EXPECT_TRUE(groth16::fit_to_budget<C>(pk, o, hi).is_ok());
  while (lo + 1 < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (groth16::fit_to_budget<C>(pk, o, mid).is_ok() ? hi : lo) = mid;
  }
  return hi;
}

// A key budget configured above the device budget is capped at it (a key is placed with one
// worker's buffers beside it, and both come out of the device budget), and in a budget where the
// key's matrices and a worker's buffers do not fit together at any placement, the key synthesizes
// on the host: its upload says so, its estimate is still its bytes, and the host memory per proof
// then counts a | b | c in pinned staging. At the budget where the matrices fit, the device.
TEST(gpu_backend, a_key_whose_matrices_leave_a_worker_no_room_synthesizes_on_the_host) {
  CUZK_REQUIRE_GPU();
  for (const auto curve : {formats::curve_id::bn254, formats::curve_id::bls12_381}) {
    SCOPED_TRACE(curve == formats::curve_id::bn254 ? "bn254" : "bls12-381");
    formats::with_curve(curve, [&]<class C>() {
      const auto f = poseidon(curve);
      const key_summary summary = read_key_summary(f.zkey).value();
      auto key = loaded_key::load_warm(f.zkey, summary, point_check::skip);
      ASSERT_TRUE(key.is_ok()) << key.error().to_string();
      const auto& view = (*key)->get<C>()->view;
      groth16::gpu_key_options o;
      o.workspace = groth16::key_workspace::own;
      const uint64_t with_matrices = smallest_fitting_budget<C>(view, o);
      o.synthesis = groth16::synthesis_place::host_pinned;
      const uint64_t without = smallest_fitting_budget<C>(view, o);
      ASSERT_LT(without, with_matrices);

      gpu_options g;
      g.devices = {0};
      g.workers_per_device = 1;
      g.key_budget = uint64_t{64} << 30;
      g.device_memory_budget = with_matrices - 1;
      auto parts = make_gpu_backend(g);
      ASSERT_TRUE(parts.is_ok()) << parts.error().to_string();
      device_slot slot = parts->devices.slots.at(0);
      EXPECT_EQ(slot.budget, with_matrices - 1);
      EXPECT_NE(parts->description.find("capped"), std::string::npos) << parts->description;

      const proof_memory before = parts->backend->memory_per_proof(summary);
      EXPECT_EQ(before.pinned, staging_for(summary.n_vars, summary.domain_size, groth16::synthesis_place::device).total());
      const uint64_t estimate = parts->devices.uploader->estimate_bytes(**key, slot.budget);
      auto copy = parts->devices.uploader->upload(**key, 0, slot);
      ASSERT_TRUE(copy.is_ok()) << copy.error().to_string();
      const auto& gk = std::get<groth16::gpu_proving_key<C>>(static_cast<const gpu_device_key&>(**copy).key);
      EXPECT_EQ(gk.synthesis(), groth16::synthesis_place::host_pinned);
      EXPECT_EQ((*copy)->bytes(), estimate);
      const proof_memory after = parts->backend->memory_per_proof(summary);
      EXPECT_EQ(after.pinned,
                staging_for(summary.n_vars, summary.domain_size, groth16::synthesis_place::host_pinned).total());
      EXPECT_GE(after.host, uint64_t{summary.n_vars} * 32 + after.pinned);

      slot.budget = with_matrices;
      auto resident = parts->devices.uploader->upload(**key, 0, slot);
      ASSERT_TRUE(resident.is_ok()) << resident.error().to_string();
      EXPECT_EQ(std::get<groth16::gpu_proving_key<C>>(static_cast<const gpu_device_key&>(**resident).key).synthesis(),
                groth16::synthesis_place::device);
    });
  }
}

// The same budget through the engine: a key budget far above a device budget that holds the key
// and a worker only with synthesis on the host. Every proof runs on the device and verifies, and
// the device budget never held more than its limit (with the key budget uncapped the matrices
// went to the device and the worker waited for room that never came).
TEST(gpu_backend, a_device_budget_below_the_key_budget_still_proves_on_the_device) {
  CUZK_REQUIRE_GPU();
  for (const auto curve : {formats::curve_id::bn254, formats::curve_id::bls12_381}) {
    SCOPED_TRACE(curve == formats::curve_id::bn254 ? "bn254" : "bls12-381");
    const auto f = poseidon(curve);
    uint64_t with_matrices = 0;
    formats::with_curve(curve, [&]<class C>() {
      auto key = loaded_key::load_warm(f.zkey, read_key_summary(f.zkey).value(), point_check::skip);
      ASSERT_TRUE(key.is_ok()) << key.error().to_string();
      groth16::gpu_key_options o;
      o.workspace = groth16::key_workspace::own;
      with_matrices = smallest_fitting_budget<C>((*key)->get<C>()->view, o);
    });
    ASSERT_GT(with_matrices, 1u);
    engine_options o;
    o.spool_dir = temp_dir("gpu-spool");
    o.backend = groth16::prover_kind::gpu;
    o.gpu.devices = {0};
    o.gpu.workers_per_device = 1;
    o.gpu.key_budget = uint64_t{64} << 30;
    o.gpu.device_memory_budget = with_matrices - 1;
    auto made = engine::create(std::move(o));
    ASSERT_TRUE(made.is_ok()) << made.error().to_string();
    auto e = std::move(made).value();
    ASSERT_TRUE(e->register_circuit("k", f.zkey).is_ok());
    for (int i = 0; i < 3; ++i) {
      const auto r = e->await(e->submit(request("k", 1, std::nullopt, f.wtns)).value(), 120s).value();
      ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
      EXPECT_EQ(r.ran_on, "device:0");
      expect_valid(r.proofs.at(0), f);
    }
    const auto s = e->snapshot();
    EXPECT_EQ(s.devices.at(0).cpu_fallbacks, 0u);
    expect_device_budget_holds_keys_and_buffers(s);
  }
}

// A job's partitions on a key whose points stream from host memory go in batches of up to
// gpu_batch_partitions, on both curves: every proof verifies under snarkjs's key with its own
// partition's public signals, in order, and the device counts them as batched.
TEST(gpu_backend, a_streamed_keys_partitions_are_proven_in_batches_in_order) {
  CUZK_REQUIRE_GPU();
  for (const bool bls : {false, true}) {
    SCOPED_TRACE(bls ? "bls12-381" : "bn254");
    const std::string dir = data_dir + "/snarkjs/" + (bls ? "bls12381" : "bn128") + "/";
    engine_options o;
    o.spool_dir = temp_dir("gpu-batch-spool");
    o.backend = groth16::prover_kind::gpu;
    o.gpu.devices = {0};
    o.gpu.workers_per_device = 1;
    o.gpu.batch_partitions = 3;
    o.gpu.streamed = groth16::key_vector_set::all();
    auto made = engine::create(std::move(o));
    ASSERT_TRUE(made.is_ok()) << made.error().to_string();
    auto e = std::move(made).value();
    ASSERT_TRUE(e->register_circuit("m", dir + "circuit.zkey").is_ok());
    job_request req;
    req.circuit = "m";
    constexpr unsigned partitions = 7;  // batches of 3, 3 and a single one
    for (unsigned k = 0; k < partitions; ++k)
      req.partitions.push_back(witness_input::from_bytes(multiplier_witness(dir + "circuit.wtns", k)));
    const auto r = e->await(e->submit(std::move(req)).value(), 60s).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    EXPECT_EQ(r.ran_on, "device:0");
    ASSERT_EQ(r.proofs.size(), partitions);
    for (unsigned k = 0; k < partitions; ++k) {
      if (bls)
        expect_valid_proof<bls12_381>(r.proofs[k], dir + "verification_key.json", multiplier_public(k));
      else
        expect_valid_proof<bn254>(r.proofs[k], dir + "verification_key.json", multiplier_public(k));
    }
    const auto s = e->snapshot();
    EXPECT_EQ(s.devices.at(0).proofs, partitions);
    EXPECT_EQ(s.devices.at(0).batched_proofs, 6u);
    EXPECT_EQ(s.devices.at(0).cpu_fallbacks, 0u);
    expect_device_budget_holds_keys_and_buffers(s);
  }
}

}  // namespace
}  // namespace cuzk::engine
