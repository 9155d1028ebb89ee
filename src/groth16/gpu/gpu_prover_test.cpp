// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU prover (gpu_prover.hpp) against the CPU prover, for both curves: for the same witness,
// r and s the two proofs are equal bit for bit, and the GPU proof verifies with groth16::verify.
// The oracle shares no GPU code: the CPU prove_with runs synthesis, compute_h and every MSM on
// the CPU. Cases:
//  - the snarkjs fixtures (the multiplier circuit and poseidon) with their zkeys and .wtns;
//  - synthetic circuits with development keys: 2^10 (dense and mostly-0/1 witness), 2^16, and a
//    constraint count that is not a power of two less two (padding rows in the domain, unused
//    signals whose key points are at infinity);
//  - 1, 2, 3, 255, 256, 257, 1024 and 1025 constraints;
//  - synthesis on the device, and on the host into pinned and into pageable buffers;
//  - host buffers lent by a pool given back once the copies have read them, before the proof's
//    kernels wait for the device;
//  - r = s = 0 and random r, s, several proofs per key (the key's buffers and MSM scratch are
//    reused, so a stale value from the previous proof would show);
//  - keys with streamed point vectors (all of them, or some, in ranges of a few hundred points, so
//    the sizes are not multiples of the range; and the set a device budget chooses), from a
//    mapped zkey and from keys in memory, both page-locked by the key;
//  - 1000 proofs in a loop on one key: every proof equal to the CPU's, device memory
//    (cudaMemGetInfo) the same after the loop as after the first proof, and back to where it was
//    once the key is gone.
// Without a CUDA device every test is skipped with a message.
#include "groth16/gpu/gpu_prover.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "formats/verification_key.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/gpu/gpu_prover_test_util.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class gpu_prover_test : public ::testing::Test {};
TYPED_TEST_SUITE(gpu_prover_test, test::both_curves);

// The fixtures' folder: CUZK_TEST_DATA_DIR from the environment (binaries built on one machine
// may run on another, whose compiled-in path does not exist there), else the build's.
std::string data_dir() {
  const char* env = std::getenv("CUZK_TEST_DATA_DIR");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(CUZK_TEST_DATA_DIR);
}

template <class C>
std::string fixture(const std::string& circuit, const std::string& file) {
  std::string dir = data_dir() + "/snarkjs/" + C::snarkjs_name + "/";
  if (!circuit.empty()) dir += circuit + "/";
  return dir + file;
}

// Proves `rounds` times on one GPU key synthesizing at `place` (r = s = 0 first, then random) and
// compares each proof with the CPU prover's for the same r and s; every GPU proof must verify.
template <class C>
void expect_same_proofs_with(const proving_key_view<C>& pk, std::span<const typename C::fr::repr> w,
                             const formats::verification_key<C>& vk, uint64_t seed, int rounds,
                             synthesis_place place, gpu_key_options options = {}) {
  using Fr = typename C::fr;
  options.synthesis = place;
  auto gk = gpu_proving_key<C>::create(pk, 0, options);
  ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
  ASSERT_EQ(gk->synthesis(), place);
  if (options.device_budget_bytes) {
    // The key is placed at the range it chose as B2 in turn would be (choose_twiddles, then
    // choose_streamed), and runs B2 beside A, B1 and C only where that changes neither: never a
    // vector streamed or the tables given up for B2's arena (place_at_range).
    const std::size_t budget = *options.device_budget_bytes;
    gpu_key_options in_turn = options;
    in_turn.device_budget_bytes.reset();
    in_turn.stream_chunk_points = gk->stream_chunk_points();
    in_turn.b2_beside = false;
    in_turn.abc = gk->abc();  // three, or two where three fit at no range or only with B2 in turn
    in_turn.twiddles = choose_twiddles<C>(pk, in_turn, budget);
    auto in_turn_set = choose_streamed<C>(pk, in_turn, budget);
    ASSERT_TRUE(in_turn_set.is_ok()) << in_turn_set.error().to_string();
    EXPECT_EQ(gk->streamed(), *in_turn_set);
    EXPECT_EQ(gk->twiddles(), in_turn.twiddles);
    if (gk->b2_beside()) {
      EXPECT_TRUE(options.b2_beside);
    } else if (options.b2_beside) {
      gpu_key_options beside = in_turn;
      beside.b2_beside = true;
      beside.twiddles = choose_twiddles<C>(pk, beside, budget);
      auto beside_set = choose_streamed<C>(pk, beside, budget);
      EXPECT_TRUE(!beside_set || *beside_set != *in_turn_set || beside.twiddles != in_turn.twiddles)
          << "B2 went in turn where beside placed the key the same";
    }
  } else {
    EXPECT_EQ(gk->streamed(), options.streamed);
    EXPECT_EQ(gk->twiddles(), options.twiddles);
    EXPECT_EQ(gk->abc(), options.abc);
  }
  EXPECT_FALSE(gk->pageable_streamed());
  const auto publics = public_signals_of<C>(w, pk.n_public);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < rounds; ++i) {
    SCOPED_TRACE("round " + std::to_string(i));
    const Fr r = i == 0 ? Fr::zero() : Fr::random(rng);
    const Fr s = i == 0 ? Fr::zero() : Fr::random(rng);
    auto cpu = prove_with<C>(pk, w, r, s);
    ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
    phase_timings t;
    auto gpu = prove_with<C>(pk, w, r, s, &t, gpu_context<C>{*gk});
    ASSERT_TRUE(gpu.is_ok()) << gpu.error().to_string();
    EXPECT_EQ(*gpu, *cpu);
    const status v = verify<C>(vk, publics, *gpu);
    EXPECT_TRUE(v.is_ok()) << v.to_string();
    EXPECT_GT(t.total, 0.0);
    EXPECT_EQ(t.synthesis_on_device, place == synthesis_place::device);
  }
}

