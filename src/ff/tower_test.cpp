// SPDX-License-Identifier: MIT OR Apache-2.0
// Fq6 and Fq12 tests for both curves. Every fast formula is checked against a slow one that is
// obviously right: products against schoolbook multiplication of polynomials in v (Fq6) and in w
// with w^6 = xi (Fq12), squarings against products, Frobenius maps against x^(q^k) by plain
// exponentiation, sparse line products against full products, and the cyclotomic squaring against
// the ordinary one on elements pushed into the cyclotomic subgroup.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "curves/per_curve_test.hpp"
#include "ff/fp12.hpp"
#include "ff/fp6.hpp"

namespace cuzk::ff {
namespace {

template <class Curve>
class TowerTest : public ::testing::Test {
 protected:
  using fq2_t = typename Curve::fq2;
  using fq6_t = fp6<Curve>;
  using fq12_t = fp12<Curve>;
  std::mt19937_64 rng{20240611};

  // The six w-basis coefficients of x (w^0 .. w^5).
  static std::array<fq2_t, 6> to_w_basis(const fq12_t& x) {
    return {x.c0.c0, x.c1.c0, x.c0.c1, x.c1.c1, x.c0.c2, x.c1.c2};
  }
  static fq12_t from_w_basis(const std::array<fq2_t, 6>& a) {
    return {fq6_t{a[0], a[2], a[4]}, fq6_t{a[1], a[3], a[5]}};
  }
  // Schoolbook product of polynomials in w, reduced with w^6 = xi.
  static fq12_t schoolbook(const fq12_t& x, const fq12_t& y) {
    const auto a = to_w_basis(x), b = to_w_basis(y);
    std::array<fq2_t, 11> t{};
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) t[i + j] += a[i] * b[j];
    std::array<fq2_t, 6> r{};
    for (int i = 0; i < 6; ++i) r[i] = t[i] + (i + 6 < 11 ? t[i + 6] * Curve::xi : fq2_t::zero());
    return from_w_basis(r);
  }
  // An element of the cyclotomic subgroup: x^((q^6 - 1)(q^2 + 1)).
  static fq12_t cyclotomic(const fq12_t& x) {
    const fq12_t t = x.conjugate() * x.inverse();
    return t.frobenius_map(2) * t;
  }
};
TYPED_TEST_SUITE(TowerTest, both_curves);

TYPED_TEST(TowerTest, XiIsRecognisedAsSmall) {
  using tw = tower<TypeParam>;
  using fq2 = typename TypeParam::fq2;
  EXPECT_GE(tw::xi_small_c0, 0);
  for (int i = 0; i < 50; ++i) {
    const fq2 a = fq2::random(this->rng);
    EXPECT_EQ(tw::mul_by_xi(a), a * TypeParam::xi);
  }
}

TYPED_TEST(TowerTest, Fp6MatchesDefinition) {
  using fq2 = typename TypeParam::fq2;
  using fq6 = fp6<TypeParam>;
  const fq2 xi = TypeParam::xi;
  for (int i = 0; i < 100; ++i) {
    const fq6 a = fq6::random(this->rng), b = fq6::random(this->rng), c = fq6::random(this->rng);
    const fq6 school{a.c0 * b.c0 + xi * (a.c1 * b.c2 + a.c2 * b.c1),
                     a.c0 * b.c1 + a.c1 * b.c0 + xi * (a.c2 * b.c2), a.c0 * b.c2 + a.c1 * b.c1 + a.c2 * b.c0};
    EXPECT_EQ(a * b, school);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), fq6::zero());
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * fq6::one(), a);
    EXPECT_EQ(a * a.inverse(), fq6::one());
    EXPECT_EQ(a.mul_by_v(), a * (fq6{fq2::zero(), fq2::one(), fq2::zero()}));
    EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * (fq6{b.c0, b.c1, fq2::zero()}));
    EXPECT_EQ(a.mul_by_1(b.c1), a * (fq6{fq2::zero(), b.c1, fq2::zero()}));
    EXPECT_EQ(a.mul_by_fq2(b.c0), a * fq6{b.c0});
  }
  EXPECT_EQ(fq6::zero().inverse(), fq6::zero());
  const fq6 v{fq2::zero(), fq2::one(), fq2::zero()};
  EXPECT_EQ(v * v * v, fq6(xi));
}

