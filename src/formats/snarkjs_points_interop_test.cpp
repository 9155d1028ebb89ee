// SPDX-License-Identifier: MIT OR Apache-2.0
// The points in proof.json and verification_key.json files written by snarkjs (tests/data/snarkjs,
// both curves): every one decodes with the subgroup check on, and encodes back to the same JSON.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/snarkjs_points.hpp"

namespace cuzk::formats::snarkjs {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

template <class G>
void expect_round_trip(const json& j, const std::string& what) {
  const auto p = from_json<G>(j, subgroup_check::check);
  ASSERT_TRUE(p.is_ok()) << what << ": " << p.error().to_string();
  EXPECT_FALSE(p->is_infinity()) << what;
  EXPECT_EQ(to_json<G>(*p), j) << what;
}

template <class C>
void check_fixture(const std::string& dir) {
  using G1 = typename groups<C>::g1_group;
  using G2 = typename groups<C>::g2_group;
  const json proof = read_json(dir + "/proof.json");
  ASSERT_FALSE(proof.is_discarded());
  EXPECT_EQ(proof["curve"], C::snarkjs_name);
  expect_round_trip<G1>(proof["pi_a"], dir + " pi_a");
  expect_round_trip<G2>(proof["pi_b"], dir + " pi_b");
  expect_round_trip<G1>(proof["pi_c"], dir + " pi_c");

  const json vk = read_json(dir + "/verification_key.json");
  ASSERT_FALSE(vk.is_discarded());
  expect_round_trip<G1>(vk["vk_alpha_1"], dir + " vk_alpha_1");
  for (const char* k : {"vk_beta_2", "vk_gamma_2", "vk_delta_2"}) expect_round_trip<G2>(vk[k], dir + " " + k);
  ASSERT_TRUE(vk["IC"].is_array());
  for (std::size_t i = 0; i < vk["IC"].size(); ++i) {
    expect_round_trip<G1>(vk["IC"][i], dir + " IC[" + std::to_string(i) + "]");
  }
  // gamma_2 is the G2 generator in every snarkjs key.
  EXPECT_EQ(*from_json<G2>(vk["vk_gamma_2"], subgroup_check::check), G2::generator);
}

const std::string data = CUZK_TEST_DATA_DIR "/snarkjs";

TEST(SnarkjsFixturePoints, Bn128) {
  check_fixture<bn254>(data + "/bn128");
  check_fixture<bn254>(data + "/bn128/poseidon");
}
TEST(SnarkjsFixturePoints, Bls12381) {
  check_fixture<bls12_381>(data + "/bls12381");
  check_fixture<bls12_381>(data + "/bls12381/poseidon");
}

}  // namespace
}  // namespace cuzk::formats::snarkjs
