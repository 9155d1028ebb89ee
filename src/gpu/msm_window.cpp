// SPDX-License-Identifier: MIT OR Apache-2.0
// The MSM window width (msm.hpp): a cost model in units of field products.
//
// Per window, n additions into buckets (affine, with batched inversion: ~7 products each, see
// msm_accumulate.cuh) and a reduction of 2^(c-1) buckets by running sums (one mixed and one full
// XYZZ addition per bucket, ~24 products; msm_reduce.cuh); there are ceil((bits + 1) / c)
// windows (signed digits need one bit of headroom). The model ignores the sort and memory
// traffic; it gives c = 20 for 2^24 points on both curves (13 windows).
//
// Beside it, G2's measured choice of bucket accumulation (msm.hpp msm_g2_prefers_xyzz), kept in
// this small unit so that a new measurement recompiles no kernel.
#include <cstddef>

#include "gpu/msm.hpp"

namespace cuzk::gpu {

unsigned msm_window_bits(std::size_t n, unsigned bits) {
  unsigned best = 4;
  double best_cost = -1;
  for (unsigned c = 4; c <= 22; ++c) {
    const double windows = (bits + 1 + c - 1) / c;
    const double additions = 7.0 * static_cast<double>(n);
    const double reduction = 24.0 * static_cast<double>(std::size_t{1} << (c - 1));
    const double cost = windows * (additions + reduction);
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Full scalars: the affine rounds (docs/gpu/msm.md, 'XYZZ for G2', H100): XYZZ is 2x slower on
// BLS12-381 G2 (its kernel spills) and 4-13% faster on BN254. A mostly-0/1 witness puts nearly
// every point into one bucket, which the affine rounds halve with a step on the host per round in
// every range: streamed, XYZZ is 3x faster there ('The witness decides G2's accumulation' gives
// the crossover this share follows). Resident, the proof was slower with XYZZ (its B2 runs beside
// the H MSM, whose kernels the heavier XYZZ kernel slows), so the rule is for streamed points.
constexpr double g2_xyzz_zero_one_share = 0.5;

bool msm_g2_prefers_xyzz(std::size_t count, bool streamed, double zero_one_share) {
  (void)count;
  return streamed && zero_one_share >= g2_xyzz_zero_one_share;
}

}  // namespace cuzk::gpu
