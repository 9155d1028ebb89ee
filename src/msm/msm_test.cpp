// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU MSM against the obviously-correct one (ec::naive_msm) and against a closed form, for
// G1 and G2 of both curves.
//
// Inputs mix in what real proving keys and witnesses contain: points at infinity, zero scalars,
// scalar 1 and r - 1, repeated and opposite points (which send a bucket through the doubling and
// the P + (-P) = O cases of the mixed addition), mostly-boolean scalar vectors. The closed form
// sum_{i=1..n} [i]([i]G) = [n(n+1)(2n+1)/6]G is checked at every window width, and the result
// must not depend on the thread count or the chunking.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/naive_msm.hpp"
#include "ff/mont_math.hpp"
#include "msm/msm_inputs.hpp"
#include "msm/pippenger.hpp"

namespace {

using namespace cuzk;

template <class G>
class msm_test : public ::testing::Test {};
using all_groups = ::testing::Types<bn254_g1, bn254_g2, bls12_381_g1, bls12_381_g2>;
TYPED_TEST_SUITE(msm_test, all_groups);

template <class G>
using repr = typename G::scalar::repr;

template <class G>
typename G::jacobian naive(const std::vector<typename G::affine>& p, const std::vector<repr<G>>& s) {
  return ec::naive_msm(p.data(), s.data(), p.size());
}

template <class G>
typename G::jacobian run(const std::vector<typename G::affine>& p, const std::vector<repr<G>>& s,
                         const msm::msm_options& o = {}, thread_pool& pool = thread_pool::global()) {
  return msm::msm<G>(std::span(p), std::span(s), o, pool);
}

// Random points and scalars with the edge cases sprinkled in at random positions.
template <class G>
void make_edge_inputs(std::size_t n, uint64_t seed, std::vector<typename G::affine>& p, std::vector<repr<G>>& s) {
  std::mt19937_64 rng(seed);
  p = msm::testing::random_points<G>(n, seed);
  s = msm::testing::random_scalars<G>(n, rng);
  const auto r_minus_1 = ff::mont::sub_one(G::scalar::modulus);
  for (std::size_t i = 0; i < n; ++i) {
    switch (rng() % 10) {
      case 0: p[i] = G::affine::infinity(); break;
      case 1: s[i] = repr<G>{}; break;
      case 2: s[i] = repr<G>::from_u64(1); break;
      case 3: s[i] = r_minus_1; break;
      case 4: if (i > 0) p[i] = p[rng() % i]; break;   // a repeated point
      case 5: if (i > 0) p[i] = -p[rng() % i]; break;  // an opposite point
      default: break;
    }
  }
}

TYPED_TEST(msm_test, matches_naive_on_edge_mixes) {
  using G = TypeParam;
  std::vector<std::size_t> sizes{0, 1, 2, 3, 17, 100, 1000};
  if (G::name == std::string_view("G1")) sizes.push_back(4096);
  for (std::size_t n : sizes) {
    std::vector<typename G::affine> p;
    std::vector<repr<G>> s;
    make_edge_inputs<G>(n, 1000 + n, p, s);
    const auto expected = naive<G>(p, s);
    EXPECT_EQ(run<G>(p, s), expected) << "n = " << n;
    // Both bucket accumulations at a window where batches are long and at one where they collide.
    for (unsigned c : {4u, 11u}) {
      for (auto a : {msm::bucket_accumulation::xyzz, msm::bucket_accumulation::batch_affine}) {
        EXPECT_EQ(run<G>(p, s, {.window = c, .accumulation = a}), expected) << "n = " << n << ", c = " << c;
      }
    }
  }
}

TYPED_TEST(msm_test, plain_random_inputs) {
  using G = TypeParam;
  for (std::size_t n : {1, 2, 3, 17, 100}) {
    std::mt19937_64 rng(n);
    const auto p = msm::testing::random_points<G>(n, 7 + n);
    const auto s = msm::testing::random_scalars<G>(n, rng);
    EXPECT_EQ(run<G>(p, s), naive<G>(p, s)) << "n = " << n;
  }
}

TYPED_TEST(msm_test, single_terms) {
  using G = TypeParam;
  const std::vector<typename G::affine> g{G::generator};
  const auto r_minus_1 = ff::mont::sub_one(G::scalar::modulus);
  EXPECT_TRUE(run<G>(g, {repr<G>{}}).is_infinity());
  EXPECT_EQ(run<G>(g, {repr<G>::from_u64(1)}), G::jacobian::from_affine(G::generator));
  EXPECT_EQ(run<G>(g, {repr<G>::from_u64(2)}), G::jacobian::from_affine(G::generator).dbl());
  EXPECT_EQ(run<G>(g, {r_minus_1}), G::jacobian::from_affine(-G::generator));
  EXPECT_TRUE(run<G>({G::affine::infinity()}, {r_minus_1}).is_infinity());
  for (unsigned c = msm::min_window; c <= 16; ++c) {
    EXPECT_EQ(run<G>(g, {r_minus_1}, {.window = c}), G::jacobian::from_affine(-G::generator)) << "c = " << c;
  }
}

TYPED_TEST(msm_test, all_equal_points) {
  using G = TypeParam;
  std::mt19937_64 rng(5);
  const std::size_t n = 100;
  const auto p = std::vector<typename G::affine>(n, msm::testing::random_points<G>(1, 9)[0]);
  const auto s = msm::testing::random_scalars<G>(n, rng);
  EXPECT_EQ(run<G>(p, s), naive<G>(p, s));
}

// Points [i]G with scalars i for i = 1..n, interleaved with points at infinity (random scalars)
// and points with scalar zero: the sum is [n(n+1)(2n+1)/6]G at every window width.
TYPED_TEST(msm_test, closed_form_at_every_window) {
  using G = TypeParam;
  const uint64_t n = 150;
  std::mt19937_64 rng(11);
  std::vector<typename G::affine> p;
  std::vector<repr<G>> s;
  auto ig = G::jacobian::infinity();
  for (uint64_t i = 1; i <= n; ++i) {
    ig += G::generator;
    p.push_back(ig.to_affine());
    s.push_back(repr<G>::from_u64(i));
    if (i % 7 == 0) {
      p.push_back(G::affine::infinity());
      s.push_back(G::scalar::random(rng).to_canonical());
    }
    if (i % 11 == 0) {
      p.push_back(ig.to_affine());
      s.push_back(repr<G>{});
    }
  }
  const auto expected = ec::scalar_mul(G::generator, n * (n + 1) * (2 * n + 1) / 6);
  const unsigned widest = G::name == std::string_view("G1") ? 16 : 13;
  for (unsigned c = msm::min_window; c <= widest; ++c) {
    for (auto a : {msm::bucket_accumulation::xyzz, msm::bucket_accumulation::batch_affine}) {
      EXPECT_EQ(run<G>(p, s, {.window = c, .accumulation = a}), expected) << "c = " << c;
      EXPECT_EQ(run<G>(p, s, {.window = c, .split_zero_one = false, .accumulation = a}), expected)
          << "c = " << c << ", no split";
    }
  }
}

TYPED_TEST(msm_test, mostly_boolean_scalars) {
  using G = TypeParam;
  std::mt19937_64 rng(3);
  for (double share : {0.9, 0.99, 1.0}) {
    const std::size_t n = 1000;
    const auto p = msm::testing::random_points<G>(n, 21);
    const auto s = msm::testing::mostly_boolean_scalars<G>(n, share, rng);
    const auto expected = naive<G>(p, s);
    EXPECT_EQ(run<G>(p, s), expected) << "share = " << share;
    EXPECT_EQ(run<G>(p, s, {.split_zero_one = false}), expected) << "share = " << share << ", no split";
  }
}

// One thread, several threads and forced chunkings all give the same point.
TYPED_TEST(msm_test, independent_of_threads_and_chunks) {
  using G = TypeParam;
  std::vector<typename G::affine> p;
  std::vector<repr<G>> s;
  make_edge_inputs<G>(3000, 77, p, s);
  thread_pool one(1), three(3), eight(8);
  const auto ref = run<G>(p, s, {}, one);
  EXPECT_EQ(run<G>(p, s, {}, three), ref);
  EXPECT_EQ(run<G>(p, s, {}, eight), ref);
  for (unsigned k : {2u, 3u, 7u}) {
    EXPECT_EQ(run<G>(p, s, {.chunks = k}, three), ref) << "chunks = " << k;
    EXPECT_EQ(run<G>(p, s, {.window = 9, .chunks = k}, one), ref) << "chunks = " << k;
  }
}

TEST(msm_signed_digits, recode_exactly) {
  // sum_w d_w 2^(cw) = s for the extreme scalars, every width, digits in [-2^(c-1), 2^(c-1)).
  using Fr = bls12_381::fr;
  constexpr std::size_t N = Fr::N;
  const auto max = ff::mont::sub_one(Fr::modulus);
  std::mt19937_64 rng(1);
  std::vector<Fr::repr> samples{Fr::repr{}, Fr::repr::from_u64(1), max};
  for (int i = 0; i < 20; ++i) samples.push_back(Fr::random(rng).to_canonical());
  for (unsigned c = msm::min_window; c <= msm::max_window; ++c) {
    const auto d = msm::signed_digits<N>::make(c, max);
    for (const auto& s : samples) {
      const auto t = d.shifted(s);
      Fr acc = Fr::zero();
      for (unsigned w = d.windows; w-- > 0;) {
        for (unsigned b = 0; b < c; ++b) acc = acc.dbl();
        const int64_t digit = d.window(w)(t);
        ASSERT_GE(digit, -(int64_t{1} << (c - 1)));
        ASSERT_LT(digit, int64_t{1} << (c - 1));
        const Fr f = Fr::from_uint(static_cast<uint64_t>(digit < 0 ? -digit : digit));
        acc += digit < 0 ? -f : f;
      }
      EXPECT_EQ(acc.to_canonical(), s) << "c = " << c;
    }
  }
}

}  // namespace
