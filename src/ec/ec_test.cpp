// SPDX-License-Identifier: MIT OR Apache-2.0
// Point arithmetic tests, written once and run for G1 and G2 of both curves: the projective
// formulas against the affine group law, group axioms, every special case of the incomplete
// formulas, scalar multiplication, the naive MSM and batch conversion to affine.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/group.hpp"
#include "ec/jacobian.hpp"
#include "ec/naive_msm.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/test_points.hpp"
#include "ec/xyzz.hpp"

namespace cuzk::ec {
namespace {

using testing::affine_add;

template <class G>
class PointTest : public ::testing::Test {
 protected:
  using F = typename G::field;

  std::mt19937_64 rng{0x5eed ^ sizeof(F)};

  typename G::jacobian rand_j() { return testing::random_subgroup_point<G>(rng); }
  typename G::affine rand_a() { return rand_j().to_affine(); }
  F rand_nonzero() {
    for (;;) {
      const F f = F::random(rng);
      if (!f.is_zero()) return f;
    }
  }
  // The same point with another Z: (X l^2, Y l^3, Z l).
  typename G::jacobian rescale(const typename G::jacobian& p) {
    const F l = rand_nonzero();
    const F l2 = l.sqr();
    return {p.x * l2, p.y * l2 * l, p.z * l};
  }
  // (X l^2, Y l^3, ZZ l^2, ZZZ l^3).
  typename G::xyzz rescale(const typename G::xyzz& p) {
    const F l = rand_nonzero();
    const F l2 = l.sqr();
    const F l3 = l2 * l;
    return {p.x * l2, p.y * l3, p.zz * l2, p.zzz * l3};
  }
};

using Groups = ::testing::Types<bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2>;
TYPED_TEST_SUITE(PointTest, Groups);

TYPED_TEST(PointTest, FormulasMatchAffineGroupLaw) {
  using G = TypeParam;
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  for (int i = 0; i < 20; ++i) {
    const auto p = this->rand_a(), q = this->rand_a();
    const auto sum = affine_add(p, q);
    const auto twice = affine_add(p, p);
    const J pj = this->rescale(J::from_affine(p)), qj = this->rescale(J::from_affine(q));
    const X px = this->rescale(X::from_affine(p)), qx = this->rescale(X::from_affine(q));
    EXPECT_EQ((pj + qj).to_affine(), sum);
    EXPECT_EQ((pj + q).to_affine(), sum);
    EXPECT_EQ(pj.dbl().to_affine(), twice);
    EXPECT_EQ((px + qx).to_affine(), sum);
    EXPECT_EQ((px + q).to_affine(), sum);
    EXPECT_EQ(px.dbl().to_affine(), twice);
    EXPECT_EQ(X::dbl_affine(p).to_affine(), twice);
    EXPECT_EQ(X::from_jacobian(pj).to_affine(), p);
    EXPECT_EQ(px.to_jacobian().to_affine(), p);
    EXPECT_TRUE(is_on_curve<G>(sum));
    EXPECT_TRUE(is_on_curve<G>(pj + qj));
  }
}

TYPED_TEST(PointTest, GroupLaws) {
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  for (int i = 0; i < 10; ++i) {
    const J a = this->rand_j(), b = this->rand_j(), c = this->rand_j();
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a + J::infinity(), a);
    EXPECT_TRUE((a + (-a)).is_infinity());
    EXPECT_EQ(a - b + b, a);
    const X ax = X::from_jacobian(a), bx = X::from_jacobian(b), cx = X::from_jacobian(c);
    EXPECT_EQ((ax + bx) + cx, ax + (bx + cx));
    EXPECT_EQ(ax + bx, bx + ax);
    EXPECT_EQ(ax + X::infinity(), ax);
    EXPECT_TRUE((ax + (-ax)).is_infinity());
    EXPECT_EQ(((ax + bx) + cx).to_affine(), ((a + b) + c).to_affine());
  }
}

TYPED_TEST(PointTest, SpecialCases) {
  using A = typename TypeParam::affine;
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  const A o = A::infinity();
  const J oj = J::infinity();
  const X ox = X::infinity();
  for (int i = 0; i < 5; ++i) {
    const A p = this->rand_a();
    const A two_p = affine_add(p, p);
    // Different representations of the same point, so the doubling fallback is reached through
    // the comparison of U1 = U2, S1 = S2, not through equal triples.
    const J pj = this->rescale(J::from_affine(p)), pj2 = this->rescale(pj);
    const X px = this->rescale(X::from_affine(p)), px2 = this->rescale(px);
    ASSERT_NE(pj.z, pj2.z);

    EXPECT_EQ(pj + pj2, two_p);            // P + P
    EXPECT_EQ(pj + p, two_p);              // P + P, mixed
    EXPECT_EQ(px + px2, two_p);
    EXPECT_EQ(px + p, two_p);
    EXPECT_TRUE((pj + (-pj2)).is_infinity());  // P + (-P)
    EXPECT_TRUE((pj + (-p)).is_infinity());
    EXPECT_TRUE((px + (-px2)).is_infinity());
    EXPECT_TRUE((px + (-p)).is_infinity());
    EXPECT_EQ(oj + pj, p);                 // O + P
    EXPECT_EQ(pj + oj, p);                 // P + O
    EXPECT_EQ(ox + px, p);
    EXPECT_EQ(px + ox, p);
    EXPECT_EQ(oj + p, p);                  // O + P, mixed
    EXPECT_EQ(pj + o, p);                  // P + O, mixed
    EXPECT_EQ(ox + p, p);
    EXPECT_EQ(px + o, p);
    EXPECT_EQ(pj - pj2 + p, p);
  }
  EXPECT_TRUE((oj + oj).is_infinity());   // O + O
  EXPECT_TRUE((oj + o).is_infinity());
  EXPECT_TRUE((ox + ox).is_infinity());
  EXPECT_TRUE((ox + o).is_infinity());
  EXPECT_TRUE(oj.dbl().is_infinity());
  EXPECT_TRUE(ox.dbl().is_infinity());
  EXPECT_TRUE(X::dbl_affine(o).is_infinity());
  EXPECT_TRUE((-oj).is_infinity());
  EXPECT_EQ(-o, o);
  EXPECT_EQ(oj.to_affine(), o);
  EXPECT_EQ(ox.to_affine(), o);
  EXPECT_EQ(J::from_affine(o), oj);
  EXPECT_EQ(X::from_affine(o), ox);
  EXPECT_TRUE(X::from_jacobian(oj).is_infinity());
  EXPECT_TRUE(ox.to_jacobian().is_infinity());
}

TYPED_TEST(PointTest, EqualityAcrossRepresentations) {
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  const J p = this->rand_j(), q = this->rand_j();
  const auto pa = p.to_affine();
  EXPECT_EQ(this->rescale(p), p);
  EXPECT_EQ(p, pa);
  EXPECT_EQ(X::from_jacobian(p), pa);
  EXPECT_EQ(this->rescale(X::from_jacobian(p)), X::from_jacobian(p));
  EXPECT_FALSE(p == q);
  EXPECT_FALSE(p == -p);
  EXPECT_FALSE(p == J::infinity());
  EXPECT_FALSE(J::infinity() == pa);
  EXPECT_FALSE(X::from_jacobian(p) == X::from_jacobian(q));
  EXPECT_FALSE(X::infinity() == X::from_jacobian(p));
}

TYPED_TEST(PointTest, ScalarMultiplication) {
  using G = TypeParam;
  using Fr = typename TypeParam::scalar;
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  const J p = this->rand_j();
  const auto r = Fr::modulus;
  auto r_minus_1 = r;
  r_minus_1.sub_in_place(decltype(r)::from_u64(1));
  EXPECT_TRUE(scalar_mul(p, uint64_t{0}).is_infinity());
  EXPECT_EQ(scalar_mul(p, uint64_t{1}), p);
  EXPECT_EQ(scalar_mul(p, uint64_t{2}), p.dbl());
  EXPECT_EQ(scalar_mul(p, uint64_t{3}), p.dbl() + p);
  EXPECT_EQ(scalar_mul(p, r_minus_1), -p);
  EXPECT_TRUE(scalar_mul(p, r).is_infinity());
  EXPECT_TRUE(scalar_mul(J::infinity(), r_minus_1).is_infinity());
  EXPECT_EQ(scalar_mul(p, Fr::zero()), J::infinity());
  EXPECT_EQ(scalar_mul(p, -Fr::one()), -p);
  EXPECT_EQ(scalar_mul(X::from_jacobian(p), r_minus_1), -X::from_jacobian(p));
  EXPECT_TRUE(in_subgroup_by_order<G>(G::generator));

  // Double-and-add by hand for small k.
  J acc = J::infinity();
  for (uint64_t k = 0; k < 40; ++k) {
    EXPECT_EQ(scalar_mul(p, k), acc) << "k = " << k;
    acc += p;
  }
  for (int i = 0; i < 5; ++i) {
    const Fr a = Fr::random(this->rng), b = Fr::random(this->rng);
    EXPECT_EQ(scalar_mul(scalar_mul(p, b), a), scalar_mul(p, a * b));
    EXPECT_EQ(scalar_mul(p, a) + scalar_mul(p, b), scalar_mul(p, a + b));
    EXPECT_EQ(scalar_mul(X::from_jacobian(p), a), scalar_mul(p, a));
    EXPECT_EQ(scalar_mul(p.to_affine(), a), scalar_mul(p, a));
  }
}

TYPED_TEST(PointTest, NaiveMsmMatchesManualSum) {
  using Fr = typename TypeParam::scalar;
  using A = typename TypeParam::affine;
  using J = typename TypeParam::jacobian;
  constexpr std::size_t n = 24;
  std::vector<A> points(n);
  std::vector<Fr> scalars(n);
  J expected = J::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    points[i] = (i % 5 == 3) ? A::infinity() : this->rand_a();
    scalars[i] = (i % 7 == 2) ? Fr::zero() : Fr::random(this->rng);
    if (i % 11 == 4) scalars[i] = Fr::one();
    if (i == 6) points[i] = points[1];  // a repeated point
    if (i == 8) points[i] = -points[1];
    expected += scalar_mul(points[i], scalars[i]);
  }
  EXPECT_EQ(naive_msm(points.data(), scalars.data(), n), expected);
  EXPECT_TRUE(naive_msm(points.data(), scalars.data(), 0).is_infinity());
}

