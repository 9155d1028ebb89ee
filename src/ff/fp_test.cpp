// SPDX-License-Identifier: MIT OR Apache-2.0
// Prime-field tests, written once and run for all four fields of the two curves: field axioms on
// random and edge values, and every operation against GMP as an independent oracle.
#include "ff/fp.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ff/gmp_oracle.hpp"
#include "ff/roots_of_unity.hpp"

namespace cuzk::ff {
namespace {

using testing::canon;
using testing::from_mpz;
using testing::modulus_mpz;
using testing::to_mpz;

template <class F>
class FpTest : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0xC0FFEE ^ F::modulus.limb[0]};

  // 0, 1, 2, p-1, p-2, (p-1)/2, R mod p, values at limb boundaries, plus random ones.
  std::vector<F> samples() {
    using repr = typename F::repr;
    std::vector<F> out = {F::zero(), F::one(), F::from_uint(2)};
    const mpz_class p = modulus_mpz<F>();
    auto add = [&](const mpz_class& v) { out.push_back(*F::from_canonical(from_mpz<F::N>(v % p))); };
    add(p - 1);
    add(p - 2);
    add((p - 1) / 2);
    add(to_mpz(F::r1));
    for (std::size_t k = 1; k < F::N; ++k) {
      mpz_class b = mpz_class(1) << (64 * k);
      add(b - 1);
      add(b);
      add(b + 1);
    }
    repr all_ones;
    for (auto& l : all_ones.limb) l = ~uint64_t{0};
    add(to_mpz(all_ones));
    for (int i = 0; i < 40; ++i) out.push_back(F::random(rng));
    return out;
  }
};

using Fields = ::testing::Types<bn254::fq, bn254::fr, bls12_381::fq, bls12_381::fr>;
TYPED_TEST_SUITE(FpTest, Fields);

TYPED_TEST(FpTest, ConstantsAreConsistent) {
  using F = TypeParam;
  const mpz_class p = modulus_mpz<F>();
  const mpz_class R = mpz_class(1) << (64 * F::N);
  EXPECT_EQ(to_mpz(F::r1), R % p);
  EXPECT_EQ(to_mpz(F::r2), (R * R) % p);
  EXPECT_EQ(canon(F::one()), 1);
  EXPECT_EQ(to_mpz(F::odd_part) << F::two_adicity, p - 1);
}

TYPED_TEST(FpTest, OperationsMatchGmp) {
  using F = TypeParam;
  const mpz_class p = modulus_mpz<F>();
  const auto xs = this->samples();
  for (const F& a : xs) {
    const mpz_class A = canon(a);
    ASSERT_LT(A, p);
    EXPECT_EQ(canon(-a), (p - A) % p);
    EXPECT_EQ(canon(a.dbl()), (2 * A) % p);
    EXPECT_EQ(canon(a.sqr()), (A * A) % p);
    EXPECT_EQ(canon(a.half() + a.half()), A);
    for (const F& b : xs) {
      const mpz_class B = canon(b);
      EXPECT_EQ(canon(a + b), (A + B) % p);
      EXPECT_EQ(canon(a - b), ((A - B) % p + p) % p);
      EXPECT_EQ(canon(a * b), (A * B) % p);
    }
  }
}

// The run-time kernels are assembly with two interleaved carry chains: hammer them with many
// random values and with limb patterns of all-zero/all-one words (which exercise every carry).
TYPED_TEST(FpTest, ManyProductsMatchGmp) {
  using F = TypeParam;
  const mpz_class p = modulus_mpz<F>();
  std::vector<F> xs;
  for (int i = 0; i < 3000; ++i) xs.push_back(F::random(this->rng));
  for (unsigned mask = 0; mask < (1u << F::N); ++mask) {
    typename F::repr v;
    for (std::size_t k = 0; k < F::N; ++k) v.limb[k] = (mask >> k) & 1 ? ~uint64_t{0} : 0;
    xs.push_back(*F::from_canonical(from_mpz<F::N>(to_mpz(v) % p)));
    xs.push_back(*F::from_canonical(from_mpz<F::N>((p - 1 - to_mpz(v) % p))));
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const F& a = xs[i];
    const F& b = xs[(i * 7919 + 1) % xs.size()];
    const mpz_class A = canon(a), B = canon(b);
    ASSERT_EQ(canon(a * b), (A * B) % p);
    ASSERT_EQ(canon(a.sqr()), (A * A) % p);
    ASSERT_EQ(canon(a + b), (A + B) % p);
    ASSERT_EQ(canon(a - b), ((A - B) % p + p) % p);
  }
}

