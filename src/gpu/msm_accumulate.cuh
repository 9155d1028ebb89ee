// SPDX-License-Identifier: MIT OR Apache-2.0
// Bucket accumulation for the GPU MSM (msm.cuh): every bucket's points summed by rounds of
// pairwise affine additions whose slopes share one batched inversion.
//
// Why affine. A bucket += point step in XYZZ coordinates costs 8M + 2S (~10 products); an
// affine addition costs 1 product for the slope and 2 for the result, plus its share of an
// inversion, which Montgomery's trick (P. Montgomery, "Speeding the Pollard and elliptic curve
// methods of factorization", Math. Comp. 48, 1987) turns into 3 products per element and one
// inversion per batch: ~6 products in all, 40% fewer.
//
// Why rounds of pairs. Affine additions only batch when they are independent, so a bucket's run
// of m points is halved per round: round r adds entries (2i, 2i + 1) of every live bucket into
// entry i of the next round's array (an odd last entry is carried over alone), and a bucket is
// done when one entry is left, which then goes to its slot of the W x 2^(c-1) bucket array. A
// bucket of any size costs ceil(log2 m) rounds with all its pairs in parallel, so the millions
// of points a 0/1 witness puts into one bucket need no special plan.
//
// One round, for the slots [s0, s1) of a group of windows (plain kernels, one sync):
//  1. count: cnt_out[k] = ceil(cnt_in[k] / 2) for live buckets (round 0: every bucket but digit
//     0; later rounds: those with at least 2 entries left, the others are done);
//  2. scan: off_out = exclusive prefix sum of cnt_out; the total sizes the launches;
//  3. keys: input entry p of bucket k at even position i writes k to okey[off_out[k] + i/2], so
//     every output entry knows its bucket;
//  4. forward: thread t takes K consecutive outputs, computes each pair's slope denominator d
//     and stores the running products d_0 d_1 ... d_j (prefix, laid out [j][t] so that a warp's
//     stores coalesce) and the thread total;
//  5. invert: the totals are inverted in batches of 32 by the same trick (one field inversion per
//     32 threads' totals, i.e. per 32 K pairs; the inversion is the binary one of
//     ff/binary_inverse.hpp, whose latency is what each round waits for here);
//  6. backward: each thread walks its outputs backwards, peeling 1/d_j off the running inverse
//     (2 products), and writes x3 = l^2 - x1 - x2, y3 = l (x1 - x3) - y1 with l = n / d.
// Round 0 reads the resident points through the sorted (index | sign) values; later rounds read
// the previous round's output array.
//
// Special pairs keep d = 1 and take no slope: an absent partner or an infinity copies the other
// point, P + (-P) gives infinity, P + P doubles with slope 3x^2 / 2y (and 2-torsion, y = 0, gives
// infinity, so no d is ever zero and a batch's product is always invertible).
#pragma once

#include <cstdint>

#include "ec/affine.hpp"
#include "gpu/fp2_device.cuh"

namespace cuzk::gpu::msm_detail {

template <class T>
__device__ __forceinline__ T load_vec(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned v = 0; v < sizeof(T) / 16; ++v) d[v] = __ldg(s + v);
  return r;
}

template <class T>
__device__ __forceinline__ void store_vec(T* p, const T& x) {
  static_assert(sizeof(T) % 16 == 0);
  const uint4* s = reinterpret_cast<const uint4*>(&x);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned v = 0; v < sizeof(T) / 16; ++v) d[v] = s[v];
}

// Where a round's input entries live: round 0 gathers resident points through the sorted values
// (point index | sign << 31), later rounds read the previous round's outputs.
template <class A, bool First>
struct round_source {
  using F = typename A::field;
  const A* points;
  const uint32_t* vals;
  const A* buf;

  __device__ __forceinline__ A load(uint32_t p) const {
    if constexpr (First) {
      const uint32_t v = vals[p];
      A q = load_vec(points + (v & 0x7fffffffu));
      if ((v >> 31) != 0) q.y = -q.y;  // -(0) = 0: infinity stays (0, 0)
      return q;
    } else {
      return load_vec(buf + p);
    }
  }
  // Only the x coordinate (the sign does not change it).
  __device__ __forceinline__ F load_x(uint32_t p) const {
    if constexpr (First) return load_vec(&points[vals[p] & 0x7fffffffu].x);
    else return load_vec(&buf[p].x);
  }
};

