// SPDX-License-Identifier: MIT OR Apache-2.0
// Bucket accumulation in XYZZ coordinates for the GPU MSM (msm.cuh), the alternative to the
// batched affine rounds of msm_accumulate.cuh.
//
// Each bucket's sorted run is cut into work items of at most `part` points (part = max(32, twice
// the mean bucket load)); one thread per item sums its run into an XYZZ point with mixed
// additions (8M + 2S, ec/xyzz.hpp), the next point's load issued before the current addition;
// the items of one bucket are then added pairwise in log2(max parts) rounds, and each bucket's
// sum is scattered to its (window, bucket - 1) slot for the reduction.
//
// Threads take the items longest first (a radix sort of the items by length): the loads of
// random buckets are Poisson-like (mean 32 at 2^24 points, c = 20), and a warp whose 32 items
// have different lengths runs as long as its longest, so in slot order ~27% of the lanes idle;
// sorted, the lanes of a warp have (almost) equal lengths.
//
// Point ranges (msm.hpp chunks) add into the buckets the previous ranges left: a bucket's first
// item starts from the bucket's sum instead of infinity (no extra addition), and a bucket of one
// item, the common case, writes its sum straight back (no partial, no scatter).
//
// Why both: per addition XYZZ costs ~10 products but reads each point once and keeps its sum in
// registers; the affine rounds cost ~6.6 products but move ~4x the bytes and pay a latency-bound
// inversion and a host sync per round. On the H200 (docs/gpu/msm.md), once the items were sorted by
// length, XYZZ wins for G1 of both curves at every size measured; G2 uses the affine rounds only
// (its XYZZ kernel would need ~2x the registers).
#pragma once

#include <cstdint>

#include "gpu/msm_accumulate.cuh"

namespace cuzk::gpu::msm_detail {

// Parts per slot (bucket 0 of each window is "digit 0" and is skipped).
static __global__ void parts_kernel(const uint32_t* __restrict__ start, const uint32_t* __restrict__ end, uint32_t slots,
                             uint32_t bucket_mask, uint32_t part, uint32_t* __restrict__ parts) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots) return;
  parts[k] = (k & bucket_mask) == 0 ? 0 : (end[k] - start[k] + part - 1) / part;
}

// The slot of every work item.
static __global__ void items_kernel(const uint32_t* __restrict__ parts, const uint32_t* __restrict__ offs, uint32_t slots,
                             uint32_t* __restrict__ item_slot) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots) return;
  const uint32_t o = offs[k];
  for (uint32_t p = 0; p < parts[k]; ++p) item_slot[o + p] = k;
}

// Item lengths (the sort keys) and identities (the sorted values).
static __global__ void item_len_kernel(const uint32_t* __restrict__ item_slot, const uint32_t* __restrict__ start,
                                       const uint32_t* __restrict__ end, const uint32_t* __restrict__ offs,
                                       uint32_t part, uint32_t items, uint32_t* __restrict__ len,
                                       uint32_t* __restrict__ ord) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= items) return;
  const uint32_t k = item_slot[i];
  const uint32_t b = start[k] + (i - offs[k]) * part;
  len[i] = min(end[k], b + part) - b;
  ord[i] = i;
}

// The bucket array index of slot k = (window << c) | bucket, bucket >= 1.
__device__ __forceinline__ uint32_t bucket_index(uint32_t k, unsigned c) {
  return ((k >> c) << (c - 1)) | ((k & ((1u << c) - 1)) - 1);
}

// Thread t takes item ord[t]. With `carry`, a bucket's first item starts from the bucket's sum.
template <class A, class X>
__global__ void __launch_bounds__(128) accumulate_kernel(
    const A* __restrict__ points, const uint32_t* __restrict__ vals, const uint32_t* __restrict__ item_slot,
    const uint32_t* __restrict__ start, const uint32_t* __restrict__ end, const uint32_t* __restrict__ offs,
    const uint32_t* __restrict__ parts, const uint32_t* __restrict__ ord, uint32_t part, uint32_t items, unsigned c,
    bool carry, X* __restrict__ partial, X* __restrict__ buckets) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= items) return;
  const uint32_t i = ord[t];
  const uint32_t k = item_slot[i];
  const uint32_t p0 = i - offs[k];
  const uint32_t b = start[k] + p0 * part;
  const uint32_t e = min(end[k], b + part);
  const uint32_t dest = bucket_index(k, c);
  X acc = carry && p0 == 0 ? buckets[dest] : X::infinity();
  uint32_t v = vals[b];
  A next = load_vec(points + (v & 0x7fffffffu));
  for (uint32_t p = b; p < e; ++p) {
    A q = next;
    const bool neg = (v >> 31) != 0;
    if (p + 1 < e) {
      v = vals[p + 1];
      next = load_vec(points + (v & 0x7fffffffu));
    }
    if (neg) q.y = -q.y;  // -(0) = 0, so infinity stays (0, 0)
    acc += q;
  }
  if (parts[k] == 1) buckets[dest] = acc;
  else partial[i] = acc;
}

// Merge round r: item p of a bucket (p a multiple of 2^(r+1)) absorbs item p + 2^r.
template <class X>
__global__ void merge_kernel(X* __restrict__ partial, const uint32_t* __restrict__ item_slot,
                             const uint32_t* __restrict__ offs, const uint32_t* __restrict__ parts, uint32_t items,
                             unsigned r) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= items) return;
  const uint32_t k = item_slot[i];
  const uint32_t p = i - offs[k];
  if ((p & ((2u << r) - 1)) != 0 || p + (1u << r) >= parts[k]) return;
  partial[i] = partial[i] + partial[i + (1u << r)];
}

// buckets[(w << (c-1)) | (b - 1)] = the bucket's merged sum, for every slot of several items
// (those of one item wrote theirs already).
template <class X>
__global__ void scatter_kernel(const X* __restrict__ partial, const uint32_t* __restrict__ offs,
                               const uint32_t* __restrict__ parts, uint32_t slots, unsigned c,
                               X* __restrict__ buckets) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots || parts[k] < 2) return;
  buckets[bucket_index(k, c)] = partial[offs[k]];
}

}  // namespace cuzk::gpu::msm_detail