// The same for each synthesis place.
template <class C>
void expect_same_proofs(const proving_key_view<C>& pk, std::span<const typename C::fr::repr> w,
                        const formats::verification_key<C>& vk, uint64_t seed, int rounds = 3) {
  for (const synthesis_place place :
       {synthesis_place::device, synthesis_place::host_pinned, synthesis_place::host_pageable}) {
    SCOPED_TRACE(std::string("synthesis ") + synthesis_place_name(place));
    expect_same_proofs_with<C>(pk, w, vk, seed, rounds, place);
  }
}

// With streamed vectors: all five in ranges of 100 and of 333 points, B2 and H alone, all five
// with B2 in the turn of A, B1 and C instead of beside them, and resident with B2 in turn; what a
// budget just below the all-resident estimate chooses (compact twiddles), one just below the
// compact key's (H streamed too), and one just below the all-streamed key's with B2 beside (B2 in
// turn).
template <class C>
void expect_same_proofs_streamed(const proving_key_view<C>& pk, std::span<const typename C::fr::repr> w,
                                 const formats::verification_key<C>& vk, uint64_t seed) {
  const auto b2_h = key_vector_set().with(key_vector::b2).with(key_vector::h);
  for (const auto& [set, chunk] : {std::pair{key_vector_set::all(), std::size_t{100}},
                                   std::pair{key_vector_set::all(), std::size_t{333}}, std::pair{b2_h, std::size_t{333}}}) {
    SCOPED_TRACE("streamed " + set.to_string() + " in ranges of " + std::to_string(chunk));
    gpu_key_options o;
    o.streamed = set;
    o.stream_chunk_points = chunk;
    expect_same_proofs_with<C>(pk, w, vk, seed, 2, synthesis_place::device, o);
  }
  for (const auto& set : {key_vector_set::all(), key_vector_set{}}) {
    SCOPED_TRACE("B2 in turn, streamed " + set.to_string());
    gpu_key_options o;
    o.streamed = set;
    o.stream_chunk_points = 333;
    o.b2_beside = false;
    expect_same_proofs_with<C>(pk, w, vk, seed, 2, synthesis_place::device, o);
  }
  gpu_key_options o;
  o.stream_chunk_points = 256;
  const std::size_t resident = estimate_device_bytes<C>(pk, o, {});
  // Just below the all-resident size with B2 beside, beside would make the twiddles compact (the
  // plan's tables are most of a small key), and that would be enough.
  o.device_budget_bytes = resident - 1;
  EXPECT_EQ(choose_twiddles<C>(pk, o, resident - 1), gpu::ntt_memory::compact);
  // There B2 beside would cost the tables with three of a, b, c; in turn the key stays whole with
  // them. With synthesis on the device, two of a, b, c keeps both: the key whole, the tables, and B2
  // beside (fit_to_budget), which costs one synthesis kernel where in turn costs B2's whole MSM on
  // the witness side's path.
  gpu_key_options whole_in_turn = o;
  whole_in_turn.b2_beside = false;
  ASSERT_LE(estimate_device_bytes<C>(pk, whole_in_turn, {}), resident - 1);
  auto whole = fit_to_budget<C>(pk, o, resident - 1);
  ASSERT_TRUE(whole.is_ok()) << whole.error().to_string();
  EXPECT_TRUE(whole->b2_beside);
  EXPECT_EQ(whole->abc, abc_on_device::two);
  EXPECT_TRUE(whole->streamed.empty()) << whole->streamed.to_string();
  EXPECT_EQ(whole->twiddles, gpu::ntt_memory::tables);
  {
    gpu_key_options three_only = o;  // with three required, in turn wins as before
    three_only.abc = abc_on_device::three;
    auto kept = place_at_range<C>(pk, three_only, resident - 1);
    ASSERT_TRUE(kept.is_ok()) << kept.error().to_string();
    EXPECT_FALSE(kept->b2_beside);
    EXPECT_TRUE(kept->streamed.empty()) << kept->streamed.to_string();
    EXPECT_EQ(kept->twiddles, gpu::ntt_memory::tables);
  }
  {
    SCOPED_TRACE("budget just below all resident");
    expect_same_proofs_with<C>(pk, w, vk, seed, 2, synthesis_place::device, o);
  }
  // Below the compact key's size, H goes first (streaming_order).
  gpu_key_options compact = o;
  compact.twiddles = gpu::ntt_memory::compact;
  const std::size_t compact_resident = estimate_device_bytes<C>(pk, compact, {});
  ASSERT_LT(compact_resident, resident);
  o.device_budget_bytes = compact_resident - 1;
  auto chosen = choose_streamed<C>(pk, compact, compact_resident - 1);
  ASSERT_TRUE(chosen.is_ok()) << chosen.error().to_string();
  EXPECT_TRUE(chosen->contains(key_vector::h)) << chosen->to_string();
  {
    SCOPED_TRACE("budget just below the compact key");
    expect_same_proofs_with<C>(pk, w, vk, seed, 2, synthesis_place::device, o);
  }
  // Below the all-streamed key's size with B2 beside, three of a, b, c put B2 in turn (one arena
  // fewer).
  gpu_key_options in_turn = compact;
  const std::size_t beside_all = estimate_device_bytes<C>(pk, compact, key_vector_set::all());
  in_turn.b2_beside = false;
  ASSERT_LT(estimate_device_bytes<C>(pk, in_turn, key_vector_set::all()), beside_all);
  auto fitted = fit_to_budget<C>(pk, compact, beside_all - 1);
  ASSERT_TRUE(fitted.is_ok()) << fitted.error().to_string();
  auto kept = place_at_range<C>(pk, compact, beside_all - 1);  // three: B2 in turn
  ASSERT_TRUE(kept.is_ok()) << kept.error().to_string();
  EXPECT_FALSE(kept->b2_beside);
  // With synthesis on the device, two of a, b, c there where it keeps B2 beside with nothing else
  // given up against three in turn: no vector streamed that three in turn keeps resident (both
  // with compact twiddles, at the same range). Whether it does depends on the key's sizes (c's n
  // values against B2's arena, and what three in turn keeps resident in the arena it saves), so
  // the rule is checked against the streamed sets the budget gives each.
  gpu_key_options two_beside = compact;
  two_beside.abc = abc_on_device::two;
  two_beside.stream_chunk_points = kept->stream_chunk_points;
  auto two_streamed = choose_streamed<C>(pk, two_beside, beside_all - 1);
  bool two_no_worse = two_streamed.is_ok();
  for (const key_vector v : all_key_vectors)
    if (two_no_worse && two_streamed->contains(v) && !kept->streamed.contains(v)) two_no_worse = false;
  EXPECT_EQ(fitted->b2_beside, two_no_worse) << "three in turn streams " << kept->streamed.to_string();
  EXPECT_EQ(fitted->abc, two_no_worse ? abc_on_device::two : abc_on_device::three);
  o.device_budget_bytes = beside_all - 1;
  {
    SCOPED_TRACE("budget just below the all-streamed key with B2 beside");
    expect_same_proofs_with<C>(pk, w, vk, seed, 2, synthesis_place::device, o);
  }
  auto none = choose_streamed<C>(pk, o, 1 << 20);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.error().to_string().find("with every point vector streamed"), std::string::npos)
      << none.error().to_string();
}