// The per-slot arrays of one round and where its outputs go.
template <class A>
struct round_view {
  const uint32_t* cnt_in;
  const uint32_t* off_in;
  const uint32_t* cnt_out;
  const uint32_t* off_out;
  const uint32_t* okey;
  uint32_t total_out;
  unsigned c;        // window bits: slot k = (window << c) | bucket
  A* out;            // next round's entries, indexed like the outputs
  A* buckets;        // finished buckets, (window << (c-1)) | (bucket - 1)

  struct loc {
    uint32_t a;      // input position of the pair's first entry
    bool has_b;      // whether a + 1 belongs to the pair
    A* dest;
  };
  __device__ __forceinline__ loc locate(uint32_t o) const {
    const uint32_t k = okey[o];
    const uint32_t i = o - off_out[k];
    loc l;
    l.a = off_in[k] + 2 * i;
    l.has_b = 2 * i + 1 < cnt_in[k];
    if (cnt_out[k] == 1) {
      const uint32_t mask = (1u << c) - 1;
      l.dest = buckets + (((k >> c) << (c - 1)) | ((k & mask) - 1));
    } else {
      l.dest = out + o;
    }
    return l;
  }
};

enum pair_kind : uint32_t { pair_add, pair_dbl, pair_copy_a, pair_copy_b, pair_inf };

template <class A>
__device__ __forceinline__ pair_kind classify(const A& a, const A& b, bool has_b) {
  if (!has_b) return pair_copy_a;
  if (a.is_infinity()) return pair_copy_b;
  if (b.is_infinity()) return pair_copy_a;
  if (a.x != b.x) return pair_add;
  if (a.y == b.y && !a.y.is_zero()) return pair_dbl;
  return pair_inf;  // P + (-P), or 2P = O for a point of order 2
}

template <class F, class A>
__device__ __forceinline__ F denominator(pair_kind kind, const A& a, const A& b) {
  if (kind == pair_add) return b.x - a.x;
  if (kind == pair_dbl) return a.y.dbl();
  return F::one();
}

// The pair's denominator from x coordinates alone where that decides it (the common case); the
// full points are read only when the x coordinates are equal or zero (possible infinity).
template <class A, bool First>
__device__ __forceinline__ typename A::field forward_denominator(const round_source<A, First>& src, uint32_t a,
                                                                 bool has_b) {
  using F = typename A::field;
  if (!has_b) return F::one();
  const F xa = src.load_x(a);
  const F xb = src.load_x(a + 1);
  if (xa != xb && !xa.is_zero() && !xb.is_zero()) return xb - xa;
  const A pa = src.load(a);
  const A pb = src.load(a + 1);
  return denominator<F>(classify(pa, pb, true), pa, pb);
}

// Step 1. Round 0 also sets the round's input counts and offsets from the sorted runs.
static __global__ void count_first_kernel(const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                          uint32_t s0, uint32_t s1, uint32_t bucket_mask, uint32_t* __restrict__ cnt_in,
                                          uint32_t* __restrict__ off_in, uint32_t* __restrict__ cnt_out) {
  const uint32_t k = s0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= s1) return;
  const uint32_t m = (k & bucket_mask) == 0 ? 0 : end[k] - start[k];
  cnt_in[k] = m;
  off_in[k] = start[k];
  cnt_out[k] = (m + 1) / 2;
}

static __global__ void count_kernel(const uint32_t* __restrict__ cnt_in, uint32_t s0, uint32_t s1,
                                    uint32_t* __restrict__ cnt_out) {
  const uint32_t k = s0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= s1) return;
  const uint32_t m = cnt_in[k];
  cnt_out[k] = m >= 2 ? (m + 1) / 2 : 0;
}

