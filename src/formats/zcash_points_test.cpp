// SPDX-License-Identifier: MIT OR Apache-2.0
// ZCash BLS12-381 encodings for G1 and G2: the standard generator encodings, round trips in both
// forms, the sign flag, and every rejection with the field it must name.
#include "formats/zcash_points.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "ec/test_points.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/point_validation.hpp"

namespace cuzk::formats::zcash {
namespace {

std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}
template <std::size_t N>
std::vector<uint8_t> vec(const std::array<uint8_t, N>& a) {
  return {a.begin(), a.end()};
}

// The standard encodings of the generators (the BLS12-381 specification, and every library that
// follows ZCash).
TEST(ZcashKnownAnswer, Generators) {
  const auto g1 = from_hex(
      "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  const auto g2 = from_hex(
      "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
      "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
  EXPECT_EQ(vec(encode_compressed<bls12_381_g1>(bls12_381_g1::generator)), g1);
  EXPECT_EQ(vec(encode_compressed<bls12_381_g2>(bls12_381_g2::generator)), g2);
  const auto p1 = decode<bls12_381_g1>(g1);
  ASSERT_TRUE(p1.is_ok()) << p1.error().to_string();
  EXPECT_EQ(*p1, bls12_381_g1::generator);
  const auto p2 = decode<bls12_381_g2>(g2);
  ASSERT_TRUE(p2.is_ok()) << p2.error().to_string();
  EXPECT_EQ(*p2, bls12_381_g2::generator);
}

template <class G>
class ZcashPointTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{381};
  typename G::affine random_point() { return ec::testing::random_subgroup_point<G>(rng).to_affine(); }
};
using Groups = ::testing::Types<bls12_381_g1, bls12_381_g2>;
TYPED_TEST_SUITE(ZcashPointTest, Groups);

TYPED_TEST(ZcashPointTest, Infinity) {
  using G = TypeParam;
  std::vector<uint8_t> c(compressed_size<G>, 0), u(uncompressed_size<G>, 0);
  c[0] = 0xc0;
  u[0] = 0x40;
  EXPECT_EQ(vec(encode_compressed<G>(G::affine::infinity())), c);
  EXPECT_EQ(vec(encode_uncompressed<G>(G::affine::infinity())), u);
  for (const auto& bytes : {c, u}) {
    const auto p = decode<G>(bytes);
    ASSERT_TRUE(p.is_ok()) << p.error().to_string();
    EXPECT_TRUE(p->is_infinity());
  }
}

TYPED_TEST(ZcashPointTest, RoundTripsAndSign) {
  using G = TypeParam;
  for (int i = 0; i < 10; ++i) {
    const auto p = this->random_point();
    const auto c = encode_compressed<G>(p);
    const auto u = encode_uncompressed<G>(p);
    EXPECT_EQ(c[0] & 0xc0, 0x80);
    EXPECT_EQ(u[0] & 0xe0, 0x00);
    // -p differs only in the sign flag.
    auto cn = encode_compressed<G>(-p);
    EXPECT_EQ(c[0] ^ cn[0], 0x20);
    cn[0] = c[0];
    EXPECT_EQ(cn, c);
    for (const auto& q : {p, -p}) {
      const auto pc = decode_compressed<G>(encode_compressed<G>(q));
      ASSERT_TRUE(pc.is_ok()) << pc.error().to_string();
      EXPECT_EQ(*pc, q);
      const auto pu = decode_uncompressed<G>(encode_uncompressed<G>(q));
      ASSERT_TRUE(pu.is_ok()) << pu.error().to_string();
      EXPECT_EQ(*pu, q);
    }
    const auto pd = decode<G>(u);
    ASSERT_TRUE(pd.is_ok());
    EXPECT_EQ(*pd, p);
  }
}

TYPED_TEST(ZcashPointTest, Rejections) {
  using G = TypeParam;
  using Fq = base_field<G>;
  const std::string x_top = coordinate_label<G>('x', is_fp2<typename G::field> ? 1 : 0);
  const auto p = this->random_point();
  const auto c = vec(encode_compressed<G>(p));
  const auto u = vec(encode_uncompressed<G>(p));

  EXPECT_FORMAT_ERROR(decode_compressed<G>(u), errc::parse_error,
                      "expected " + std::to_string(compressed_size<G>) + " bytes, found " + std::to_string(uncompressed_size<G>));
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(c), errc::parse_error, "bytes");
  EXPECT_FORMAT_ERROR(decode<G>(std::vector<uint8_t>{}), errc::parse_error, "empty");
  EXPECT_FORMAT_ERROR(decode<G>(std::vector<uint8_t>(c.begin(), c.end() - 1)), errc::parse_error, "bytes");

  auto no_compression = c;
  no_compression[0] &= 0x7f;
  EXPECT_FORMAT_ERROR(decode_compressed<G>(no_compression), errc::parse_error, "compression flag clear");
  auto compression_in_u = u;
  compression_in_u[0] |= 0x80;
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(compression_in_u), errc::parse_error, "compression flag set");
  auto sign_in_u = u;
  sign_in_u[0] |= 0x20;
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(sign_in_u), errc::parse_error, "sign flag set");

  std::vector<uint8_t> inf_sign(compressed_size<G>, 0);
  inf_sign[0] = 0xe0;
  EXPECT_FORMAT_ERROR(decode_compressed<G>(inf_sign), errc::parse_error, "infinity flag");
  std::vector<uint8_t> inf_junk(compressed_size<G>, 0);
  inf_junk[0] = 0xc0;
  inf_junk[17] = 1;
  EXPECT_FORMAT_ERROR(decode_compressed<G>(inf_junk), errc::parse_error, "byte 17 is not zero");
  auto inf_with_x = c;
  inf_with_x[0] |= 0x40;
  EXPECT_FORMAT_ERROR(decode_compressed<G>(inf_with_x), errc::parse_error, "infinity flag");

  // x (its top component) equal to q: the 381 bits of q fit under the flags.
  std::vector<uint8_t> big(compressed_size<G>, 0);
  Fq::modulus.to_bytes_be(big.data());
  big[0] |= 0x80;
  EXPECT_FORMAT_ERROR(decode_compressed<G>(big), errc::out_of_range, " " + x_top + ": coordinate not below the modulus q");
  auto big_u = u;
  Fq::modulus.to_bytes_be(big_u.data());
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(big_u), errc::out_of_range, x_top + ": coordinate not below the modulus q (found 0x1a0111ea");

  // An x with no point above it.
  typename G::field x;
  do {
    x = G::field::random(this->rng);
  } while ((x.sqr() * x + G::b).sqrt());
  auto no_y = encode_compressed<G>(typename G::affine{x, G::field::one()});  // y only sets the sign
  EXPECT_FORMAT_ERROR(decode_compressed<G>(no_y), errc::not_on_curve, "not a square");

  auto off_curve = p;
  off_curve.y += G::field::one();
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(encode_uncompressed<G>(off_curve)), errc::not_on_curve,
                      "point: not on the curve y^2 = x^3 + ");

  const auto outside = ec::testing::random_curve_point<G>(this->rng);
  EXPECT_FORMAT_ERROR(decode_compressed<G>(encode_compressed<G>(outside)), errc::not_in_subgroup, "not in the subgroup");
  EXPECT_FORMAT_ERROR(decode_uncompressed<G>(encode_uncompressed<G>(outside)), errc::not_in_subgroup, "not in the subgroup");
}

}  // namespace
}  // namespace cuzk::formats::zcash
