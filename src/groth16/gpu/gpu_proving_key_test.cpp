// SPDX-License-Identifier: MIT OR Apache-2.0
// A GPU proving key's device bytes (gpu_proving_key.hpp): what its counting arena handed out is,
// to the byte, what estimate_device_bytes() says a key of that placement takes (with no workspace:
// the key's own), for both curves, at every placement a key can have: all resident with synthesis
// on the device (points, plan and matrices) and on the host (no matrices), compact twiddles, H
// alone and every vector streamed, what a budget just below the whole key chooses, two of a, b, c
// on the device, and a snarkjs zkey's key mapped from its file. A key made with its own workspace
// counts the key alone (the workspace's bytes are its own device_bytes()). The keys still prove:
// the CPU prover's proof, bit for bit.
#include "groth16/gpu/gpu_proving_key.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/gpu_prover_test_util.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class gpu_proving_key_test : public ::testing::Test {};
TYPED_TEST_SUITE(gpu_proving_key_test, test::both_curves);

std::string data_dir() {
  const char* env = std::getenv("CUZK_TEST_DATA_DIR");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(CUZK_TEST_DATA_DIR);
}

// The key made with `asked` on device 0: its arena's bytes against the estimate of the placement
// it has (the streamed vectors and twiddles a budget chose), with no workspace; and one proof,
// equal to the CPU prover's.
template <class C>
void expect_estimate_is_allocated(const proving_key_view<C>& pk, std::span<const typename C::fr::repr> witness,
                                  const gpu_key_options& asked) {
  using Fr = typename C::fr;
  auto gk = gpu_proving_key<C>::create(pk, 0, asked);
  ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
  gpu_key_options placed = asked;
  placed.device_budget_bytes.reset();
  placed.workspace = key_workspace::none;
  placed.twiddles = gk->twiddles();
  placed.stream_chunk_points = gk->stream_chunk_points();
  placed.b2_beside = gk->b2_beside();
  placed.abc = gk->abc();
  const std::size_t estimate = estimate_device_bytes<C>(pk, placed, gk->streamed());
  EXPECT_EQ(gk->resident_bytes(), estimate)
      << "streamed " << gk->streamed().to_string() << ", twiddles "
      << (gk->twiddles() == gpu::ntt_memory::compact ? "compact" : "tables");
  EXPECT_GT(gk->state().arena.allocations(), 0u);  // the plan at least
  // The points a resident vector brings are in it: one vector streamed takes its bytes off.
  if (!gk->streamed().contains(key_vector::h)) {
    EXPECT_EQ(estimate_device_bytes<C>(pk, placed, gk->streamed().with(key_vector::h)) + pk.h.size_bytes(),
              estimate);
  }
  std::mt19937_64 rng(pk.n_vars);
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto cpu = prove_with<C>(pk, witness, r, s);
  ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
  std::optional<gpu_workspace<C>> ws;
  if (asked.workspace == key_workspace::none) {
    auto made = gpu_workspace<C>::create(0);
    ASSERT_TRUE(made.is_ok()) << made.error().to_string();
    ws.emplace(std::move(made).value());
  }
  auto gpu = prove_with<C>(pk, witness, r, s, nullptr, gpu_context<C>{*gk, ws ? &*ws : nullptr});
  ASSERT_TRUE(gpu.is_ok()) << gpu.error().to_string();
  EXPECT_EQ(*gpu, *cpu);
  // Proving allocates nothing from the key's arena: its bytes are the key's for its lifetime.
  EXPECT_EQ(gk->resident_bytes(), estimate);
}

TYPED_TEST(gpu_proving_key_test, the_estimate_is_what_the_key_allocated) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  using Fr = typename C::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(12, synth::witness_kind::mostly_boolean, 51);
  auto dk = development_setup<C>(circuit.cs);
  ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
  auto owned = proving_key<C>::from_key_data(dk->key);
  ASSERT_TRUE(owned.is_ok()) << owned.error().to_string();
  const auto& pk = owned->view();

  struct config {
    std::string name;
    gpu_key_options options;
  };
  std::vector<config> configs;
  configs.push_back({"resident, synthesis on the device, own workspace", {}});
  configs.push_back({"resident, synthesis on the device", {}});
  configs.back().options.workspace = key_workspace::none;
  configs.push_back({"resident, synthesis on the host", gpu_key_options(synthesis_place::host_pinned)});
  configs.push_back({"compact twiddles", {}});
  configs.back().options.twiddles = gpu::ntt_memory::compact;
  configs.push_back({"H streamed", {}});
  configs.back().options.streamed = key_vector_set().with(key_vector::h);
  configs.push_back({"every vector streamed in ranges of 333", {}});
  configs.back().options.streamed = key_vector_set::all();
  configs.back().options.stream_chunk_points = 333;
  configs.push_back({"two of a, b, c on the device, B2 and H streamed", gpu_key_options(synthesis_place::host_pinned)});
  configs.back().options.abc = abc_on_device::two;
  configs.back().options.streamed = key_vector_set().with(key_vector::b2).with(key_vector::h);
  configs.push_back({"two of a, b, c on the device, synthesis on the device", {}});
  configs.back().options.abc = abc_on_device::two;
  {
    // Just below the whole key with its workspace: the budget's own choice of twiddles and vectors.
    gpu_key_options o;
    o.stream_chunk_points = 256;
    const std::size_t whole = estimate_device_bytes<C>(pk, o, {});
    o.device_budget_bytes = whole - 1;
    configs.push_back({"a budget just below the whole key", o});
  }
  for (const auto& c : configs) {
    SCOPED_TRACE(c.name);
    expect_estimate_is_allocated<C>(pk, circuit.witness, c.options);
  }
}

// A snarkjs zkey's key, mapped from its file (the daemon's warm tier): its matrices from the
// file's coefficients.
TYPED_TEST(gpu_proving_key_test, the_estimate_of_a_zkey_is_what_its_key_allocated) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  const std::string dir = data_dir() + "/snarkjs/" + C::snarkjs_name + "/poseidon/";
  auto zk = formats::zkey<C>::open(dir + "circuit.zkey");
  ASSERT_TRUE(zk.is_ok()) << zk.error().to_string();
  auto pk = proving_key<C>::from_zkey(*zk);
  ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
  auto wt = formats::wtns::open(dir + "circuit.wtns");
  ASSERT_TRUE(wt.is_ok()) << wt.error().to_string();
  auto w = witness_of<C>(*wt);
  ASSERT_TRUE(w.is_ok()) << w.error().to_string();
  for (const synthesis_place place : {synthesis_place::device, synthesis_place::host_pinned}) {
    SCOPED_TRACE(synthesis_place_name(place));
    gpu_key_options o(place);
    o.workspace = key_workspace::none;
    expect_estimate_is_allocated<C>(pk->view(), *w, o);
    o.streamed = key_vector_set().with(key_vector::b2);
    expect_estimate_is_allocated<C>(pk->view(), *w, o);
  }
}

}  // namespace
}  // namespace cuzk::groth16
