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

// Resident G2: the affine rounds (docs/gpu/msm.md, 'XYZZ for G2', H100). With full scalars XYZZ
// is 2x slower on BLS12-381 (its kernel spills) and 4-13% faster on BN254, and a mostly-0/1
// proof was 10% slower with XYZZ, whose heavier kernel slows the H MSM beside B2.
// Streamed G2 ('The witness decides G2's accumulation', H100, 2^24 points in ranges of 2^20):
// a mostly-0/1 witness puts nearly every point into one bucket, which the affine rounds halve
// with a step on the host per round in every range. BLS12-381's XYZZ overtakes them between
// shares of 0.5 and 0.75 (0.95x at 0.75, 0.62x at 0.9, 0.42x at 1; 2.2x slower at 0); BN254's is
// faster at every share (0.81x at 0, 0.40x at 0.9).
constexpr double bls12_381_g2_xyzz_share = 0.75;

bool msm_g2_prefers_xyzz(std::size_t count, bool streamed, unsigned fq_limbs, double zero_one_share) {
  (void)count;
  if (!streamed) return false;
  return fq_limbs <= 4 || zero_one_share >= bls12_381_g2_xyzz_share;
}

}  // namespace cuzk::gpu
