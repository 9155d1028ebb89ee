// SPDX-License-Identifier: MIT OR Apache-2.0
// zero_one_share (scalar_sample.hpp): exact where it reads every scalar, close to the true share
// on fresh random witness-like vectors where it samples, and strict about what counts as 0 or 1.
#include "msm/scalar_sample.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "msm/msm_inputs.hpp"

namespace cuzk::msm {
namespace {

// The reference: every scalar looked at.
template <class Repr>
double exact_share(const std::vector<Repr>& v) {
  std::size_t hits = 0;
  for (const Repr& s : v) hits += (s == Repr::from_u64(0) || s == Repr::from_u64(1)) ? 1 : 0;
  return v.empty() ? 0 : static_cast<double>(hits) / static_cast<double>(v.size());
}

template <class G>
void check_random_vectors(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const double share : {0.0, 0.3, 0.5, 0.9, 0.99, 1.0}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{4096}, std::size_t{100003}}) {
      const auto v = testing::mostly_boolean_scalars<G>(n, share, rng);
      const double exact = exact_share(v);
      // Every scalar read: the sample is the reference.
      EXPECT_DOUBLE_EQ(zero_one_share<typename G::scalar::repr>(v, n), exact) << "n=" << n << " share=" << share;
      // Sampled: within 5 standard deviations of the true share (binomial over the default sample).
      const double got = zero_one_share<typename G::scalar::repr>(v);
      const double sd = std::sqrt(std::max(exact * (1 - exact), 1e-9) / zero_one_samples);
      EXPECT_NEAR(got, exact, 5 * sd + 1e-12) << "n=" << n << " share=" << share;
    }
  }
}

TEST(zero_one_share, matches_every_scalar_read_and_samples_close_to_it_on_both_curves) {
  std::random_device rd;
  const uint64_t seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_random_vectors<bn254_g1>(seed);
  check_random_vectors<bls12_381_g1>(seed + 1);
}

TEST(zero_one_share, counts_only_the_values_zero_and_one) {
  using repr = bls12_381_g1::scalar::repr;
  repr one_high = repr::from_u64(1);
  one_high.limb[repr::num_limbs - 1] = 1;  // 1 + 2^192: its low limb is 1, it is not
  repr r_minus_one = (bls12_381_g1::scalar::zero() - bls12_381_g1::scalar::one()).to_canonical();
  const std::vector<repr> v{repr::from_u64(0), repr::from_u64(1), repr::from_u64(2), one_high, r_minus_one};
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(v), 0.4);
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(v, 1), 1.0);  // one sample: the first scalar, 0
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(std::vector<repr>{}), 0.0);
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(v, 0), 0.0);
}

TEST(zero_one_share, samples_spread_over_the_whole_vector) {
  using repr = bn254_g1::scalar::repr;
  // 0/1 only in the second half: a sample that read only the start would say 0.
  std::vector<repr> v(1 << 16, repr::from_u64(7));
  for (std::size_t i = v.size() / 2; i < v.size(); ++i) v[i] = repr::from_u64(i & 1);
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(v), 0.5);
  // Positions 0, n/3 and 2n/3: only the last is in the second half.
  EXPECT_DOUBLE_EQ(zero_one_share<repr>(v, 3), 1.0 / 3.0);
}

}  // namespace
}  // namespace cuzk::msm
