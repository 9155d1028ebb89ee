// SPDX-License-Identifier: MIT OR Apache-2.0
// Our vk_alphabeta_12 reproduces the one snarkjs wrote into the committed verification keys, byte
// for byte once serialized; and development setup's keys carry it.
#include "groth16/alphabeta.hpp"

#include <gtest/gtest.h>

#include <string>

#include "curves/per_curve_test.hpp"
#include "groth16/setup.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class C> using AlphabetaTest = per_curve_test<C>;
TYPED_TEST_SUITE(AlphabetaTest, both_curves);

TYPED_TEST(AlphabetaTest, MatchesSnarkjsFixtures) {
  for (const char* sub : {"", "/poseidon"}) {
    const std::string path = std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/" + TypeParam::snarkjs_name + sub +
                             "/verification_key.json";
    SCOPED_TRACE(path);
    const auto vk = formats::read_verification_key_json<TypeParam>(path);
    ASSERT_TRUE(vk.is_ok()) << vk.error().to_string();
    ASSERT_TRUE(vk->alphabeta_12.has_value());
    auto ours = *vk;
    ours.alphabeta_12.reset();
    add_alphabeta_12(ours);
    EXPECT_EQ(*ours.alphabeta_12, *vk->alphabeta_12);
    EXPECT_EQ(formats::verification_key_to_json(ours), formats::verification_key_to_json(*vk));
  }
}

TYPED_TEST(AlphabetaTest, DevelopmentSetupIncludesIt) {
  const auto circuit = synth::make_synthetic_circuit<typename TypeParam::fr>(4, synth::witness_kind::dense);
  const auto dk = development_setup<TypeParam>(circuit.cs);
  ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
  ASSERT_TRUE(dk->vk.alphabeta_12.has_value());
  EXPECT_EQ(*dk->vk.alphabeta_12, alphabeta_12_json<TypeParam>(dk->vk.alpha1, dk->vk.beta2));
}

}  // namespace
}  // namespace cuzk::groth16