// A development key for `cs` and the CPU proving key over it, or a test failure.
template <class C>
struct dev_key {
  development_key<C> dk;
  proving_key<C> pk;
};

template <class C>
std::optional<dev_key<C>> make_dev_key(const synth::constraint_system<typename C::fr>& cs) {
  auto dk = development_setup<C>(cs);
  EXPECT_TRUE(dk.is_ok()) << dk.error().to_string();
  if (!dk) return std::nullopt;
  auto pk = proving_key<C>::from_key_data(dk->key);
  EXPECT_TRUE(pk.is_ok()) << pk.error().to_string();
  if (!pk) return std::nullopt;
  return dev_key<C>{std::move(dk).value(), std::move(pk).value()};
}

TYPED_TEST(gpu_prover_test, fixtures_match_cpu_and_verify) {
  CUZK_REQUIRE_GPU();
  for (const char* circuit : {"", "poseidon"}) {
    SCOPED_TRACE(circuit);
    auto zk = formats::zkey<TypeParam>::open(fixture<TypeParam>(circuit, "circuit.zkey"));
    ASSERT_TRUE(zk.is_ok()) << zk.error().to_string();
    auto pk = proving_key<TypeParam>::from_zkey(*zk);
    ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
    auto wt = formats::wtns::open(fixture<TypeParam>(circuit, "circuit.wtns"));
    ASSERT_TRUE(wt.is_ok()) << wt.error().to_string();
    auto w = witness_of<TypeParam>(*wt);
    ASSERT_TRUE(w.is_ok()) << w.error().to_string();
    const auto vk = formats::verification_key_of(*zk);
    expect_same_proofs<TypeParam>(pk->view(), *w, vk, 11);
  }
}

TYPED_TEST(gpu_prover_test, synthetic_circuits_match_cpu_and_verify) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  struct shape {
    unsigned log_size;
    synth::witness_kind kind;
  };
  for (const shape sh :
       {shape{10, synth::witness_kind::dense}, shape{10, synth::witness_kind::mostly_boolean},
        shape{16, synth::witness_kind::dense}}) {
    SCOPED_TRACE("2^" + std::to_string(sh.log_size) +
                 (sh.kind == synth::witness_kind::dense ? " dense" : " boolean"));
    const auto circuit = synth::make_synthetic_circuit<Fr>(sh.log_size, sh.kind, 7);
    auto key = make_dev_key<TypeParam>(circuit.cs);
    ASSERT_TRUE(key.has_value());
    expect_same_proofs<TypeParam>(key->pk.view(), circuit.witness, key->dk.vk, sh.log_size);
  }
}

