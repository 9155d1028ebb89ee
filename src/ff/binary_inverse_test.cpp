// SPDX-License-Identifier: MIT OR Apache-2.0
// ff::binary_inverse (binary_inverse.hpp) against the field's own inverse (Fermat, ff/fp.hpp), on
// all four fields of the two curves: random values, and edge values where the binary steps run
// longest or stop at once (1, 2, p - 1, p - 2, (p - 1)/2, (p + 1)/2, powers of two and their
// neighbours at every 32-bit word boundary), plus 0, whose inverse is defined as 0.
//
// The function works on plain integers, so the oracle is a^-1 taken in Montgomery form and
// converted back to canonical form.
#include "ff/binary_inverse.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::ff {
namespace {

template <class F>
constexpr std::size_t words = 2 * F::N;

template <class F>
void to_words(const typename F::repr& a, uint32_t (&w)[words<F>]) {
  for (std::size_t i = 0; i < F::N; ++i) {
    w[2 * i] = static_cast<uint32_t>(a.limb[i]);
    w[2 * i + 1] = static_cast<uint32_t>(a.limb[i] >> 32);
  }
}

template <class F>
typename F::repr from_words(const uint32_t (&w)[words<F>]) {
  typename F::repr a{};
  for (std::size_t i = 0; i < F::N; ++i) a.limb[i] = w[2 * i] | (static_cast<uint64_t>(w[2 * i + 1]) << 32);
  return a;
}

template <class F>
class BinaryInverse : public ::testing::Test {};
using Fields = ::testing::Types<bn254::fq, bn254::fr, bls12_381::fq, bls12_381::fr>;
TYPED_TEST_SUITE(BinaryInverse, Fields);

template <class F>
void expect_inverse(const typename F::repr& a) {
  uint32_t p[words<F>], x[words<F>], r[words<F>];
  to_words<F>(F::modulus, p);
  to_words<F>(a, x);
  binary_inverse(r, x, p);
  const F want = F::from_canonical_unchecked(a).inverse();
  EXPECT_EQ(from_words<F>(r), want.to_canonical()) << "a = " << F::from_canonical_unchecked(a).to_hex();
}

TYPED_TEST(BinaryInverse, RandomValuesMatchFermat) {
  using F = TypeParam;
  std::mt19937_64 rng(0xb1a5 ^ F::modulus.limb[0]);
  for (int i = 0; i < 3000; ++i) expect_inverse<F>(F::random(rng).to_canonical());
}

TYPED_TEST(BinaryInverse, EdgeValuesMatchFermat) {
  using F = TypeParam;
  using repr = typename F::repr;
  const repr p = F::modulus;
  auto minus = [](repr v, uint64_t s) {
    v.sub_in_place(repr::from_u64(s));
    return v;
  };
  std::vector<repr> vals = {repr::from_u64(0),
                            repr::from_u64(1),
                            repr::from_u64(2),
                            repr::from_u64(3),
                            minus(p, 1),
                            minus(p, 2),
                            F::r1,
                            F::r2};
  repr half = minus(p, 1);
  half.shr1();
  vals.push_back(half);
  half.add_in_place(repr::from_u64(1));
  vals.push_back(half);
  for (std::size_t k = 1; k < F::bits; k += (k < 70 ? 1 : 31)) {
    repr b{};
    b.limb[k / 64] = uint64_t{1} << (k % 64);
    vals.push_back(b);
    vals.push_back(minus(b, 1));
    repr b1 = b;
    b1.add_in_place(repr::from_u64(1));
    vals.push_back(b1);
  }
  for (const repr& v : vals) {
    if (v >= p) continue;
    expect_inverse<F>(v);
  }
}

}  // namespace
}  // namespace cuzk::ff
