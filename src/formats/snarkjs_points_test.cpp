// SPDX-License-Identifier: MIT OR Apache-2.0
// snarkjs point encodings for G1 and G2 of both curves: known answers printed by snarkjs 0.7.6
// (ffjavascript), round trips, and every rejection with the field it must name.
#include "formats/snarkjs_points.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/test_points.hpp"
#include "formats/formats_test_util.hpp"

namespace cuzk::formats::snarkjs {
namespace {

using nlohmann::json;

std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

template <class G>
std::vector<uint8_t> encode(const typename G::affine& p) {
  std::vector<uint8_t> out(binary_size<G>);
  encode_binary<G>(p, std::span<uint8_t, binary_size<G>>(out.data(), binary_size<G>));
  return out;
}

template <class G>
class SnarkjsPointTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{2024};
  typename G::affine random_point() { return ec::testing::random_subgroup_point<G>(rng).to_affine(); }
  // The label of the first coordinate component: "x" for G1, "x.c0" for G2.
  static std::string x0() { return coordinate_label<G>('x', 0); }
  static std::string x_last() { return coordinate_label<G>('x', 1); }
};
using Groups = ::testing::Types<bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2>;
TYPED_TEST_SUITE(SnarkjsPointTest, Groups);

TYPED_TEST(SnarkjsPointTest, BinaryRoundTrip) {
  using G = TypeParam;
  for (int i = 0; i < 10; ++i) {
    const auto p = this->random_point();
    const auto bytes = encode<G>(p);
    for (const auto check : {subgroup_check::skip, subgroup_check::check}) {
      const auto back = decode_binary<G>(bytes, check);
      ASSERT_TRUE(back.is_ok()) << back.error().to_string();
      EXPECT_EQ(*back, p);
    }
  }
}

TYPED_TEST(SnarkjsPointTest, BinaryInfinityIsAllZero) {
  using G = TypeParam;
  const auto bytes = encode<G>(G::affine::infinity());
  EXPECT_EQ(bytes, std::vector<uint8_t>(binary_size<G>, 0));
  const auto back = decode_binary<G>(bytes, subgroup_check::check);
  ASSERT_TRUE(back.is_ok());
  EXPECT_TRUE(back->is_infinity());
}

TYPED_TEST(SnarkjsPointTest, BinaryRejections) {
  using G = TypeParam;
  using Fq = base_field<G>;
  const auto p = this->random_point();
  auto bytes = encode<G>(p);

  auto shorter = bytes;
  shorter.pop_back();
  EXPECT_FORMAT_ERROR(decode_binary<G>(shorter, subgroup_check::skip), errc::parse_error, "expected " + std::to_string(binary_size<G>) + " bytes, found " + std::to_string(binary_size<G> - 1));
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_FORMAT_ERROR(decode_binary<G>(longer, subgroup_check::skip), errc::parse_error, "bytes");

  // The last x component set to q itself: not a reduced Montgomery value.
  auto unreduced = bytes;
  Fq::modulus.to_bytes_le(unreduced.data() + (sizeof(typename G::field) - sizeof(Fq)));
  EXPECT_FORMAT_ERROR(decode_binary<G>(unreduced, subgroup_check::skip), errc::out_of_range, " " + this->x_last() + ": Montgomery coordinate not below the modulus q");

  auto off_curve = p;
  off_curve.y += G::field::one();
  EXPECT_FORMAT_ERROR(decode_binary<G>(encode<G>(off_curve), subgroup_check::skip), errc::not_on_curve, G::name + std::string(" point: not on the curve y^2 = x^3 + "));

  if (G::cofactor.bit_length() > 1) {
    const auto outside = ec::testing::random_curve_point<G>(this->rng);
    ASSERT_FALSE(ec::in_subgroup_by_order<G>(outside));
    EXPECT_FORMAT_ERROR(decode_binary<G>(encode<G>(outside), subgroup_check::check), errc::not_in_subgroup, "not in the subgroup");
    EXPECT_TRUE(decode_binary<G>(encode<G>(outside), subgroup_check::skip).is_ok());
  }
}

TYPED_TEST(SnarkjsPointTest, JsonRoundTrip) {
  using G = TypeParam;
  for (int i = 0; i < 10; ++i) {
    const auto p = this->random_point();
    const json j = to_json<G>(p);
    const auto back = from_json<G>(json::parse(j.dump()), subgroup_check::check);
    ASSERT_TRUE(back.is_ok()) << back.error().to_string();
    EXPECT_EQ(*back, p);
    // The affine form without z is accepted too.
    const auto two = from_json<G>(json::array({j[0], j[1]}), subgroup_check::check);
    ASSERT_TRUE(two.is_ok()) << two.error().to_string();
    EXPECT_EQ(*two, p);
  }
}

TYPED_TEST(SnarkjsPointTest, JsonInfinity) {
  using G = TypeParam;
  const json snarkjs_form = is_fp2<typename G::field>
                                ? json::parse(R"([["0","0"],["1","0"],["0","0"]])")
                                : json::parse(R"(["0","1","0"])");
  const json affine_form = is_fp2<typename G::field>
                               ? json::parse(R"([["0","0"],["0","0"],["1","0"]])")
                               : json::parse(R"(["0","0","1"])");
  EXPECT_EQ(to_json<G>(G::affine::infinity()), snarkjs_form);
  for (const json& j : {snarkjs_form, affine_form}) {
    const auto p = from_json<G>(j, subgroup_check::check);
    ASSERT_TRUE(p.is_ok()) << p.error().to_string();
    EXPECT_TRUE(p->is_infinity());
  }
}

TYPED_TEST(SnarkjsPointTest, JsonRejections) {
  using G = TypeParam;
  using Fq = base_field<G>;
  const auto p = this->random_point();
  const json good = to_json<G>(p);
  // The innermost string of the first x component, wherever it sits.
  auto with_x0 = [&](const json& v) {
    json j = good;
    if constexpr (is_fp2<typename G::field>) j[0][0] = v;
    else j[0] = v;
    return j;
  };
  EXPECT_FORMAT_ERROR(from_json<G>(json::object(), subgroup_check::skip), errc::parse_error, "expected an array");
  EXPECT_FORMAT_ERROR(from_json<G>(json::array({good[0]}), subgroup_check::skip), errc::parse_error, "expected an array");
  EXPECT_FORMAT_ERROR(from_json<G>(with_x0(json(1)), subgroup_check::skip), errc::parse_error, this->x0() + ": expected a decimal string");
  EXPECT_FORMAT_ERROR(from_json<G>(with_x0("0x1"), subgroup_check::skip), errc::parse_error, this->x0() + ": expected a decimal string");
  EXPECT_FORMAT_ERROR(from_json<G>(with_x0("-1"), subgroup_check::skip), errc::parse_error, this->x0());
  EXPECT_FORMAT_ERROR(from_json<G>(with_x0(""), subgroup_check::skip), errc::parse_error, this->x0());
  EXPECT_FORMAT_ERROR(from_json<G>(with_x0(Fq::modulus.to_decimal()), subgroup_check::skip), errc::out_of_range,
                      this->x0() + ": coordinate not below the modulus q (found " + Fq::modulus.to_decimal());
  if constexpr (is_fp2<typename G::field>) {
    json flat = good;
    flat[0] = "1";
    EXPECT_FORMAT_ERROR(from_json<G>(flat, subgroup_check::skip), errc::parse_error, "x: expected an array of two");
  }
  json bad_z = good;
  const auto two = G::field::one().dbl();
  bad_z[2] = to_json<G>(typename G::affine{two, two})[0];  // z = 2
  EXPECT_FORMAT_ERROR(from_json<G>(bad_z, subgroup_check::skip), errc::parse_error, "z: expected 1 (affine) or 0 (infinity)");
  json bad_inf = to_json<G>(G::affine::infinity());
  bad_inf[0] = good[0];
  EXPECT_FORMAT_ERROR(from_json<G>(bad_inf, subgroup_check::skip), errc::parse_error, "z = 0");

  auto off_curve = p;
  off_curve.y += G::field::one();
  EXPECT_FORMAT_ERROR(from_json<G>(to_json<G>(off_curve), subgroup_check::skip), errc::not_on_curve, "not on the curve");
  if (G::cofactor.bit_length() > 1) {
    const auto outside = ec::testing::random_curve_point<G>(this->rng);
    EXPECT_FORMAT_ERROR(from_json<G>(to_json<G>(outside), subgroup_check::check), errc::not_in_subgroup, "not in the subgroup");
    EXPECT_TRUE(from_json<G>(to_json<G>(outside), subgroup_check::skip).is_ok());
  }
}

// Printed by snarkjs 0.7.6: curve.G1.toRprLEM(buf, 0, curve.G1.g) and
// stringifyBigInts(curve.G1.toObject(curve.G1.toAffine(g))).
TEST(SnarkjsPointKnownAnswer, Generators) {
  EXPECT_EQ(encode<bn254_g1>(bn254_g1::generator),
            from_hex("9d0d8fc58d435dd33d0bc7f528eb780a2c4679786fa36e662fdf079ac1770a0e"
                     "3a1b1e8b1b87baa67b168eeb51d6f114588cf2f0de46ddcc5ebe0f3483ef141c"));
  EXPECT_EQ(encode<bls12_381_g1>(bls12_381_g1::generator),
            from_hex("160c53fd9087b35cf5ff769967fc1778c1a13b14c7954f1547e7d0f3cd6aaef040f4db21cc6eceed75fb0b9e417701"
                     "127122e70cd593acba8efd18791a63228cce250757135f59dd945140502958ac51c05900ad3f8c1c0e6aa20850fc3ebc0b"));
  EXPECT_EQ(to_json<bn254_g1>(bn254_g1::generator), json::parse(R"(["1","2","1"])"));
  EXPECT_EQ(to_json<bn254_g2>(bn254_g2::generator),
            json::parse(R"([["10857046999023057135944570762232829481370756359578518086990519993285655852781",
                              "11559732032986387107991004021392285783925812861821192530917403151452391805634"],
                             ["8495653923123431417604973247489272438418190587263600148770280649306958101930",
                              "4082367875863433681332203403145435568316851327593401208105741076214120093531"],
                             ["1","0"]])"));
  EXPECT_EQ(to_json<bls12_381_g1>(bls12_381_g1::generator),
            json::parse(R"(["3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507",
                             "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569",
                             "1"])"));
}

}  // namespace
}  // namespace cuzk::formats::snarkjs