// The first m constraints of a circuit, with all its signals: still satisfied by its witness.
template <class Fr>
synth::constraint_system<Fr> first_constraints(const synth::constraint_system<Fr>& cs, std::size_t m) {
  auto cut = [m](const synth::csr_matrix<Fr>& a) {
    synth::csr_matrix<Fr> out;
    out.rows = m;
    out.cols = a.cols;
    out.row_start.assign(a.row_start.begin(), a.row_start.begin() + static_cast<std::ptrdiff_t>(m + 1));
    const auto nnz = static_cast<std::ptrdiff_t>(out.row_start.back());
    out.col.assign(a.col.begin(), a.col.begin() + nnz);
    out.value.assign(a.value.begin(), a.value.begin() + nnz);
    return out;
  };
  synth::constraint_system<Fr> out;
  out.n_vars = cs.n_vars;
  out.n_public = cs.n_public;
  out.n_constraints = m;
  out.a = cut(cs.a);
  out.b = cut(cs.b);
  out.c = cut(cs.c);
  return out;
}

TYPED_TEST(gpu_prover_test, non_power_of_two_constraint_count) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(12, synth::witness_kind::dense, 3);
  const auto cs = first_constraints(circuit.cs, 3001);
  ASSERT_TRUE(cs.is_satisfied(circuit.witness));
  ASSERT_EQ(cs.domain_size(), 4096u);
  auto key = make_dev_key<TypeParam>(cs);
  ASSERT_TRUE(key.has_value());
  expect_same_proofs<TypeParam>(key->pk.view(), circuit.witness, key->dk.vk, 5);
}

// The sizes where off-by-one errors live: 1, 2, 3 constraints (domains of 4 with the public-input
// rows), either side of 256 and of 1024, each with the first signals of a larger circuit.
TYPED_TEST(gpu_prover_test, edge_constraint_counts) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(11, synth::witness_kind::dense, 17);
  for (const std::size_t m : {1, 2, 3, 255, 256, 257, 1024, 1025}) {
    SCOPED_TRACE(std::to_string(m) + " constraints");
    const auto cs = first_constraints(circuit.cs, m);
    ASSERT_TRUE(cs.is_satisfied(circuit.witness));
    auto key = make_dev_key<TypeParam>(cs);
    ASSERT_TRUE(key.has_value());
    expect_same_proofs<TypeParam>(key->pk.view(), circuit.witness, key->dk.vk, m, 2);
  }
}

TYPED_TEST(gpu_prover_test, streamed_keys_match_cpu_and_verify) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  {
    SCOPED_TRACE("poseidon zkey, mapped");
    auto zk = formats::zkey<TypeParam>::open(fixture<TypeParam>("poseidon", "circuit.zkey"));
    ASSERT_TRUE(zk.is_ok()) << zk.error().to_string();
    auto pk = proving_key<TypeParam>::from_zkey(*zk);
    ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
    auto wt = formats::wtns::open(fixture<TypeParam>("poseidon", "circuit.wtns"));
    ASSERT_TRUE(wt.is_ok()) << wt.error().to_string();
    auto w = witness_of<TypeParam>(*wt);
    ASSERT_TRUE(w.is_ok()) << w.error().to_string();
    expect_same_proofs_streamed<TypeParam>(pk->view(), *w, formats::verification_key_of(*zk), 21);
  }
  for (const auto kind : {synth::witness_kind::dense, synth::witness_kind::mostly_boolean}) {
    SCOPED_TRACE(kind == synth::witness_kind::dense ? "3001 constraints, dense" : "3001 constraints, boolean");
    const auto circuit = synth::make_synthetic_circuit<Fr>(12, kind, 23);
    const auto cs = first_constraints(circuit.cs, 3001);
    auto key = make_dev_key<TypeParam>(cs);
    ASSERT_TRUE(key.has_value());
    expect_same_proofs_streamed<TypeParam>(key->pk.view(), circuit.witness, key->dk.vk, 22);
  }
}

