// SPDX-License-Identifier: MIT OR Apache-2.0
// A development setup's fixed-base products on the GPU (gpu/fixed_base.hpp, gpu_setup.hpp) against
// the CPU comb (groth16/fixed_base.hpp), for both curves' G1 and G2: the same points bit for bit,
// for scalars 0, 1, 2, r - 1 and random ones, in counts that are not multiples of a thread's
// points (8) and, for G1, across a range boundary (gpu::device_fixed_base::range); with small and
// large windows. Then a whole setup with the GPU engine gives the CPU setup's key for the same
// toxic waste, and a table of the wrong length is refused.
// Without a CUDA device every test is skipped with a message.
#include "groth16/gpu/gpu_setup.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gpu/fixed_base.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/gpu/gpu_prover_test_util.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class gpu_setup_test : public ::testing::Test {};
TYPED_TEST_SUITE(gpu_setup_test, test::both_curves);

// `count` scalars: 0, 1, 2, r - 1 first, then random ones.
template <class Fr>
std::vector<Fr> scalars_with_edges(std::size_t count, std::mt19937_64& rng) {
  std::vector<Fr> s;
  for (const Fr& e : {Fr::zero(), Fr::one(), Fr::from_uint(2), -Fr::one()})
    if (s.size() < count) s.push_back(e);
  while (s.size() < count) s.push_back(Fr::random(rng));
  return s;
}

// The device's points for `count` scalars against the CPU comb's, with a table of `window` bits.
template <class G>
void expect_same_points(std::size_t count, unsigned window, std::mt19937_64& rng) {
  SCOPED_TRACE(std::string(G::name) + ", " + std::to_string(count) + " scalars, window " + std::to_string(window));
  const fixed_base_table<G> table(G::generator, window);
  auto dev = gpu::device_fixed_base<G>::create(0, table.entries(), table.window_bits());
  ASSERT_TRUE(dev.is_ok()) << dev.error().to_string();
  const auto s = scalars_with_edges<typename G::scalar>(count, rng);
  std::vector<typename G::affine> want(count), got(count);
  fixed_base_mul<G>(table, s, want);
  const status st = dev->mul(s, got);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (!(got[i] == want[i]) && ++bad <= 3) ADD_FAILURE() << "point " << i << " differs";
  EXPECT_EQ(bad, 0u);
  if (count > 0) {
    EXPECT_TRUE(got[0].is_infinity()) << "[0]P";
  }
  if (count > 1) {
    EXPECT_TRUE(got[1] == G::generator) << "[1]P";
  }
}

TYPED_TEST(gpu_setup_test, device_points_equal_the_cpu_comb) {
  CUZK_REQUIRE_GPU();
  using G1 = g1_group<TypeParam>;
  using G2 = g2_group<TypeParam>;
  std::mt19937_64 rng(0x5e7u);
  for (const std::size_t count : {std::size_t{1}, std::size_t{4}, std::size_t{9}, std::size_t{1000}}) {
    expect_same_points<G1>(count, 4, rng);
    expect_same_points<G2>(count, 4, rng);
  }
  expect_same_points<G1>(4099, 13, rng);
  expect_same_points<G2>(4099, 16, rng);
  expect_same_points<G1>(gpu::device_fixed_base<G1>::range + 13, 16, rng);
}

TYPED_TEST(gpu_setup_test, refuses_a_table_of_another_length_and_mismatched_spans) {
  CUZK_REQUIRE_GPU();
  using G1 = g1_group<TypeParam>;
  const fixed_base_table<G1> table(G1::generator, 4);
  const auto entries = table.entries();
  auto shorter = gpu::device_fixed_base<G1>::create(0, entries.first(entries.size() - 1), 4);
  ASSERT_FALSE(shorter.is_ok());
  EXPECT_NE(shorter.error().to_string().find("table: expected"), std::string::npos) << shorter.error().to_string();
  auto wide = gpu::device_fixed_base<G1>::create(0, entries, 17);
  EXPECT_FALSE(wide.is_ok());
  auto dev = gpu::device_fixed_base<G1>::create(0, entries, 4);
  ASSERT_TRUE(dev.is_ok()) << dev.error().to_string();
  std::vector<typename G1::scalar> s(3);
  std::vector<typename G1::affine> out(2);
  EXPECT_EQ(dev->mul(s, out).code(), errc::invalid_argument);
}

// A whole setup on the GPU engine is the CPU setup, section by section, for the same toxic waste.
TYPED_TEST(gpu_setup_test, setup_with_the_gpu_engine_gives_the_cpu_key) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(0x5e70u);
  const auto circuit = synth::make_synthetic_circuit<Fr>(10, synth::witness_kind::dense, 3);
  const toxic_waste<TypeParam> tw{Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng),
                                  Fr::random(rng)};
  auto cpu = setup<TypeParam>(circuit.cs, tw);
  ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
  auto engine = gpu_fixed_base_engine<TypeParam>(0, 3 * circuit.cs.n_vars + circuit.cs.domain_size(),
                                                 circuit.cs.n_vars);
  ASSERT_TRUE(engine.is_ok()) << engine.error().to_string();
  auto gpu = setup<TypeParam>(circuit.cs, tw, *engine);
  ASSERT_TRUE(gpu.is_ok()) << gpu.error().to_string();
  const auto& a = cpu->key;
  const auto& b = gpu->key;
  EXPECT_TRUE(a.a == b.a);
  EXPECT_TRUE(a.b1 == b.b1);
  EXPECT_TRUE(a.b2 == b.b2);
  EXPECT_TRUE(a.c == b.c);
  EXPECT_TRUE(a.ic == b.ic);
  EXPECT_TRUE(a.h == b.h);
  EXPECT_TRUE(a.alpha1 == b.alpha1 && a.beta1 == b.beta1 && a.delta1 == b.delta1);
  EXPECT_TRUE(a.beta2 == b.beta2 && a.gamma2 == b.gamma2 && a.delta2 == b.delta2);
  EXPECT_TRUE(cpu->vk.ic == gpu->vk.ic);
}

}  // namespace
}  // namespace cuzk::groth16