// sum_{i=1..n} [i]([i]G) = [n(n+1)(2n+1)/6]G.
TYPED_TEST(PointTest, NaiveMsmClosedForm) {
  using G = TypeParam;
  using A = typename TypeParam::affine;
  using J = typename TypeParam::jacobian;
  constexpr uint64_t n = 64;
  std::vector<J> multiples(n);
  J acc = J::infinity();
  for (uint64_t i = 0; i < n; ++i) multiples[i] = acc += G::generator;
  std::vector<A> points(n);
  batch_to_affine(multiples.data(), points.data(), n);
  std::vector<uint64_t> scalars(n);
  for (uint64_t i = 0; i < n; ++i) scalars[i] = i + 1;
  EXPECT_EQ(naive_msm(points.data(), scalars.data(), n), scalar_mul(G::generator, n * (n + 1) * (2 * n + 1) / 6));
}

TYPED_TEST(PointTest, BatchToAffine) {
  using A = typename TypeParam::affine;
  using J = typename TypeParam::jacobian;
  using X = typename TypeParam::xyzz;
  for (const std::size_t n : {0, 1, 2, 9}) {
    std::vector<J> js(n);
    std::vector<X> xs(n);
    for (std::size_t i = 0; i < n; ++i) {
      js[i] = (i % 3 == 1) ? J::infinity() : this->rand_j();
      xs[i] = this->rescale(X::from_jacobian(js[i]));
    }
    std::vector<A> ja(n), xa(n);
    batch_to_affine(js.data(), ja.data(), n);
    batch_to_affine(xs.data(), xa.data(), n);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(ja[i], js[i].to_affine());
      EXPECT_EQ(xa[i], js[i].to_affine());
    }
  }
  std::vector<J> all_inf(3, J::infinity());
  std::vector<A> out(3, this->rand_a());
  batch_to_affine(all_inf.data(), out.data(), 3);
  for (const A& a : out) EXPECT_TRUE(a.is_infinity());
}

TYPED_TEST(PointTest, OnCurve) {
  using G = TypeParam;
  using A = typename TypeParam::affine;
  using J = typename TypeParam::jacobian;
  const J p = this->rescale(this->rand_j());
  EXPECT_TRUE(is_on_curve<G>(p));
  EXPECT_TRUE(is_on_curve<G>(p.to_affine()));
  EXPECT_TRUE(is_on_curve<G>(A::infinity()));
  EXPECT_TRUE(is_on_curve<G>(J::infinity()));
  A bad = p.to_affine();
  bad.y += TypeParam::field::one();
  EXPECT_FALSE(is_on_curve<G>(bad));
  EXPECT_FALSE(is_on_curve<G>(J::from_affine(bad)));
  EXPECT_FALSE(is_in_subgroup<G>(bad));
}

}  // namespace
}  // namespace cuzk::ec