// Two of a, b, c on the device at a time (abc_on_device::two: c takes b's place, and with synthesis
// on the host then the witness): the same proofs as the CPU prover with synthesis on the host
// (pinned and pageable) and on the device (c from a second synthesis kernel), resident and with
// every vector streamed in ranges of 333 points, for a circuit whose nVars is one more than its
// domain and its first 1000 constraints, whose nVars is four times its domain (the witness then
// needs far more room than b had). A budget with room for two but not for three at any range picks
// it, either place; with synthesis on the device, so does one where three fit only with B2 in turn
// and two with B2 beside.
TYPED_TEST(gpu_prover_test, two_of_abc_on_the_device_match_cpu_and_verify) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(12, synth::witness_kind::mostly_boolean, 41);
  for (const std::size_t m : {circuit.cs.n_constraints, std::size_t{1000}}) {
    const auto cs = first_constraints(circuit.cs, m);
    ASSERT_TRUE(cs.is_satisfied(circuit.witness));
    auto key = make_dev_key<TypeParam>(cs);
    ASSERT_TRUE(key.has_value());
    const auto& pk = key->pk.view();
    SCOPED_TRACE(std::to_string(m) + " constraints: nVars " + std::to_string(pk.n_vars) + ", domain " +
                 std::to_string(pk.domain_size));
    ASSERT_GT(pk.n_vars, pk.domain_size);
    if (m == 1000) {
      ASSERT_GT(pk.n_vars, 3 * pk.domain_size);
    }
    for (const synthesis_place place :
         {synthesis_place::host_pinned, synthesis_place::host_pageable, synthesis_place::device}) {
      for (const auto& set : {key_vector_set{}, key_vector_set::all()}) {
        SCOPED_TRACE(std::string(synthesis_place_name(place)) + ", streamed " + set.to_string());
        gpu_key_options o;
        o.abc = abc_on_device::two;
        o.streamed = set;
        o.stream_chunk_points = 333;
        expect_same_proofs_with<TypeParam>(pk, circuit.witness, key->dk.vk, m, 2, place, o);
      }
    }

    // What the device holds: a and b's place, and with synthesis on the host no witness buffer of
    // its own, with synthesis on the device 2n and the witness's own. One workspace then proves
    // with a key of three, one of two, one of two synthesizing on the device and one of three
    // again (the witness's place moves, and back).
    gpu_key_options two(synthesis_place::host_pinned), three(synthesis_place::host_pinned);
    gpu_key_options two_on_device(synthesis_place::device);
    two.abc = abc_on_device::two;
    two_on_device.abc = abc_on_device::two;
    auto k2 = gpu_proving_key<TypeParam>::create(pk, 0, two);
    ASSERT_TRUE(k2.is_ok()) << k2.error().to_string();
    EXPECT_EQ(k2->state().own->device_bytes(),
              (pk.domain_size + std::max(pk.domain_size, pk.n_vars)) * sizeof(Fr) + k2->msm_scratch().total());
    auto kd2 = gpu_proving_key<TypeParam>::create(pk, 0, two_on_device);
    ASSERT_TRUE(kd2.is_ok()) << kd2.error().to_string();
    EXPECT_EQ(kd2->state().own->device_bytes(),
              (2 * pk.domain_size + pk.n_vars) * sizeof(Fr) + kd2->msm_scratch().total());
    auto k3 = gpu_proving_key<TypeParam>::create(pk, 0, three);
    ASSERT_TRUE(k3.is_ok()) << k3.error().to_string();
    auto ws = gpu_workspace<TypeParam>::create(0);
    ASSERT_TRUE(ws.is_ok()) << ws.error().to_string();
    std::mt19937_64 rng(m);
    for (const auto* k : {&*k3, &*k2, &*kd2, &*k2, &*k3}) {
      SCOPED_TRACE(std::string("one workspace, ") + abc_on_device_name(k->abc()) + ", synthesis " +
                   synthesis_place_name(k->synthesis()));
      const Fr r = Fr::random(rng), s = Fr::random(rng);
      auto cpu = prove_with<TypeParam>(pk, circuit.witness, r, s);
      ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
      auto gpu = prove_with<TypeParam>(pk, circuit.witness, r, s, nullptr, gpu_context<TypeParam>{*k, &*ws});
      ASSERT_TRUE(gpu.is_ok()) << gpu.error().to_string();
      EXPECT_EQ(*gpu, *cpu);
      // What a caller reserves for this key before the call is what the workspace then holds.
      EXPECT_EQ(ws->device_bytes_after(pk.n_vars, pk.domain_size, k->synthesis(), k->abc(), k->msm_scratch()),
                ws->device_bytes());
    }

    // The smallest budget each way fits in (fit_to_budget succeeds from some size on): a caller's
    // choice of two fits with less than three needs, by the n + min(n, nVars) elements three hold
    // more at every placement (n with synthesis on the device); at two's smallest budget a caller
    // who left it to the key gets two, and its proofs are the CPU's.
    auto smallest_budget = [&](const gpu_key_options& o) {
      std::size_t lo = 0, hi = std::size_t{1} << 40;  // fits at hi, not at lo
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (fit_to_budget<TypeParam>(pk, o, mid).is_ok() ? hi : lo) = mid;
      }
      return hi;
    };
    gpu_key_options asked(synthesis_place::host_pinned), asked_two(synthesis_place::host_pinned);
    asked_two.abc = abc_on_device::two;
    const std::size_t budget = smallest_budget(asked_two);
    auto fitted = fit_to_budget<TypeParam>(pk, asked, budget);
    ASSERT_TRUE(fitted.is_ok()) << fitted.error().to_string();
    EXPECT_EQ(fitted->abc, abc_on_device::two);
    gpu_key_options as_three = *fitted;
    as_three.abc = abc_on_device::three;
    EXPECT_EQ(estimate_device_bytes<TypeParam>(pk, as_three, fitted->streamed),
              estimate_device_bytes<TypeParam>(pk, *fitted, fitted->streamed) +
                  (pk.domain_size + std::min(pk.n_vars, pk.domain_size)) * sizeof(Fr));
    asked.device_budget_bytes = budget;
    expect_same_proofs_with<TypeParam>(pk, circuit.witness, key->dk.vk, m + 1, 2, synthesis_place::host_pinned,
                                       asked);
    gpu_key_options device_asked;
    const std::size_t device_budget = smallest_budget(device_asked);
    auto device_fitted = fit_to_budget<TypeParam>(pk, device_asked, device_budget);
    ASSERT_TRUE(device_fitted.is_ok()) << device_fitted.error().to_string();
    EXPECT_EQ(device_fitted->abc, abc_on_device::two);
    gpu_key_options device_three = *device_fitted;
    device_three.abc = abc_on_device::three;
    EXPECT_EQ(estimate_device_bytes<TypeParam>(pk, device_three, device_fitted->streamed),
              estimate_device_bytes<TypeParam>(pk, *device_fitted, device_fitted->streamed) +
                  pk.domain_size * sizeof(Fr));
    device_asked.device_budget_bytes = device_budget;
    expect_same_proofs_with<TypeParam>(pk, circuit.witness, key->dk.vk, m + 2, 2, synthesis_place::device,
                                       device_asked);

    // With synthesis on the device, a budget in which three fit only with B2 in turn and two fit
    // with B2 beside, every vector resident and the tables kept either way, gets two and B2 beside;
    // its proofs are the CPU's.
    gpu_key_options three_in_turn, three_beside, two_beside;
    three_in_turn.b2_beside = false;
    two_beside.abc = abc_on_device::two;
    const std::size_t e3_turn = estimate_device_bytes<TypeParam>(pk, three_in_turn, {});
    const std::size_t e3_beside = estimate_device_bytes<TypeParam>(pk, three_beside, {});
    const std::size_t between = std::max(e3_turn, estimate_device_bytes<TypeParam>(pk, two_beside, {}));
    ASSERT_LT(between, e3_beside);
    auto preferred = fit_to_budget<TypeParam>(pk, gpu_key_options{}, between);
    ASSERT_TRUE(preferred.is_ok()) << preferred.error().to_string();
    EXPECT_EQ(preferred->abc, abc_on_device::two);
    EXPECT_TRUE(preferred->b2_beside);
    EXPECT_TRUE(preferred->streamed.empty()) << preferred->streamed.to_string();
    EXPECT_EQ(preferred->twiddles, gpu::ntt_memory::tables);
    // Where two would give up something three keeps, three in turn stays: at e3_turn two fits
    // beside only with compact twiddles or a vector streamed, since B2's arena (G2 buckets for
    // thousands of points, megabytes) is larger than the n elements two frees (tens of KiB here).
    ASSERT_GT(estimate_device_bytes<TypeParam>(pk, two_beside, {}), e3_turn);
    auto kept = fit_to_budget<TypeParam>(pk, gpu_key_options{}, e3_turn);
    ASSERT_TRUE(kept.is_ok()) << kept.error().to_string();
    EXPECT_EQ(kept->abc, abc_on_device::three);
    EXPECT_FALSE(kept->b2_beside);
    gpu_key_options preferred_asked;
    preferred_asked.device_budget_bytes = between;
    expect_same_proofs_with<TypeParam>(pk, circuit.witness, key->dk.vk, m + 3, 1, synthesis_place::device,
                                       preferred_asked);
  }
}

