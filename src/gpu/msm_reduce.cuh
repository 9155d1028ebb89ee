// SPDX-License-Identifier: MIT OR Apache-2.0
// Bucket reduction for the GPU MSM (msm.cuh): per window, sum_{b=1}^{B} b S_b from the bucket
// sums S_b (B = 2^(c-1)), without any scalar multiplication.
//
// With A_i = S_{i+1} (i < B), sum_b b S_b = sum_i i A_i + sum_i A_i. Cut the row into segments of
// 16: segment j holds A_{16j + t}, t < 16, and
//   sum_i i A_i = sum_j R_j + 16 sum_j j T_j,   R_j = sum_t t A_{16j+t},   T_j = sum_t A_{16j+t}.
// One thread per segment gets R_j and T_j by a running sum from the top (run += A, sum += run:
// 15 + 16 additions). sum_j j T_j is the same problem on a row 16 times shorter, so the kernel
// runs again on T, level after level, until a row is one segment long; the host then forms
//   G_0 + 16 (G_1 + 16 (G_2 + ...)) + H,   G_l = sum_j R_l[j],   H = sum_j T_0[j],
// with 4 doublings per level. Every level is two additions per element of its input, so the whole
// reduction is ~2 B (1 + 1/16 + ...) additions per window, against the 2 B + ~40 B/16 of running
// sums plus a per-segment multiplication by the segment's offset that it replaces (docs/gpu/msm.md,
// 'Running sums'). Level 0 reads the affine bucket sums, so its run += A is a mixed addition. In the
// top window only the buckets below 2^(bits - (W - 1) c) can be occupied (its digit takes no carry
// out), so level 0 skips the top row's segments past that (1/16 of the row used at 2^24 on both curves).
//
// The row sums G_l and H are independent of each other: all of them go through one launch per
// step of the group tree (group_sum_multi_kernel), so their dependent chains overlap instead of
// following one another (~18 launches of 8 dependent additions each became 5).
#pragma once

#include <cstdint>

#include "ec/xyzz.hpp"
#include "gpu/msm_accumulate.cuh"

namespace cuzk::gpu::msm_detail {

constexpr unsigned log_segment = 4;
constexpr uint32_t segment = 1u << log_segment;

// Thread t = (row w, segment j) of rows of `len` elements of V (affine or XYZZ); the last row holds
// only `last_len` occupied elements, the rest are skipped (their segments sum to infinity).
template <class V, class X>
__global__ void running_sum_kernel(const V* __restrict__ in, uint32_t len, uint32_t last_len, uint32_t segs,
                                   uint32_t rows, X* __restrict__ r_out, X* __restrict__ t_out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= segs * rows) return;
  const uint32_t w = t / segs;
  const uint32_t j = t % segs;
  const uint32_t lo = j * segment;
  if (w + 1 == rows && lo >= last_len) {
    r_out[t] = X::infinity();
    t_out[t] = X::infinity();
    return;
  }
  const uint32_t hi = min(len, lo + segment);
  const V* row = in + static_cast<std::size_t>(w) * len;
  // Not unrolled, and the elements loaded as 16-byte vectors: ptxas otherwise keeps two XYZZ
  // points of the peeled iterations in a 384-byte stack frame (BLS12-381, 212 registers); this way
  // the affine level has no stack and the XYZZ one 80 bytes of spills at 255 registers, at the
  // same occupancy (4 blocks of 64 per SM).
  X run = X::infinity(), sum = X::infinity();
#pragma unroll 1
  for (uint32_t i = hi - 1; i > lo; --i) {
    run = run + load_vec(row + i);
    sum = sum + run;
  }
  run = run + load_vec(row + lo);
  r_out[t] = sum;
  t_out[t] = run;
}

// One step of the group tree for several sets of rows at once: set k has `rows` rows of len
// elements at in, and gets rows of out_len = ceil(len / g) group sums at out; its threads are
// [first, first + rows out_len).
template <class X>
struct row_set {
  const X* in;
  X* out;
  uint32_t len, out_len, first;
};
constexpr unsigned max_row_sets = 8;
template <class X>
struct row_sets {
  row_set<X> set[max_row_sets];
  unsigned count;
  uint32_t threads;
};

// out[t] = sum of in[t g .. t g + g) within rows of `len` (the last group may be short).
template <class X>
__global__ void group_sum_multi_kernel(const row_sets<X> sets, uint32_t g) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= sets.threads) return;
  unsigned k = 0;
  while (k + 1 < sets.count && t >= sets.set[k + 1].first) ++k;
  const row_set<X> s = sets.set[k];
  const uint32_t u = t - s.first;
  const uint32_t row = u / s.out_len;
  const uint32_t col = u % s.out_len;
  const uint32_t b = col * g;
  const uint32_t e = min(s.len, b + g);
  X acc = X::infinity();
  for (uint32_t p = b; p < e; ++p) acc += s.in[static_cast<std::size_t>(row) * s.len + p];
  s.out[u] = acc;
}

}  // namespace cuzk::gpu::msm_detail
