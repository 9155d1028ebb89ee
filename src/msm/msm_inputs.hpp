// SPDX-License-Identifier: MIT OR Apache-2.0
// MSM inputs for tests and benchmarks: many random subgroup points, cheaply.
//
// A fresh [k]G per point costs a full scalar multiplication (~100 us for BLS12-381 G1), so 2^20
// of them would take minutes. Instead each of a few chunks starts at a random point P and steps
// by a random point Q (P, P + Q, P + 2Q, ...: one mixed addition per point), and every chunk is
// converted to affine with one inversion (batch_to_affine). The points are not independent, but
// the MSM never relies on independence: its buckets see them as unrelated affine inputs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "base/thread_pool.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/test_points.hpp"

namespace cuzk::msm::testing {

// Fills out[0, n) with such points, in place (a caller's pinned buffer, say), on the pool.
template <class G>
void fill_random_points(typename G::affine* out, std::size_t n, uint64_t seed,
                        thread_pool& pool = thread_pool::global()) {
  using jacobian = typename G::jacobian;
  constexpr std::size_t chunk = 4096;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  pool.parallel_for(chunks, [&](std::size_t c0, std::size_t c1) {
    std::vector<jacobian> tmp(chunk);
    for (std::size_t c = c0; c < c1; ++c) {
      std::mt19937_64 rng(seed * 1000003 + c);
      jacobian p = ec::testing::random_subgroup_point<G>(rng);
      const auto q = ec::testing::random_subgroup_point<G>(rng).to_affine();
      const std::size_t begin = c * chunk, len = std::min(chunk, n - begin);
      for (std::size_t i = 0; i < len; ++i) {
        tmp[i] = p;
        p += q;
      }
      ec::batch_to_affine(tmp.data(), out + begin, len);
    }
  });
}

template <class G>
std::vector<typename G::affine> random_points(std::size_t n, uint64_t seed,
                                              thread_pool& pool = thread_pool::global()) {
  std::vector<typename G::affine> out(n);
  fill_random_points<G>(out.data(), n, seed, pool);
  return out;
}

// Uniform scalars in [0, r) as canonical integers.
template <class G, class Rng>
std::vector<typename G::scalar::repr> random_scalars(std::size_t n, Rng& rng) {
  std::vector<typename G::scalar::repr> out(n);
  for (auto& s : out) s = G::scalar::random(rng).to_canonical();
  return out;
}

// A witness-like vector: each scalar is 0 or 1 (equally likely) with probability `boolean_share`,
// otherwise uniform in [0, r).
template <class G, class Rng>
std::vector<typename G::scalar::repr> mostly_boolean_scalars(std::size_t n, double boolean_share, Rng& rng) {
  std::vector<typename G::scalar::repr> out(n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto& s : out) {
    if (u(rng) < boolean_share) {
      s = G::scalar::repr::from_u64(rng() & 1);
    } else {
      s = G::scalar::random(rng).to_canonical();
    }
  }
  return out;
}

}  // namespace cuzk::msm::testing