// A key whose NTT plan keeps compact twiddles (gpu::ntt_memory::compact) at 2^20, where the
// transforms' passes with the largest stages compute their twiddles (stages of more than 2^18)
// and the coset powers come from split tables: the same proofs as the CPU prover.
TYPED_TEST(gpu_prover_test, compact_twiddles_match_cpu_and_verify) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(20, synth::witness_kind::mostly_boolean, 29);
  const auto cs = first_constraints(circuit.cs, (std::size_t{1} << 20) - 5000);
  ASSERT_EQ(cs.domain_size(), std::size_t{1} << 20);
  auto key = make_dev_key<TypeParam>(cs);
  ASSERT_TRUE(key.has_value());
  gpu_key_options o;
  o.twiddles = gpu::ntt_memory::compact;
  expect_same_proofs_with<TypeParam>(key->pk.view(), circuit.witness, key->dk.vk, 30, 2, synthesis_place::device, o);
}

TYPED_TEST(gpu_prover_test, rejects_mismatched_inputs) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto small = synth::make_synthetic_circuit<Fr>(4, synth::witness_kind::dense, 1);
  const auto other = synth::make_synthetic_circuit<Fr>(5, synth::witness_kind::dense, 1);
  auto k1 = make_dev_key<TypeParam>(small.cs);
  auto k2 = make_dev_key<TypeParam>(other.cs);
  ASSERT_TRUE(k1.has_value() && k2.has_value());
  auto gk = gpu_proving_key<TypeParam>::create(k1->pk.view());
  ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
  const gpu_context<TypeParam> ctx{*gk};
  auto wrong_key = prove_with<TypeParam>(k2->pk.view(), other.witness, Fr::one(), Fr::one(), nullptr, ctx);
  EXPECT_EQ(wrong_key.error().code(), errc::invalid_argument);
  std::vector<typename Fr::repr> short_w(small.witness.begin(), small.witness.end() - 1);
  auto wrong_w = prove_with<TypeParam>(k1->pk.view(), short_w, Fr::one(), Fr::one(), nullptr, ctx);
  EXPECT_EQ(wrong_w.error().code(), errc::invalid_argument);
  // The key still proves after the refusals.
  auto ok = prove_with<TypeParam>(k1->pk.view(), small.witness, Fr::one(), Fr::one(), nullptr, ctx);
  ASSERT_TRUE(ok.is_ok()) << ok.error().to_string();
  EXPECT_EQ(*ok, *prove_with<TypeParam>(k1->pk.view(), small.witness, Fr::one(), Fr::one()));
}

