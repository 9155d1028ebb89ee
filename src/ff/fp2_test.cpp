// SPDX-License-Identifier: MIT OR Apache-2.0
// Fq2 tests for both curves: axioms, Karatsuba against schoolbook, inverse, sqrt, Frobenius.
#include "ff/fp2.hpp"

#include <gtest/gtest.h>

#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::ff {
namespace {

template <class F2>
class Fp2Test : public ::testing::Test {
 protected:
  std::mt19937_64 rng{42};
};
using Fields = ::testing::Types<bn254::fq2, bls12_381::fq2>;
TYPED_TEST_SUITE(Fp2Test, Fields);

TYPED_TEST(Fp2Test, ArithmeticMatchesDefinition) {
  using F2 = TypeParam;
  using F = typename F2::base;
  for (int i = 0; i < 200; ++i) {
    const F2 a = F2::random(this->rng), b = F2::random(this->rng), c = F2::random(this->rng);
    // Schoolbook with u^2 = -1.
    const F2 school{a.c0 * b.c0 - a.c1 * b.c1, a.c0 * b.c1 + a.c1 * b.c0};
    EXPECT_EQ(a * b, school);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a.dbl(), a + a);
    if (!a.is_zero()) {
      EXPECT_EQ(a * a.inverse(), F2::one());
    }
    // Frobenius is x -> x^q.
    EXPECT_EQ(a.frobenius(1), a.pow(F::modulus));
    EXPECT_EQ(a.frobenius(2), a);
    const auto r = a.sqr().sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
    const auto s = a.sqrt();
    EXPECT_EQ(s.has_value(), a.legendre() >= 0);
    if (s) {
      EXPECT_EQ(s->sqr(), a);
    }
  }
  const F2 u{F::zero(), F::one()};
  EXPECT_EQ(u.sqr(), -F2::one());
}

}  // namespace
}  // namespace cuzk::ff
