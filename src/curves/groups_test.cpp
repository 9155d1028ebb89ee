// SPDX-License-Identifier: MIT OR Apache-2.0
// The curve groups of both curves: generators, cofactors, and the fast subgroup checks against
// the definition [r]P = O on points inside and outside the subgroup.
#include <gtest/gtest.h>

#include <random>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/group.hpp"
#include "ec/test_points.hpp"

namespace cuzk {
namespace {

template <class G>
class GroupTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x6a09e667 ^ sizeof(typename G::field)};
};
using Groups = ::testing::Types<bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2>;
TYPED_TEST_SUITE(GroupTest, Groups);

TYPED_TEST(GroupTest, GeneratorOnCurveInSubgroupOfOrderR) {
  using G = TypeParam;
  EXPECT_FALSE(G::generator.is_infinity());
  EXPECT_TRUE(ec::is_on_curve<G>(G::generator));
  EXPECT_TRUE(ec::in_subgroup_by_order<G>(G::generator));
  EXPECT_TRUE(ec::is_in_subgroup<G>(G::generator));
  EXPECT_TRUE(ec::is_in_subgroup<G>(G::affine::infinity()));
}

// The fast check agrees with [r]P = O on subgroup points and on arbitrary curve points (which,
// for a cofactor above 1, are almost never in the subgroup), and cofactor clearing lands in the
// subgroup.
TYPED_TEST(GroupTest, SubgroupCheckAgreesWithOrder) {
  using G = TypeParam;
  const bool cofactor_one = G::cofactor.bit_length() == 1;
  int outside = 0;
  for (int i = 0; i < 12; ++i) {
    const auto in = ec::testing::random_subgroup_point<G>(this->rng).to_affine();
    EXPECT_TRUE(G::in_subgroup_given_on_curve(in));
    const auto any = ec::testing::random_curve_point<G>(this->rng);
    const bool by_order = ec::in_subgroup_by_order<G>(any);
    EXPECT_EQ(G::in_subgroup_given_on_curve(any), by_order);
    EXPECT_EQ(ec::is_in_subgroup<G>(any), by_order);
    outside += by_order ? 0 : 1;
    // Points of small order times a subgroup point: in E, outside G, whenever `any` is outside.
    const auto mixed = (ec::clear_cofactor<G>(any) + any).to_affine();
    EXPECT_EQ(G::in_subgroup_given_on_curve(mixed), ec::in_subgroup_by_order<G>(mixed));

    const auto cleared = ec::clear_cofactor<G>(any).to_affine();
    EXPECT_TRUE(ec::in_subgroup_by_order<G>(cleared));
    EXPECT_TRUE(G::in_subgroup_given_on_curve(cleared));
    EXPECT_FALSE(cleared.is_infinity());
  }
  if (cofactor_one) {
    EXPECT_EQ(outside, 0);
  } else {
    EXPECT_EQ(outside, 12);
  }
}

// The order of a random curve point divides h * r, so [r]([h]P) = O.
TYPED_TEST(GroupTest, CofactorTimesOrderKillsEveryPoint) {
  using G = TypeParam;
  for (int i = 0; i < 4; ++i) {
    const auto p = ec::testing::random_curve_point<G>(this->rng);
    EXPECT_TRUE(ec::scalar_mul(ec::clear_cofactor<G>(p), G::scalar::modulus).is_infinity());
  }
}

TEST(GroupConstants, KnownCofactors) {
  EXPECT_EQ(bls12_381_family::h1.to_hex(), "0x396c8c005555e1568c00aaab0000aaab");
  EXPECT_EQ(bls12_381_family::h2.to_hex(),
            "0x5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5");
  // 2q - r.
  auto h = bn254::fq::modulus;
  h.add_in_place(bn254::fq::modulus);
  h.sub_in_place(bn254::fr::modulus);
  EXPECT_EQ(bn254_g2::cofactor, h);
}

// The endomorphisms are endomorphisms: they map the curve to itself and are additive.
TEST(GroupEndomorphisms, AreAdditiveMapsOfTheCurve) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 4; ++i) {
    const auto p = ec::testing::random_curve_point<bn254_g2>(rng), q = ec::testing::random_curve_point<bn254_g2>(rng);
    EXPECT_TRUE(ec::is_on_curve<bn254_g2>(bn254_g2::psi(p)));
    EXPECT_EQ(bn254_g2::psi((bn254_g2::jacobian::from_affine(p) + q).to_affine()),
              (bn254_g2::jacobian::from_affine(bn254_g2::psi(p)) + bn254_g2::psi(q)).to_affine());
    const auto a = ec::testing::random_curve_point<bls12_381_g2>(rng), b = ec::testing::random_curve_point<bls12_381_g2>(rng);
    EXPECT_TRUE(ec::is_on_curve<bls12_381_g2>(bls12_381_g2::psi(a)));
    EXPECT_EQ(bls12_381_g2::psi((bls12_381_g2::jacobian::from_affine(a) + b).to_affine()),
              (bls12_381_g2::jacobian::from_affine(bls12_381_g2::psi(a)) + bls12_381_g2::psi(b)).to_affine());
    const auto c = ec::testing::random_curve_point<bls12_381_g1>(rng);
    EXPECT_TRUE(ec::is_on_curve<bls12_381_g1>(bls12_381_g1::phi(c)));
  }
  EXPECT_NE(bls12_381_g1::beta, bls12_381::fq::one());
  EXPECT_EQ(bls12_381_g1::beta.sqr() * bls12_381_g1::beta, bls12_381::fq::one());
}

}  // namespace
}  // namespace cuzk