// The daemon's arrangement: keys without a workspace of their own sharing one kernel lock (one
// synthesizing on the device, one on the host into pinned memory), and two threads proving at
// once, each with its own workspace (the second alternating between the keys). Every proof equals
// the CPU's; the workspaces allocate on first use of each kind of buffer and never again.
TYPED_TEST(gpu_prover_test, workspaces_prove_concurrently_under_a_shared_kernel_lock) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto c1 = synth::make_synthetic_circuit<Fr>(12, synth::witness_kind::dense, 21);
  const auto c2 = synth::make_synthetic_circuit<Fr>(10, synth::witness_kind::mostly_boolean, 22);
  auto k1 = make_dev_key<TypeParam>(c1.cs);
  auto k2 = make_dev_key<TypeParam>(c2.cs);
  ASSERT_TRUE(k1.has_value() && k2.has_value());
  gpu_key_options o;
  o.kernel_lock = std::make_shared<kernel_gate>();
  o.workspace = key_workspace::none;
  auto g1 = gpu_proving_key<TypeParam>::create(k1->pk.view(), 0, o);
  o.synthesis = synthesis_place::host_pinned;  // the other path: a, b, c copied outside the lock
  auto g2 = gpu_proving_key<TypeParam>::create(k2->pk.view(), 0, o);
  ASSERT_TRUE(g1.is_ok() && g2.is_ok());
  EXPECT_EQ(&g1->kernel_lock(), &g2->kernel_lock());
  // Without a workspace of its own the short form refuses.
  EXPECT_EQ(prove_with<TypeParam>(k1->pk.view(), c1.witness, Fr::one(), Fr::one(), nullptr, gpu_context<TypeParam>{*g1}).error().code(),
            errc::invalid_argument);

  std::mt19937_64 rng(77);
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  const auto want1 = prove_with<TypeParam>(k1->pk.view(), c1.witness, r, s).value();
  const auto want2 = prove_with<TypeParam>(k2->pk.view(), c2.witness, r, s).value();
  auto worker = [&](bool both, int& mismatches, uint64_t& allocations, double& waited) {
    auto ws = gpu_workspace<TypeParam>::create(0);
    if (!ws) {
      ++mismatches;
      return;
    }
    for (int i = 0; i < 20; ++i) {
      const bool second = both && i % 2 == 1;
      phase_timings t;
      auto p = second ? prove_with<TypeParam>(k2->pk.view(), c2.witness, r, s, &t, gpu_context<TypeParam>{*g2, &*ws})
                      : prove_with<TypeParam>(k1->pk.view(), c1.witness, r, s, &t, gpu_context<TypeParam>{*g1, &*ws});
      mismatches += p.is_ok() && *p == (second ? want2 : want1) ? 0 : 1;
      waited += t.lock_wait * 1e3;
    }
    allocations = ws->allocations();
  };
  int bad_a = 0, bad_b = 0;
  uint64_t alloc_a = 0, alloc_b = 0;
  double wait_a = 0, wait_b = 0;
  {
    std::jthread a([&] { worker(false, bad_a, alloc_a, wait_a); });
    std::jthread b([&] { worker(true, bad_b, alloc_b, wait_b); });
  }
  EXPECT_EQ(bad_a, 0);
  EXPECT_EQ(bad_b, 0);
  EXPECT_EQ(alloc_a, 1u);
  // Once for the first key, once more for the second's pinned a | b | c; never again.
  EXPECT_EQ(alloc_b, 2u);
  std::printf("gpu_prove_concurrent curve=%s lock_wait_ms=%.1f+%.1f over 40 proofs\n", TypeParam::name, wait_a,
              wait_b);
}

// A lease on pinned buffers whose end runs `on_end` (a daemon's would return them to its pool).
template <class C>
struct counted_lease final : host_lease<C> {
  counted_lease(std::span<typename C::fr::repr> w, std::span<typename C::fr> abc, std::function<void()> f)
      : host_lease<C>(w, abc), on_end(std::move(f)) {}
  ~counted_lease() override { on_end(); }
  std::function<void()> on_end;
};