TYPED_TEST(TowerTest, Fp12MatchesSchoolbook) {
  using fq12 = fp12<TypeParam>;
  for (int i = 0; i < 100; ++i) {
    const fq12 a = fq12::random(this->rng), b = fq12::random(this->rng), c = fq12::random(this->rng);
    EXPECT_EQ(a * b, TestFixture::schoolbook(a, b));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b + b, a);
    EXPECT_EQ(a + (-a), fq12::zero());
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * fq12::one(), a);
    EXPECT_EQ(a * a.inverse(), fq12::one());
  }
  EXPECT_EQ(fq12::zero().inverse(), fq12::zero());
  EXPECT_TRUE(fq12::one().is_one());
}

TYPED_TEST(TowerTest, FrobeniusIsPowerOfQ) {
  using fq = typename TypeParam::fq;
  using fq6 = fp6<TypeParam>;
  using fq12 = fp12<TypeParam>;
  for (int i = 0; i < 3; ++i) {
    const fq12 x = fq12::random(this->rng);
    const fq6 x6 = x.c1;
    fq12 y = x;
    EXPECT_EQ(x.frobenius_map(0), x);
    for (std::size_t k = 1; k <= 12; ++k) {
      y = y.pow(fq::modulus);
      EXPECT_EQ(x.frobenius_map(k), y) << "k = " << k;
    }
    // Fq6 has no pow of its own; square-and-multiply by q inline.
    fq6 y6 = x6;
    for (std::size_t k = 1; k <= 6; ++k) {
      fq6 p = fq6::one();
      for (std::size_t b = fq::modulus.bit_length(); b-- > 0;) {
        p = p.sqr();
        if (fq::modulus.bit(b)) p *= y6;
      }
      y6 = p;
      EXPECT_EQ(x6.frobenius_map(k), y6) << "k = " << k;
    }
    EXPECT_EQ(x.frobenius_map(6), x.conjugate());
  }
}

TYPED_TEST(TowerTest, SparseLineProductsMatchFullProducts) {
  using fq2 = typename TypeParam::fq2;
  using fq6 = fp6<TypeParam>;
  using fq12 = fp12<TypeParam>;
  for (int i = 0; i < 100; ++i) {
    const fq12 f = fq12::random(this->rng);
    const fq2 a = fq2::random(this->rng), b = fq2::random(this->rng), c = fq2::random(this->rng);
    const fq12 l013{fq6{a, fq2::zero(), fq2::zero()}, fq6{b, c, fq2::zero()}};
    const fq12 l023{fq6{a, b, fq2::zero()}, fq6{fq2::zero(), c, fq2::zero()}};
    EXPECT_EQ(f.mul_by_w013(a, b, c), f * l013);
    EXPECT_EQ(f.mul_by_w023(a, b, c), f * l023);
  }
}

TYPED_TEST(TowerTest, CyclotomicSquaringAndPower) {
  using fq12 = fp12<TypeParam>;
  for (int i = 0; i < 50; ++i) {
    const fq12 g = TestFixture::cyclotomic(fq12::random(this->rng));
    EXPECT_EQ(g * g.conjugate(), fq12::one());  // norm 1: the inverse is the conjugate
    EXPECT_EQ(g.cyclotomic_sqr(), g.sqr());
    const uint64_t e = this->rng();
    EXPECT_EQ(g.cyclotomic_pow(e), g.pow(bigint<1>::from_u64(e))) << e;
  }
  const fq12 g = TestFixture::cyclotomic(fq12::random(this->rng));
  for (uint64_t e : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{7}, ~uint64_t{0},
                     uint64_t{0x8000000000000000}, uint64_t{0xaaaaaaaaaaaaaaaa}}) {
    EXPECT_EQ(g.cyclotomic_pow(e), g.pow(bigint<1>::from_u64(e))) << e;
  }
}

}  // namespace
}  // namespace cuzk::ff
