// SPDX-License-Identifier: MIT OR Apache-2.0
// The prover contract (groth16/prover.hpp): prove_with(pk, witness, r, s, timings, context) is
// one call whichever context it is given. One function below proves through it for any context;
// the test runs it with the CPU context and, where a CUDA device answers, with the GPU context on
// the same key, witness, r and s, and requires the same proof bit for bit, a proof that verifies,
// and the phase timings every layer above reads. Without a device the CPU half still runs and the
// GPU half is skipped with a message.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>

#include "groth16/circuit_io.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

// One proof through the contract, with the checks that hold for every prover: the proof verifies
// and the phases the engine and the CLI report are filled.
template <class C, class Context>
formats::proof<C> prove_through_contract(const proving_key_view<C>& pk, std::span<const typename C::fr::repr> w,
                                         const formats::verification_key<C>& vk, const typename C::fr& r,
                                         const typename C::fr& s, const Context& where) {
  phase_timings t;
  auto proof = prove_with<C>(pk, w, r, s, &t, where);
  EXPECT_TRUE(proof.is_ok()) << proof.error().to_string();
  if (!proof) return {};
  const status v = verify<C>(vk, public_signals_of<C>(w, pk.n_public), *proof);
  EXPECT_TRUE(v.is_ok()) << v.to_string();
  EXPECT_GT(t.total, 0.0);
  EXPECT_GT(t.ntt, 0.0);
  EXPECT_GT(t.msm_a, 0.0);
  EXPECT_GT(t.msm_b2, 0.0);
  EXPECT_GT(t.msm_h, 0.0);
  EXPECT_GE(t.after_synthesis(), 0.0);
  return *proof;
}

// For both witness shapes: the CPU proof through the contract, then (where a device answers) the
// GPU proof through the same call, and the two compared.
template <class C>
void expect_cpu_and_gpu_agree() {
  using Fr = typename C::fr;
  const auto choice = choose_prover(prover_kind::automatic);  // automatic always answers
  const bool gpu = choice->kind == prover_kind::gpu;
  std::mt19937_64 rng(20261201);
  // A power-of-two domain with a dense witness, and a mostly-0/1 one.
  for (const auto kind : {synth::witness_kind::dense, synth::witness_kind::mostly_boolean}) {
    SCOPED_TRACE(kind == synth::witness_kind::dense ? "dense" : "mostly 0/1");
    const auto circuit = synth::make_synthetic_circuit<Fr>(10, kind, 7);
    auto dk = development_setup<C>(circuit.cs);
    ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
    auto pk = proving_key<C>::from_key_data(dk->key);
    ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
    const Fr r = Fr::random(rng), s = Fr::random(rng);
    const std::span<const typename Fr::repr> w(circuit.witness);

    const auto on_cpu = prove_through_contract<C>(pk->view(), w, dk->vk, r, s, cpu_context{});
    if (!gpu) continue;
    auto gk = gpu_proving_key<C>::create(pk->view());
    ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
    const auto on_gpu = prove_through_contract<C>(pk->view(), w, dk->vk, r, s, gpu_context<C>{*gk});
    EXPECT_EQ(on_gpu, on_cpu);
  }
  if (!gpu)
    GTEST_SKIP() << "the GPU half: no usable CUDA device (" << choice->reason
                 << "); the gpu tests need an NVIDIA GPU (scripts/gpu/prove_check.sh)";
}

TEST(prover_contract, cpu_and_gpu_give_the_same_bn254_proof_through_one_interface) {
  expect_cpu_and_gpu_agree<bn254>();
}

TEST(prover_contract, cpu_and_gpu_give_the_same_bls12_381_proof_through_one_interface) {
  expect_cpu_and_gpu_agree<bls12_381>();
}

}  // namespace
}  // namespace cuzk::groth16