// A lender's pinned buffers (the daemon's pool) come back as soon as the copies have read them:
// with the kernel lock held elsewhere, before the proof gets its turn on the device; without
// contention by the end of the proof; once each. The proof made from them equals the CPU's.
TYPED_TEST(gpu_prover_test, lent_host_buffers_go_back_once_the_copies_have_read_them) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  using repr = typename Fr::repr;
  const auto c = synth::make_synthetic_circuit<Fr>(10, synth::witness_kind::dense, 31);
  auto k = make_dev_key<TypeParam>(c.cs);
  ASSERT_TRUE(k.has_value());
  const auto& pk = k->pk.view();
  gpu_key_options o;
  o.kernel_lock = std::make_shared<kernel_gate>();
  o.workspace = key_workspace::none;
  o.synthesis = synthesis_place::host_pinned;
  auto gk = gpu_proving_key<TypeParam>::create(pk, 0, o);
  ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
  auto ws = gpu_workspace<TypeParam>::create(0);
  ASSERT_TRUE(ws.is_ok());
  auto w = gpu::pinned_buffer<repr>::create(pk.n_vars);
  auto abc = gpu::pinned_buffer<Fr>::create(3 * pk.domain_size);
  ASSERT_TRUE(w.is_ok() && abc.is_ok());
  std::mt19937_64 rng(31);
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  const auto want = prove_with<TypeParam>(pk, c.witness, r, s).value();

  std::atomic<int> given_back{0};
  std::promise<void> back;
  ws->lend_host(std::make_unique<counted_lease<TypeParam>>(std::span(w->data(), pk.n_vars),
                                                          std::span(abc->data(), 3 * pk.domain_size), [&] {
                                                            if (given_back.fetch_add(1) == 0) back.set_value();
                                                          }));
  std::optional<result<formats::proof<TypeParam>>> got;
  {
    std::unique_lock held(gk->kernel_lock());  // another proof's kernels, as far as this one knows
    std::jthread prover([&] { got.emplace(prove_with<TypeParam>(pk, c.witness, r, s, nullptr, gpu_context<TypeParam>{*gk, &*ws})); });
    EXPECT_EQ(back.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready)
        << "the lent buffers were not given back while the proof waited for the device";
    EXPECT_FALSE(got.has_value());  // still waiting for the lock
    held.unlock();
  }
  ASSERT_TRUE(got.has_value() && got->is_ok()) << (got ? got->error().to_string() : "no result");
  EXPECT_EQ(**got, want);
  ws->unlend_host();
  EXPECT_EQ(given_back.load(), 1);

  // Uncontended: given back by the proof's end, once.
  int second = 0;
  ws->lend_host(std::make_unique<counted_lease<TypeParam>>(std::span(w->data(), pk.n_vars),
                                                          std::span(abc->data(), 3 * pk.domain_size),
                                                          [&] { ++second; }));
  auto p = prove_with<TypeParam>(pk, c.witness, r, s, nullptr, gpu_context<TypeParam>{*gk, &*ws});
  ASSERT_TRUE(p.is_ok()) << p.error().to_string();
  EXPECT_EQ(*p, want);
  EXPECT_EQ(second, 1);
  ws->unlend_host();
  EXPECT_EQ(second, 1);
}

std::size_t device_free_bytes() {
  std::size_t free = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  return free;
}

TYPED_TEST(gpu_prover_test, thousand_proofs_without_device_memory_growth) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(8, synth::witness_kind::mostly_boolean, 9);
  auto key = make_dev_key<TypeParam>(circuit.cs);
  ASSERT_TRUE(key.has_value());
  const auto& pk = key->pk.view();
  std::mt19937_64 rng(1000);
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  const auto expected = prove_with<TypeParam>(pk, circuit.witness, r, s);
  ASSERT_TRUE(expected.is_ok());

  // A first key and proof before measuring: the context's own one-time growth (the local-memory
  // reservation the MSM kernels' stack frames need) is not the key's.
  {
    auto warm = gpu_proving_key<TypeParam>::create(pk);
    ASSERT_TRUE(warm.is_ok()) << warm.error().to_string();
    ASSERT_TRUE(prove_with<TypeParam>(pk, circuit.witness, r, s, nullptr, gpu_context<TypeParam>{*warm}).is_ok());
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const std::size_t before_key = device_free_bytes();
  std::size_t after_first = 0, after_loop = 0;
  {
    auto gk = gpu_proving_key<TypeParam>::create(pk);
    ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
    auto first = prove_with<TypeParam>(pk, circuit.witness, r, s, nullptr, gpu_context<TypeParam>{*gk});
    ASSERT_TRUE(first.is_ok()) << first.error().to_string();
    ASSERT_EQ(*first, *expected);
    after_first = device_free_bytes();
    int mismatches = 0;
    for (int i = 0; i < 1000; ++i) {
      auto p = prove_with<TypeParam>(pk, circuit.witness, r, s, nullptr, gpu_context<TypeParam>{*gk});
      ASSERT_TRUE(p.is_ok()) << "proof " << i << ": " << p.error().to_string();
      mismatches += *p == *expected ? 0 : 1;
    }
    EXPECT_EQ(mismatches, 0);
    after_loop = device_free_bytes();
    // The MSMs ran in the workspace's three arenas, sized once by the key's count of their layouts
    // (key_msm_scratch), and kept no scratch of their own.
    auto& st = gk->state();
    EXPECT_EQ(st.own->witness_msm_scratch().allocations(), 1u);
    EXPECT_EQ(st.own->h_msm_scratch().allocations(), 1u);
    EXPECT_EQ(st.own->b2_msm_scratch().allocations(), 1u);
    for (const std::size_t own : {st.msm_a.own_scratch_bytes(), st.msm_b1.own_scratch_bytes(),
                                  st.msm_b2.own_scratch_bytes(), st.msm_c.own_scratch_bytes(),
                                  st.msm_h.own_scratch_bytes()})
      EXPECT_EQ(own, 0u);
  }
  const std::size_t after_key = device_free_bytes();
  std::printf(
      "gpu_prove_memory curve=%s resident_after_first=%zu growth_over_1000=%lld left_after_key=%lld\n",
      TypeParam::name, before_key - after_first,
      static_cast<long long>(after_first) - static_cast<long long>(after_loop),
      static_cast<long long>(before_key) - static_cast<long long>(after_key));
  EXPECT_EQ(after_loop, after_first) << "device memory changed over 1000 proofs";
  EXPECT_EQ(after_key, before_key) << "the key did not give back all its device memory";
}

}  // namespace
}  // namespace cuzk::groth16