TYPED_TEST(FpTest, FieldAxioms) {
  using F = TypeParam;
  const auto xs = this->samples();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const F& a = xs[i];
    const F& b = xs[(i * 7 + 3) % xs.size()];
    const F& c = xs[(i * 13 + 5) % xs.size()];
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + F::zero(), a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a + (-a), F::zero());
    if (!a.is_zero()) {
      EXPECT_EQ(a * a.inverse(), F::one());
    }
  }
  EXPECT_TRUE(F::zero().inverse().is_zero());
}

TYPED_TEST(FpTest, PowLegendreSqrt) {
  using F = TypeParam;
  const mpz_class p = modulus_mpz<F>();
  for (const F& a : this->samples()) {
    const mpz_class A = canon(a);
    mpz_class expect;
    const mpz_class e = (p - 1) / 2;
    mpz_powm(expect.get_mpz_t(), A.get_mpz_t(), e.get_mpz_t(), p.get_mpz_t());
    EXPECT_EQ(canon(a.pow(F::half_minus)), expect);
    EXPECT_EQ(a.legendre(), mpz_legendre(A.get_mpz_t(), p.get_mpz_t()));
    const auto root = a.sqrt();
    EXPECT_EQ(root.has_value(), a.legendre() >= 0);
    if (root) {
      EXPECT_EQ(root->sqr(), a);
    }
    const F sq = a.sqr();
    const auto r2 = sq.sqrt();
    ASSERT_TRUE(r2.has_value());
    EXPECT_TRUE(*r2 == a || *r2 == -a);
  }
}

TYPED_TEST(FpTest, EncodingsRoundTrip) {
  using F = TypeParam;
  for (const F& a : this->samples()) {
    uint8_t le[F::num_bytes], be[F::num_bytes];
    a.to_bytes_le(le);
    a.to_bytes_be(be);
    for (std::size_t i = 0; i < F::num_bytes; ++i) EXPECT_EQ(le[i], be[F::num_bytes - 1 - i]);
    EXPECT_EQ(F::from_bytes_le(le), a);
    EXPECT_EQ(F::from_bytes_be(be), a);
    EXPECT_EQ(F::from_string(a.to_decimal()), a);
    EXPECT_EQ(F::from_string(a.to_hex()), a);
    EXPECT_EQ(a.to_decimal(), canon(a).get_str(10));
    EXPECT_EQ(a.to_hex(), "0x" + canon(a).get_str(16));
  }
  // Non-canonical inputs are rejected, not reduced.
  EXPECT_FALSE(F::from_canonical(F::modulus).has_value());
  EXPECT_FALSE(F::from_string(to_mpz(F::modulus).get_str(10)).has_value());
  EXPECT_FALSE(F::from_string("12a").has_value());
  EXPECT_FALSE(F::from_string("").has_value());
  EXPECT_FALSE(F::from_string("0x").has_value());
  uint8_t max[F::num_bytes];
  for (auto& b : max) b = 0xff;
  EXPECT_FALSE(F::from_bytes_le(max).has_value());
}

TYPED_TEST(FpTest, RandomIsInRangeAndVaries) {
  using F = TypeParam;
  const F a = F::random(this->rng), b = F::random(this->rng);
  EXPECT_NE(a, b);
  EXPECT_LT(canon(a), modulus_mpz<F>());
}

// Roots of unity exactly as ffjavascript defines them: w_{2^k} = 5^((r-1)/2^k).
template <class Curve>
void check_roots() {
  using Fr = typename Curve::fr;
  const mpz_class r = modulus_mpz<Fr>();
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{10}, Fr::two_adicity}) {
    const Fr w = root_of_unity<Fr>(k, Curve::fr_generator);
    mpz_class expect;
    const mpz_class e = (r - 1) >> k;
    const mpz_class g = Curve::fr_generator;
    mpz_powm(expect.get_mpz_t(), g.get_mpz_t(), e.get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(canon(w), expect) << "k=" << k;
    Fr x = w;
    for (std::size_t i = 0; i < k; ++i) x = x.sqr();
    EXPECT_TRUE(x.is_one());
    if (k > 0) {
      Fr y = w;
      for (std::size_t i = 0; i + 1 < k; ++i) y = y.sqr();
      EXPECT_EQ(y, -Fr::one()) << "w_{2^k} must be primitive";
    }
  }
}
TEST(RootsOfUnity, Bn254MatchesSnarkjsDefinition) { check_roots<bn254>(); }
TEST(RootsOfUnity, Bls12381MatchesSnarkjsDefinition) { check_roots<bls12_381>(); }

}  // namespace
}  // namespace cuzk::ff