// Step 3, over the round's input entries [p0, p1) (round 0: sorted positions, whose keys are the
// slots; later rounds: the previous outputs, whose keys are okey_in).
static __global__ void keys_kernel(const uint32_t* __restrict__ key_in, uint32_t p0, uint32_t p1,
                                   const uint32_t* __restrict__ off_in, const uint32_t* __restrict__ cnt_out,
                                   const uint32_t* __restrict__ off_out, uint32_t* __restrict__ okey) {
  const uint32_t p = p0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= p1) return;
  const uint32_t k = key_in[p];
  const uint32_t i = p - off_in[k];
  if ((i & 1) == 0 && cnt_out[k] != 0) okey[off_out[k] + i / 2] = k;
}

// Step 4.
template <class A, bool First>
__global__ void __launch_bounds__(256) forward_kernel(round_source<A, First> src, round_view<A> v, uint32_t per,
                                                      uint32_t threads, typename A::field* __restrict__ prefix,
                                                      typename A::field* __restrict__ totals) {
  using F = typename A::field;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const uint32_t o0 = t * per;
  const uint32_t o1 = min(v.total_out, o0 + per);
  F acc = F::one();
  for (uint32_t o = o0; o < o1; ++o) {
    const auto l = v.locate(o);
    acc = o == o0 ? forward_denominator(src, l.a, l.has_b) : acc * forward_denominator(src, l.a, l.has_b);
    store_vec(prefix + static_cast<std::size_t>(o - o0) * threads + t, acc);
  }
  store_vec(totals + t, acc);
}

// Step 5: x[i] = 1 / x[i] for i < m, invert_batch per thread by Montgomery's trick (none is zero).
constexpr uint32_t invert_batch = 32;
template <class F>
__global__ void __launch_bounds__(128) invert_kernel(F* __restrict__ x, uint32_t m) {
  constexpr uint32_t batch = invert_batch;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t i0 = t * batch;
  if (i0 >= m) return;
  const uint32_t i1 = min(m, i0 + batch);
  F pre[batch];  // pre[j] = x[i0] ... x[i0 + j - 1]
  F acc = F::one();
  for (uint32_t i = i0; i < i1; ++i) {
    pre[i - i0] = acc;
    acc = acc * load_vec(x + i);
  }
  F inv = acc.inverse();
  for (uint32_t i = i1; i-- > i0;) {
    const F xi = load_vec(x + i);
    store_vec(x + i, inv * pre[i - i0]);
    inv = inv * xi;
  }
}

// Step 6.
template <class A, bool First>
__global__ void __launch_bounds__(256) backward_kernel(round_source<A, First> src, round_view<A> v, uint32_t per,
                                                       uint32_t threads, const typename A::field* __restrict__ prefix,
                                                       const typename A::field* __restrict__ totals) {
  using F = typename A::field;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const uint32_t o0 = t * per;
  const uint32_t o1 = min(v.total_out, o0 + per);
  F inv = load_vec(totals + t);  // 1 / (d_0 ... d_last)
  for (uint32_t o = o1; o-- > o0;) {
    const auto l = v.locate(o);
    const A a = src.load(l.a);
    const A b = l.has_b ? src.load(l.a + 1) : A::infinity();
    const pair_kind kind = classify(a, b, l.has_b);
    A r;
    if (kind == pair_add || kind == pair_dbl) {
      // 1 / d_j = (d_0 ... d_{j-1}) / (d_0 ... d_j).
      const F inv_d = o == o0 ? inv : inv * load_vec(prefix + static_cast<std::size_t>(o - o0 - 1) * threads + t);
      if (o != o0) inv = inv * denominator<F>(kind, a, b);
      F num;
      if (kind == pair_add) {
        num = b.y - a.y;
      } else {
        const F xx = a.x.sqr();
        num = xx.dbl() + xx;
      }
      const F lambda = num * inv_d;
      r.x = lambda.sqr() - a.x - b.x;  // for a doubling b.x = a.x
      r.y = lambda * (a.x - r.x) - a.y;
    } else {
      // d = 1 leaves the running inverse as it is.
      r = kind == pair_copy_a ? a : kind == pair_copy_b ? b : A::infinity();
    }
    store_vec(l.dest, r);
  }
}

}  // namespace cuzk::gpu::msm_detail
