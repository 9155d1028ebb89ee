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
// sums plus a per-segment multiplication by the segment's offset that it replaces (NOTES.md).
// Level 0 reads the affine bucket sums, so its run += A is a mixed addition.
#pragma once

#include <cstdint>

#include "ec/xyzz.hpp"

namespace cuzk::gpu::msm_detail {

constexpr unsigned log_segment = 4;
constexpr uint32_t segment = 1u << log_segment;

// Thread t = (row w, segment j) of rows of `len` elements of V (affine or XYZZ).
template <class V, class X>
__global__ void running_sum_kernel(const V* __restrict__ in, uint32_t len, uint32_t segs, uint32_t rows,
                                   X* __restrict__ r_out, X* __restrict__ t_out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= segs * rows) return;
  const uint32_t w = t / segs;
  const uint32_t j = t % segs;
  const uint32_t lo = j * segment;
  const uint32_t hi = min(len, lo + segment);
  const V* row = in + static_cast<std::size_t>(w) * len;
  X run = X::infinity(), sum = X::infinity();
  for (uint32_t i = hi - 1; i > lo; --i) {
    run += row[i];
    sum += run;
  }
  run += row[lo];
  r_out[t] = sum;
  t_out[t] = run;
}

// out[t] = sum of in[t g .. t g + g) within rows of `len` (the last group may be short).
template <class X>
__global__ void group_sum_kernel(const X* __restrict__ in, uint32_t len, uint32_t g, uint32_t out_len, uint32_t rows,
                                 X* __restrict__ out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= out_len * rows) return;
  const uint32_t row = t / out_len;
  const uint32_t col = t % out_len;
  const uint32_t b = col * g;
  const uint32_t e = min(len, b + g);
  X acc = X::infinity();
  for (uint32_t p = b; p < e; ++p) acc += in[static_cast<std::size_t>(row) * len + p];
  out[t] = acc;
}

}  // namespace cuzk::gpu::msm_detail
