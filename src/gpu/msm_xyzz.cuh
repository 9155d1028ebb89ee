// Bucket accumulation in XYZZ coordinates for the GPU MSM (msm.cuh), the alternative to the
// batched affine rounds of msm_accumulate.cuh.
//
// Each bucket's sorted run is cut into work items of at most `part` points (part = max(32, twice
// the mean bucket load)); one thread per item sums its run into an XYZZ point with mixed
// additions (8M + 2S, ec/xyzz.hpp), the next point's load issued before the current addition;
// the items of one bucket are then added pairwise in log2(max parts) rounds, and each bucket's
// sum is scattered to its (window, bucket - 1) slot for the reduction.
//
// Why both: per addition XYZZ costs ~10 products but reads each point once and keeps its sum in
// registers; the affine rounds cost ~6.6 products but move ~4x the bytes and pay a latency-bound
// inversion and a host sync per round. On the H200 (NOTES.md) XYZZ wins for BN254 G1 at every
// size and for BLS12-381 G1 up to 2^20; the affine rounds win for BLS12-381 G1 above that.
// G2 uses the affine rounds only (its XYZZ kernel would need ~2x the registers).
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

// One thread per item.
template <class A, class X>
__global__ void accumulate_kernel(const A* __restrict__ points, const uint32_t* __restrict__ vals,
                                  const uint32_t* __restrict__ item_slot, const uint32_t* __restrict__ start,
                                  const uint32_t* __restrict__ end, const uint32_t* __restrict__ offs, uint32_t part,
                                  uint32_t items, X* __restrict__ partial) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= items) return;
  const uint32_t k = item_slot[i];
  const uint32_t b = start[k] + (i - offs[k]) * part;
  const uint32_t e = min(end[k], b + part);
  X acc = X::infinity();
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
  partial[i] = acc;
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

// buckets[(w << (c-1)) | (b - 1)] = the bucket's merged sum, for every occupied slot.
template <class X>
__global__ void scatter_kernel(const X* __restrict__ partial, const uint32_t* __restrict__ offs,
                               const uint32_t* __restrict__ parts, uint32_t slots, unsigned c,
                               X* __restrict__ buckets) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots || parts[k] == 0) return;
  const uint32_t mask = (1u << c) - 1;
  buckets[((k >> c) << (c - 1)) | ((k & mask) - 1)] = partial[offs[k]];
}

}  // namespace cuzk::gpu::msm_detail
