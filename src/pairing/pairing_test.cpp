// SPDX-License-Identifier: MIT OR Apache-2.0
// Pairing properties for both curves: the Miller-loop steps against affine point formulas,
// non-degeneracy, order r, bilinearity on random scalars, inverses, points at infinity, the
// multi-pairing against single pairings, and a Groth16-shaped four-term check.
//
// Points are made by the naive affine double-and-add of naive_affine_test_util.hpp.
#include "pairing/pairing.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>

#include "curves/per_curve_test.hpp"
#include "pairing/line_steps.hpp"
#include "pairing/naive_affine_test_util.hpp"
#include "pairing/pairing_params.hpp"

namespace cuzk::pairing {
namespace {

using test_util::affine_add;
using test_util::affine_dbl;
using test_util::affine_mul;

template <class Curve>
class PairingTest : public ::testing::Test {
 protected:
  using fr_t = typename Curve::fr;
  using g1_t = g1_affine<Curve>;
  using g2_t = g2_affine<Curve>;
  using gt_t = fq12<Curve>;

  std::mt19937_64 rng{7};
  const g1_t g1{Curve::g1_gen_x, Curve::g1_gen_y};
  const g2_t g2{Curve::g2_gen_x, Curve::g2_gen_y};

  fr_t random_scalar() { return fr_t::random(rng); }
  g1_t g1_mul(const fr_t& k) const { return affine_mul(g1, k.to_canonical()); }
  g2_t g2_mul(const fr_t& k) const { return affine_mul(g2, k.to_canonical()); }
  static gt_t gt_pow(const gt_t& x, const fr_t& k) { return x.pow(k.to_canonical()); }
  static gt_t product(std::initializer_list<g1g2_pair<Curve>> pairs) {
    const std::vector<g1g2_pair<Curve>> v(pairs);
    return pairing_product<Curve>(v);
  }
  static bool check(std::initializer_list<g1g2_pair<Curve>> pairs) {
    const std::vector<g1g2_pair<Curve>> v(pairs);
    return pairing_check<Curve>(v);
  }
};
TYPED_TEST_SUITE(PairingTest, both_curves);

TYPED_TEST(PairingTest, GeneratorsAreOnTheirCurves) {
  const auto& p = this->g1;
  const auto& q = this->g2;
  EXPECT_EQ(p.y.sqr(), p.x.sqr() * p.x + TypeParam::g1_b);
  EXPECT_EQ(q.y.sqr(), q.x.sqr() * q.x + TypeParam::g2_b);
}

TYPED_TEST(PairingTest, LineStepsMoveTheRunningPointLikeAffineFormulas) {
  using fq2 = typename TypeParam::fq2;
  const fq2 three_b = TypeParam::g2_b.dbl() + TypeParam::g2_b;
  const auto q = this->g2;
  const auto normalize = [](const g2_homogeneous<fq2>& t) {
    const fq2 zi = t.z.inverse();
    return g2_affine<TypeParam>{t.x * zi, t.y * zi};
  };
  g2_homogeneous<fq2> t{q.x, q.y, fq2::one()};
  auto expect = q;
  for (int i = 0; i < 10; ++i) {
    (void)double_step(t, three_b);
    expect = affine_dbl(expect);
    ASSERT_EQ(normalize(t), expect) << "after doubling " << i;
    (void)add_step(t, q.x, q.y);
    expect = affine_add(expect, q);
    ASSERT_EQ(normalize(t), expect) << "after addition " << i;
    (void)add_step(t, q.x, -q.y);
    expect = affine_add(expect, -q);
    ASSERT_EQ(normalize(t), expect) << "after subtraction " << i;
  }
}

TYPED_TEST(PairingTest, LoopDigitsSpellTheLoopScalar) {
  using params = pairing_params<TypeParam>;
  unsigned __int128 v = 0;
  for (std::size_t i = params::loop_digits.length; i-- > 0;) {
    v = 2 * v + static_cast<unsigned __int128>(static_cast<__int128>(params::loop_digits.d[i]));
  }
  EXPECT_TRUE(v == params::loop_scalar);
}

TYPED_TEST(PairingTest, NonDegenerateAndOfOrderR) {
  using gt = typename TestFixture::gt_t;
  const gt e = pairing<TypeParam>(this->g1, this->g2);
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(TypeParam::fr::modulus).is_one());
  EXPECT_EQ(e * e.conjugate(), gt::one());  // GT lies in the cyclotomic subgroup
}

TYPED_TEST(PairingTest, Bilinear) {
  using gt = typename TestFixture::gt_t;
  const gt e = pairing<TypeParam>(this->g1, this->g2);
  for (int i = 0; i < 2; ++i) {
    const auto a = this->random_scalar(), b = this->random_scalar();
    const auto ap = this->g1_mul(a);
    const auto bq = this->g2_mul(b);
    const gt eab = pairing<TypeParam>(ap, bq);
    EXPECT_EQ(eab, TestFixture::gt_pow(e, a * b));
    EXPECT_EQ(pairing<TypeParam>(ap, this->g2), pairing<TypeParam>(this->g1, this->g2_mul(a)));
    // e(aP + bP, Q) = e(aP, Q) e(bP, Q)
    EXPECT_EQ(pairing<TypeParam>(affine_add(ap, this->g1_mul(b)), this->g2),
              pairing<TypeParam>(ap, this->g2) * pairing<TypeParam>(this->g1_mul(b), this->g2));
  }
}

TYPED_TEST(PairingTest, NegationInverts) {
  const auto p = this->g1_mul(this->random_scalar());
  const auto q = this->g2_mul(this->random_scalar());
  EXPECT_EQ(pairing<TypeParam>(-p, q) * pairing<TypeParam>(p, q), TestFixture::gt_t::one());
  EXPECT_TRUE(TestFixture::check({{-p, q}, {p, q}}));
  EXPECT_TRUE(TestFixture::check({{p, -q}, {p, q}}));
  EXPECT_FALSE(TestFixture::check({{p, q}, {p, q}}));
}

TYPED_TEST(PairingTest, InfinityContributesOne) {
  const auto o1 = TestFixture::g1_t::infinity();
  const auto o2 = TestFixture::g2_t::infinity();
  EXPECT_TRUE(pairing<TypeParam>(o1, this->g2).is_one());
  EXPECT_TRUE(pairing<TypeParam>(this->g1, o2).is_one());
  EXPECT_TRUE(pairing_product<TypeParam>({}).is_one());
  EXPECT_TRUE(pairing_check<TypeParam>({}));
  EXPECT_EQ(TestFixture::product({{o1, this->g2}, {this->g1, this->g2}, {this->g1, o2}}),
            pairing<TypeParam>(this->g1, this->g2));
}

TYPED_TEST(PairingTest, ProductOfManyIsProductOfPairings) {
  std::vector<g1g2_pair<TypeParam>> pairs;
  typename TestFixture::gt_t expect = TestFixture::gt_t::one();
  for (int i = 0; i < 3; ++i) {
    pairs.push_back({this->g1_mul(this->random_scalar()), this->g2_mul(this->random_scalar())});
    expect *= pairing<TypeParam>(pairs.back().p, pairs.back().q);
  }
  EXPECT_EQ(pairing_product<TypeParam>(pairs), expect);
}

// e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) == 1 holds exactly when
// a b = alpha beta + x gamma + c delta in Fr.
TYPED_TEST(PairingTest, Groth16ShapedCheck) {
  using fr = typename TestFixture::fr_t;
  const fr a = this->random_scalar(), b = this->random_scalar(), alpha = this->random_scalar(),
           beta = this->random_scalar(), gamma = this->random_scalar(), delta = this->random_scalar(),
           x = this->random_scalar();
  const fr c = (a * b - alpha * beta - x * gamma) * delta.inverse();
  const std::array<g1g2_pair<TypeParam>, 4> ok{{{-this->g1_mul(a), this->g2_mul(b)},
                                                {this->g1_mul(alpha), this->g2_mul(beta)},
                                                {this->g1_mul(x), this->g2_mul(gamma)},
                                                {this->g1_mul(c), this->g2_mul(delta)}}};
  EXPECT_TRUE(pairing_check<TypeParam>(ok));
  auto bad = ok;
  bad[3].p = this->g1_mul(c + fr::one());
  EXPECT_FALSE(pairing_check<TypeParam>(bad));
}

}  // namespace
}  // namespace cuzk::pairing
