// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernels and host code behind ntt.hpp, as templates over the CPU field type; included only by
// ntt_<curve>.cu, which hold the explicit instantiations.
//
// Structure. A radix-2 transform of n = 2^L points has L stages; stage s (numbered in the order a
// natural-order input runs them, "frequency order"; a bit-reversed input runs them backwards, "time
// order") pairs elements i and i + n/2^(s+1). A pass runs k consecutive stages s0..s0+k-1 on
// blocks of 2^b elements (b = 10): 2^k rows at stride S = n/2^(s0+k) (the rows one butterfly group
// of those stages touches) times C = 2^(b-k) neighbouring columns, so global reads and writes come
// in runs of C elements (C >= 4: runs of >= 128 bytes). The last pass (S = 1) is one contiguous run
// of up to 2^b elements; the stages before it go into passes of at most 8 (and at least 3) stages
// (plan_passes), so 2^24 is 6 + 8 + 10 stages in three passes.
//
// Inside a pass each thread holds 2^R elements of one column in registers, rows r0 + m 2^p
// (m < 2^R), and runs up to R stages on them (radix 2^R: the stages whose pair distance is 2^p ..
// 2^(p+R-1)) before the block exchanges elements through shared memory for the next R. A pass of k
// stages is ceil(k/R) such rounds of R stages, except the one that runs last, which takes k mod R
// where R does not divide k: 2^10 is 3 + 3 + 3 + 1 with radix 8 (R = 3, from 2^21 points) and
// 2 + 2 + 2 + 2 + 2 with radix 4 (R = 2, smaller domains). The first round loads straight from
// global memory and the last stores straight back. Radix 8 needs 128 registers per thread (16
// warps per SM), radix 4 80 (24 warps): more exchanges against more warps to overlap carry-chain
// latency, barriers and loads; which wins depends on the product (docs/gpu/ntt.md, 'Radix 4 at four
// blocks per SM' and 'Radix 8 again'), hence the two shapes below.
//
// Butterflies and orders. Every butterfly is Cooley-Tukey's (lo, hi) -> (lo + w hi, lo - w hi),
// whose product comes first and takes values in [0, 2p) as they are (ntt_lazy.cuh). A transform
// from natural order runs the stages s = 0, 1, .. and writes bit-reversed order: stage s splits
// each block of n/2^s elements (a residue mod x^(n/2^s) - c) into two halves, and the twiddle
// depends on the block's number v = i >> (L - s): omega_n^(2^(L-s-1) brv_s(v)) ("by block").
// A transform from bit-reversed order runs the stages backwards and writes natural order: the
// twiddle of stage s is omega_n^(j 2^s), j = i mod n/2^(s+1) ("by offset"), the butterfly that
// undoes the Gentleman-Sande butterfly (lo + hi, (lo - hi) w) of stage s. So one kernel serves all
// four direction/order combinations; the two orders read different tables (ntt_tables). The
// Gentleman-Sande butterfly would serve natural input with the by-offset table, but its difference
// must be below 2^256 before its product: for BLS12-381 Fr (4p > 2^256) that needed canonical
// values and made the forward transform 7% slower (docs/gpu/ntt.md, 'Cooley-Tukey butterflies from
// natural order too').
//
// Arithmetic: lazy reduction (ntt_lazy.cuh). Values stay in [0, 2p) from the first butterfly to the
// last pass's store, which makes them canonical (before its 1/n and coset scaling); the products
// skip their final subtraction (docs/gpu/ntt.md, 'Lazy reduction'). The product by a twiddle is Shoup's form
// (ntt_shoup.cuh): the twiddle's quotient by p is stored beside it, which saves 22% of the
// multiplies of a Montgomery product (docs/gpu/ntt.md, 'Shoup's product').
//
// Twiddles are read from the plan's Shoup planes, one 64-byte pair (four 16-byte quarters) per
// distinct twiddle: a round needs 2^R - 1 of them per thread (3 for radix 4, 7 for radix 8). Each
// stage has its own run of entries, ordered by block number or offset, and each quarter its own
// plane, so the lanes of a warp, which read neighbouring entries (consecutive columns or rows),
// read whole cache lines; read from one table of all powers instead, the pairs saturated L1
// (docs/gpu/ntt.md, 'Shoup's product'). The planes are cut into tiles of 2^10 entries (quarter_slot), so an
// entry's four loads take one address computation and fixed offsets (docs/gpu/ntt.md, 'Tiled planes,
// twiddles loaded ahead'). In the round that runs first from natural order (the first pass's top one) and the
// one that runs last from bit-reversed order (the last pass's bottom one) the first twiddle of each
// stage is 1 and its butterflies skip their product: with radix 4, 1 product per 4 elements there instead of
// 4; with radix 8, 5 per 8 instead of 12.
//
// Shared memory holds the elements word-sliced (word w of element e at [w][e], e = row * C +
// column), with bits 0-4 of e XORed with a linear function of bits 5-7: a warp reads, for one m,
// runs of C 2^p elements at stride 2^R C 2^p, and that swizzle puts every such pattern (run
// lengths 1 to 32, R = 2 or 3) on 32 distinct banks (checked exhaustively when it was chosen).
//
// The cost: about (n/2) L - 7n/8 products, 1.87e8 at 2^24, which at the measured 7.2e10 Shoup
// products/s (both fields; docs/gpu/ntt.md, 'Shoup's product') is 2.6 ms, against about 0.8 ms for the
// three passes' 3 GiB of traffic at ~4 TB/s, which resident blocks overlap with each other's
// arithmetic; the butterflies' additions, exchanges and barriers take the rest (3.36 ms BN254, 3.42 ms
// BLS12-381 forward at 2^24, docs/gpu/ntt.md).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ff/roots_of_unity.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/fp_device.cuh"
#include "gpu/ntt.hpp"
#include "gpu/ntt_lazy.cuh"
#include "gpu/ntt_lazy.hpp"
#include "gpu/ntt_shoup.cuh"

namespace cuzk::gpu {

namespace ntt_detail {

// The curve's fixed generator of Fr^* (the curve header's fr_generator), from the field type.
template <class Fr>
constexpr uint64_t fr_generator() {
  if constexpr (std::is_same_v<Fr, bn254::fr>)
    return bn254::fr_generator;
  else
    return bls12_381::fr_generator;
}

// 2^10 elements per block (32 KiB of shared memory) in one of two shapes, chosen by the domain size:
// - radix 8 (2^21 points and up): 8 elements in registers for each of 128 threads, four blocks per
//   SM, so 128 registers per thread and 16 warps per SM; a round runs three stages between
//   exchanges, so a transform has a third fewer exchanges, barriers and twiddle reads per element.
// - radix 4 (below): 4 elements for each of 256 threads, three blocks per SM, 80 registers and 24
//   warps per SM. Small domains have too few blocks to fill the GPU with 128-thread blocks (2^16:
//   0.036 ms against 0.047 with radix 8).
// docs/gpu/ntt.md ('Radix 4 at four blocks per SM', 'Shoup's product') has the measurements: with
// Montgomery products radix 4 at four blocks per SM was the better shape; with Shoup's product radix 8
// is 4-6% faster at 2^22 - 2^24, and radix 4 at four blocks per SM (64 registers) spills 100-200 bytes
// and was 9% slower.
constexpr unsigned log_block = 10;
template <unsigned LogPerThread>
struct pass_shape_of {
  static constexpr unsigned block_threads = (1u << log_block) >> LogPerThread;
  static constexpr unsigned min_blocks_per_sm = LogPerThread == 3 ? 4 : 3;
};
constexpr unsigned radix8_from_log_n = 21;
// Stages of a pass before the last: at most 8 (so at least 4 columns, 128-byte runs), at least 3.
constexpr unsigned max_stages = log_block - 2;
constexpr unsigned min_stages = 3;

enum class scale_mode : uint8_t { none, table, n_inv, n_inv_table };

template <class D>
struct pass_args {
  unsigned log_n;
  unsigned s0;                   // first stage (frequency-order numbering)
  unsigned k;                    // stages in this pass, >= 3
  unsigned log_c;                // columns per block (0 for the last pass)
  scale_mode pre;                // applied to each element as it is loaded (forward coset)
  scale_mode post;               // applied as it is stored (inverse: 1/n and the coset)
  bool pre_bitrev, post_bitrev;  // the scale table is indexed by the bit-reversed position
  bool last;                     // the last pass: make the values canonical as they are stored
  const D* pre_table;
  const D* post_table;
  // A compact plan's scale tables are split (ntt_plan::pow_fwd_): with pre_hi / post_hi set, the
  // factor at i is table[i mod 2^log_pow_lo] hi[i >> log_pow_lo].
  const D* pre_hi;
  const D* post_hi;
  unsigned log_pow_lo;
  // A computing pass's omega_n^x, x < n/2: omega_lo[x mod 2^log_omega_lo] omega_hi[x >> log_omega_lo].
  const D* omega_lo;
  const D* omega_hi;
  unsigned log_omega_lo;
  D n_inv;
};

template <class D>
__device__ __forceinline__ D load_vec(const D* p) {
  static_assert(sizeof(D) % 16 == 0);
  D r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned v = 0; v < sizeof(D) / 16; ++v) d[v] = __ldg(s + v);
  return r;
}

template <class D>
__device__ __forceinline__ void store_vec(D* p, const D& x) {
  const uint4* s = reinterpret_cast<const uint4*>(&x);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned v = 0; v < sizeof(D) / 16; ++v) d[v] = s[v];
}

__device__ __forceinline__ std::size_t bitrev(std::size_t i, unsigned log_n) {
  return static_cast<std::size_t>(__brevll(static_cast<unsigned long long>(i)) >> (64 - log_n));
}

// Entry i of a table kept whole (hi null) or split in two: lo[i mod 2^log_lo] hi[i >> log_lo].
template <class D>
__device__ __forceinline__ D split_entry(const D* lo, const D* hi, unsigned log_lo, std::size_t i) {
  if (hi == nullptr) return load_vec(lo + i);
  return load_vec(lo + (i & ((std::size_t{1} << log_lo) - 1))) * load_vec(hi + (i >> log_lo));
}

template <class D>
__device__ __forceinline__ D apply_scale(const D& x, scale_mode mode, const D* table, const D* hi,
                                         unsigned log_lo, bool by_bitrev, std::size_t g, unsigned log_n,
                                         const D& n_inv) {
  if (mode == scale_mode::none) return x;
  if (mode == scale_mode::n_inv) return x * n_inv;
  const D t = split_entry(table, hi, log_lo, by_bitrev ? bitrev(g, log_n) : g);
  return mode == scale_mode::table ? x * t : (x * n_inv) * t;
}

// Shared-memory slot of element e: bits 0-4 XOR (bit 5 ? 11 : 0) ^ (bit 6 ? 22 : 0) ^ (bit 7 ? 25 : 0).
// Among the 2^15 such XOR maps this is one that gives 32 distinct banks for every access pattern of
// the rounds (runs of 2^a elements at stride 2^(a+2), a = 0..5, at every offset m 2^a, m < 4);
// found by exhaustive search (it also suits 8 elements per thread, stride 2^(a+3)).
__device__ __forceinline__ unsigned swizzle(unsigned e) {
  const unsigned h = e >> 5;
  return e ^ ((h & 1u) * 11u) ^ (((h >> 1) & 1u) * 22u) ^ (((h >> 2) & 1u) * 25u);
}

// Quarter q of Shoup entry e. The planes are cut into tiles of 2^10 entries with the four
// quarter-planes of a tile side by side, so an entry's four loads share one address and differ by
// fixed offsets (one address computation instead of four).
constexpr unsigned log_tile = ntt_log_tile;
__host__ __device__ constexpr std::size_t quarter_slot(std::size_t e, unsigned q) {
  return ((e >> log_tile) << (log_tile + 2)) + (static_cast<std::size_t>(q) << log_tile) +
         (e & ((std::size_t{1} << log_tile) - 1));
}

// The butterfly (lo, hi) -> (lo + w hi, lo - w hi) by the twiddle pair w, on values in [0, 2p).
template <class D>
__device__ __forceinline__ void butterfly(const ntt_shoup::twiddle<D>& w, D& lo, D& hi) {
  const D t = ntt_shoup::mul(w, hi);
  hi = ntt_lazy::sub(lo, t);
  lo = ntt_lazy::add(lo, t);
}

// The same butterfly by a twiddle in Montgomery form (a compact plan's computed twiddles, which
// have no Shoup quotient): the product wants its factors below p.
template <class D>
__device__ __forceinline__ void butterfly(const D& w, D& lo, D& hi) {
  const D t = ntt_lazy::canonical(hi) * w;
  hi = ntt_lazy::sub(lo, t);
  lo = ntt_lazy::add(lo, t);
}

// The butterfly whose twiddle is 1: no product.
template <class D>
__device__ __forceinline__ void unit_butterfly(D& lo, D& hi) {
  const D a = lo;
  lo = ntt_lazy::add(a, hi);
  hi = ntt_lazy::sub(a, hi);
}

// The twiddle pair at entry e of the plan's Shoup planes: four 16-byte loads from one address.
template <class D>
__device__ __forceinline__ ntt_shoup::twiddle<D> load_twiddle(const uint4* __restrict__ planes,
                                                              std::size_t e) {
  ntt_shoup::twiddle<D> w;
  uint4* quarters = reinterpret_cast<uint4*>(&w);
  const uint4* entry = planes + quarter_slot(e, 0);
#pragma unroll
  for (unsigned q = 0; q < 4; ++q) quarters[q] = __ldg(entry + (q << log_tile));
  return w;
}

// The butterflies of one stage of a round over a thread's P elements, pairs (m, m + 2^Dbit) with
// bit Dbit of m clear, fall into groups that share a twiddle. Time order (twiddles by offset): the
// twiddle follows m mod 2^Dbit, so 2^Dbit groups of P / 2^(Dbit+1) butterflies, m = t + g 2^(Dbit+1).
// Frequency order (twiddles by block): it follows m >> (Dbit + 1), so P / 2^(Dbit+1) groups of
// 2^Dbit, m = t 2^(Dbit+1) + g. Group t's twiddle is entry e0 + t estep of the plan's planes.
template <bool Dit, unsigned Dbit, unsigned P>
struct stage_groups {
  static constexpr unsigned count = Dit ? 1u << Dbit : P >> (Dbit + 1);
  static constexpr unsigned size = P / 2 / count;
  static constexpr unsigned lo(unsigned t, unsigned g) {
    return Dit ? t + g * (2u << Dbit) : (t << (Dbit + 1)) + g;
  }
};

// The butterflies of group t of a stage, each by twiddle() (or by 1, without a product, for group
// 0 with `unit`).
template <class D, bool Dit, unsigned Dbit, unsigned P, class Twiddle>
__device__ __forceinline__ void group_butterflies(D (&x)[P], unsigned t, bool unit, Twiddle&& twiddle) {
  using groups = stage_groups<Dit, Dbit, P>;
#pragma unroll
  for (unsigned g = 0; g < groups::size; ++g) {
    const unsigned m = groups::lo(t, g);
    const unsigned m1 = m | (1u << Dbit);
    if (t == 0 && unit)
      unit_butterfly<D>(x[m], x[m1]);
    else
      butterfly<D>(twiddle(), x[m], x[m1]);
  }
}

// One stage of a round. With `unit` group 0's twiddle is 1 and its products are skipped. Each
// butterfly's twiddle is loaded just before it (radix 4).
template <class D, bool Dit, unsigned Dbit, unsigned P>
__device__ __forceinline__ void radix2_stage(D (&x)[P], const uint4* __restrict__ planes, std::size_t e0,
                                             std::size_t estep, bool unit) {
#pragma unroll
  for (unsigned t = 0; t < stage_groups<Dit, Dbit, P>::count; ++t)
    group_butterflies<D, Dit, Dbit>(x, t, unit, [&] { return load_twiddle<D>(planes, e0 + t * estep); });
}

// The twiddle of Shoup entry e of stage s, made from omega_n's powers (a compact plan's computing
// passes): by offset (Dit), e = n - n/2^s + j holds omega_n^(j 2^s); by block, e = 2^s - 1 + v
// holds omega_n^(2^(L-s-1) brv_s(v)). One Montgomery product of two short tables' entries.
template <class D, bool Dit>
__device__ __forceinline__ D computed_twiddle(std::size_t e, unsigned s, unsigned log_n, const pass_args<D>& a) {
  std::size_t x;
  if constexpr (Dit) {
    const std::size_t n = std::size_t{1} << log_n;
    x = (e - (n - (n >> s))) << s;
  } else {
    const std::size_t v = e - ((std::size_t{1} << s) - 1);
    x = s == 0 ? 0 : bitrev(v, s) << (log_n - s - 1);
  }
  return split_entry(a.omega_lo, a.omega_hi, a.log_omega_lo, x);
}

// One stage of a round with computed twiddles (stage s of the transform): one per group, made
// before the group's butterflies.
template <class D, bool Dit, unsigned Dbit, unsigned P>
__device__ __forceinline__ void radix2_stage_computed(D (&x)[P], std::size_t e0, std::size_t estep, bool unit,
                                                      unsigned s, const pass_args<D>& a) {
#pragma unroll
  for (unsigned t = 0; t < stage_groups<Dit, Dbit, P>::count; ++t) {
    D w{};
    if (t != 0 || !unit) w = computed_twiddle<D, Dit>(e0 + t * estep, s, a.log_n, a);
    group_butterflies<D, Dit, Dbit>(x, t, unit, [&]() -> const D& { return w; });
  }
}

// The same stage with its twiddle loads one group ahead (radix 8): each group's products run while
// the next group's twiddle loads, across stages too: w holds this stage's first twiddle on entry
// and, with LoadNext, the next stage's (entry next_e0) on exit. The loads' latency (DRAM in a pass
// with many distinct twiddles, L2 otherwise) is then covered by a group's products instead of by
// other warps alone (docs/gpu/ntt.md, 'Tiled planes, twiddles loaded ahead', (5)).
template <class D, bool Dit, unsigned Dbit, unsigned P, bool LoadNext>
__device__ __forceinline__ void radix2_stage_pipelined(D (&x)[P], const uint4* __restrict__ planes,
                                                       ntt_shoup::twiddle<D>& w, std::size_t e0,
                                                       std::size_t estep, bool unit, std::size_t next_e0) {
  constexpr unsigned count = stage_groups<Dit, Dbit, P>::count;
#pragma unroll
  for (unsigned t = 0; t < count; ++t) {
    ntt_shoup::twiddle<D> next;
    if (t + 1 < count)
      next = load_twiddle<D>(planes, e0 + (t + 1) * estep);
    else if (LoadNext)
      next = load_twiddle<D>(planes, next_e0);
    group_butterflies<D, Dit, Dbit>(x, t, unit, [&]() -> const ntt_shoup::twiddle<D>& { return w; });
    if (t + 1 < count || LoadNext) w = next;
  }
}

// One pass of k >= 3 stages over blocks of 2^(k + log_c) elements, 2^(k + log_c - R) threads each,
// its twiddles read from the Shoup planes `tw` or, with Computed, made from omega_n's powers.
template <class D, bool Dit, unsigned R, bool Computed>
__global__ void __launch_bounds__(pass_shape_of<R>::block_threads, pass_shape_of<R>::min_blocks_per_sm)
    pass_kernel(D* __restrict__ data, const uint4* __restrict__ tw, pass_args<D> a) {
  constexpr unsigned W = D::n;
  constexpr unsigned P = 1u << R;
  extern __shared__ uint32_t smem[];
  const unsigned L = a.log_n;
  const unsigned k = a.k;
  const unsigned E = 1u << (k + a.log_c);
  const unsigned C = 1u << a.log_c;
  const unsigned log_s = L - a.s0 - k;
  const std::size_t S = std::size_t{1} << log_s;
  const std::size_t chunks = S >> a.log_c;
  const std::size_t hi = blockIdx.x / chunks;
  const std::size_t lo = (blockIdx.x % chunks) << a.log_c;
  const std::size_t base = (hi << (L - a.s0)) + lo;
  const unsigned c = threadIdx.x & (C - 1);
  const unsigned rest = threadIdx.x >> a.log_c;
  const std::size_t col = lo + c;  // the twiddles' column term; 0 in the last pass
  const unsigned rounds = (k + R - 1) / R;

  D x[P];
  for (unsigned rr = 0; rr < rounds; ++rr) {
    // Round r in frequency order (largest pair distances first) runs the stages with pair
    // distances 2^lo_b .. 2^hi_b: R of them, except that where R does not divide k the round that
    // runs last has k mod R: the top one in time order, the bottom one in frequency order. So the
    // first round is always whole, and in frequency order that is where the first pass's twiddles
    // 1 are (7 of 12 products skipped, against 3 of 4 in a round of two stages).
    const unsigned r = Dit ? rounds - 1 - rr : rr;
    const unsigned hi_b = Dit ? (r == 0 ? k - 1 : R * (rounds - r) - 1) : k - 1 - R * r;
    const unsigned lo_b = Dit ? R * (rounds - 1 - r) : (hi_b + 1 > R ? hi_b + 1 - R : 0);
    // The thread's rows in this round: row_lo + m 2^p + row_hi 2^(p+R), m < 2^R.
    const unsigned p = min(lo_b, k - R);
    const unsigned row_lo = rest & ((1u << p) - 1);
    const unsigned row_hi = rest >> p;
    const unsigned row0 = row_lo + (row_hi << (p + R));

    if (rr == 0) {
#pragma unroll
      for (unsigned m = 0; m < P; ++m) {
        const std::size_t g = base + (static_cast<std::size_t>(row0 + (m << p)) << log_s) + c;
        x[m] = apply_scale(load_vec(data + g), a.pre, a.pre_table, a.pre_hi, a.log_pow_lo, a.pre_bitrev, g, L,
                           a.n_inv);
      }
    } else {
#pragma unroll
      for (unsigned m = 0; m < P; ++m) {
        const unsigned e = swizzle(((row0 + (m << p)) << a.log_c) + c);
#pragma unroll
        for (unsigned w = 0; w < W; ++w) x[m].limb[w] = smem[w * E + e];
      }
    }

    // Stage with pair distance 2^b rows, b = p + d, when lo_b <= b <= hi_b: stage
    // s = s0 + k - 1 - b. Its element i pairs with i + n/2^(s+1) (file comment), and the pair's
    // twiddle (offset_table_kernel, block_table_kernel) is:
    // - time order, by offset: omega_n^(j 2^s), j = i mod n/2^(s+1) = (row mod 2^b) S + col, with
    //   row mod 2^b = row_lo + t 2^p (group t = m mod 2^d), at entry n - n/2^s + j;
    // - frequency order, by block: omega_n^(2^(L-s-1) brv_s(v)), v = i >> (L - s) =
    //   hi 2^(k-1-b) + row >> (b + 1), with row >> (b + 1) = row_hi 2^(R-1-d) + t (group t =
    //   m >> (d + 1)), at entry 2^s - 1 + v.
    // Twiddle 1: time order in the bottom round of the last pass (j = 0 for t = 0); frequency
    // order in the top round of the first pass (v = 0 for t = 0: hi = 0 and row_hi = 0 there).
    const bool unit = Dit ? log_s == 0 && p == 0 : a.s0 == 0 && r == 0;
    const std::size_t n_all = std::size_t{1} << L;
    auto runs = [&](unsigned d) { return p + d >= lo_b && p + d <= hi_b; };
    auto first_entry = [&](unsigned d) -> std::size_t {
      const unsigned b = p + d;
      const unsigned s = a.s0 + k - 1 - b;
      if constexpr (Dit)
        return n_all - (n_all >> s) + (static_cast<std::size_t>(row_lo) << log_s) + col;
      else
        return (std::size_t{1} << s) - 1 + (hi << (k - 1 - b)) +
               (static_cast<std::size_t>(row_hi) << (R - 1 - d));
    };
    const std::size_t estep = Dit ? S << p : 1;
    // Radix 8 loads its twiddles one group ahead (radix2_stage_pipelined); with radix 4 the extra
    // pair in registers spilled and 2^20 was 5% slower (docs/gpu/ntt.md, 'Tiled planes ...', (5)).
    constexpr bool pipelined = R == 3 && !Computed;
    [[maybe_unused]] ntt_shoup::twiddle<D> w;
    if constexpr (pipelined) {
      // The first stage to run: the largest d that runs in frequency order, the smallest in time
      // order (a round may have fewer than R stages).
      unsigned d_first = Dit ? 0 : R - 1;
      while (!runs(d_first)) d_first = Dit ? d_first + 1 : d_first - 1;
      w = load_twiddle<D>(tw, first_entry(d_first));
    }
    auto stage = [&](auto dbit) {
      constexpr unsigned d = decltype(dbit)::value;
      if (!runs(d)) return;
      const std::size_t e0 = first_entry(d);
      if constexpr (Computed) {
        radix2_stage_computed<D, Dit, d, P>(x, e0, estep, unit, a.s0 + k - 1 - (p + d), a);
      } else if constexpr (pipelined) {
        constexpr bool last = Dit ? d == R - 1 : d == 0;  // in this round's order
        constexpr unsigned next = last ? d : (Dit ? d + 1 : d - 1);
        const std::size_t next_e0 = !last && runs(next) ? first_entry(next) : e0;
        radix2_stage_pipelined<D, Dit, d, P, !last>(x, tw, w, e0, estep, unit, next_e0);
      } else {
        radix2_stage<D, Dit, d, P>(x, tw, e0, estep, unit);
      }
    };
    if constexpr (Dit) {
      stage(std::integral_constant<unsigned, 0>{});
      stage(std::integral_constant<unsigned, 1>{});
      if constexpr (R > 2) stage(std::integral_constant<unsigned, 2>{});
    } else {
      if constexpr (R > 2) stage(std::integral_constant<unsigned, 2>{});
      stage(std::integral_constant<unsigned, 1>{});
      stage(std::integral_constant<unsigned, 0>{});
    }

    if (rr + 1 < rounds) {
      if (rr > 0) __syncthreads();  // every thread has read the previous exchange
#pragma unroll
      for (unsigned m = 0; m < P; ++m) {
        const unsigned e = swizzle(((row0 + (m << p)) << a.log_c) + c);
#pragma unroll
        for (unsigned w = 0; w < W; ++w) smem[w * E + e] = x[m].limb[w];
      }
      __syncthreads();
    } else {
#pragma unroll
      for (unsigned m = 0; m < P; ++m) {
        const std::size_t g = base + (static_cast<std::size_t>(row0 + (m << p)) << log_s) + c;
        const D v = a.last ? ntt_lazy::canonical(x[m]) : x[m];
        store_vec(data + g,
                  apply_scale(v, a.post, a.post_table, a.post_hi, a.log_pow_lo, a.post_bitrev, g, L, a.n_inv));
      }
    }
  }
}

// Transforms of 2 and 4 points (fewer than a pass's 3 stages), straight from the definition by one
// thread: X_f = sum_i x_i omega_n^(i f), omega_n = g^2 = tw[1]^2, with the coset and 1/n steps.
// tw is g^i for the direction (its coset table too).
template <class D>
__global__ void tiny_kernel(D* __restrict__ data, const D* __restrict__ tw, unsigned log_n, bool forward,
                            bool coset, bool bitrev_in, bool bitrev_out, D n_inv) {
  const unsigned n = 1u << log_n;
  D x[4], wp[4];
  wp[0] = D::one();
  const D w = tw[1] * tw[1];
  for (unsigned i = 1; i < n; ++i) wp[i] = wp[i - 1] * w;
  for (unsigned i = 0; i < n; ++i) {
    x[i] = data[bitrev_in ? bitrev(i, log_n) : i];
    if (forward && coset) x[i] = x[i] * tw[i];
  }
  for (unsigned f = 0; f < n; ++f) {
    D acc = D::zero();
    for (unsigned i = 0; i < n; ++i) acc = acc + x[i] * wp[(i * f) & (n - 1)];
    if (!forward) {
      acc = acc * n_inv;
      if (coset) acc = acc * tw[f];
    }
    data[bitrev_out ? bitrev(f, log_n) : f] = acc;
  }
}

// In-place bit-reversal permutation: each pair (i, rev i) is swapped by the thread of the smaller.
template <class D>
__global__ void bitrev_kernel(D* __restrict__ data, unsigned log_n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  const std::size_t j = bitrev(i, log_n);
  if (i < j) {
    const D a = load_vec(data + i);
    const D b = load_vec(data + j);
    store_vec(data + i, b);
    store_vec(data + j, a);
  }
}

// table[i] = lo[i mod B] * hi[i / B]: the powers g^i from two short host-made tables.
template <class D>
__global__ void powers_kernel(D* __restrict__ table, const D* __restrict__ lo, const D* __restrict__ hi,
                              unsigned log_b, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  table[i] = lo[i & ((std::size_t{1} << log_b) - 1)] * hi[i >> log_b];
}

// Stores twiddle pair t as entry e of the Shoup planes: plane q holds quarter q of every pair,
// tiled by quarter_slot.
template <class D>
__device__ __forceinline__ void store_twiddle(uint4* __restrict__ planes, std::size_t e,
                                              const ntt_shoup::twiddle<D>& t) {
  const uint4* src = reinterpret_cast<const uint4*>(&t);
#pragma unroll
  for (unsigned q = 0; q < 4; ++q) planes[quarter_slot(e, q)] = src[q];
}

// The twiddle tables below are made from omega_n's powers in two short tables,
// omega_n^x = lo[x mod 2^log_lo] hi[x >> log_lo] for x < n/2 (ntt_plan::create), and hold the entries
// from `first` (a multiple of the tile) on: entry e is stored at e - first.
//
// Stage s's twiddles by offset (the time-order transforms): entry n - n/2^s + j holds the pair of
// omega_n^(j 2^s), j < n/2^(s+1). Consecutive j sit side by side, so the lanes of a warp that read
// neighbouring twiddles read whole cache lines.
template <class D>
__global__ void offset_table_kernel(uint4* __restrict__ planes, std::size_t first, const D* __restrict__ lo,
                                    const D* __restrict__ hi, unsigned log_lo, unsigned log_n, unsigned s) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = std::size_t{1} << log_n;
  if (j >= (n >> (s + 1))) return;
  store_twiddle(planes, n - (n >> s) + j - first, ntt_shoup::make_twiddle(split_entry(lo, hi, log_lo, j << s)));
}

// Stage s's twiddles by block (the frequency-order transforms): entry 2^s - 1 + v holds the pair of
// omega_n^(2^(L-s-1) brv_s(v)), v < 2^s, in the order of v, which neighbouring lanes read.
template <class D>
__global__ void block_table_kernel(uint4* __restrict__ planes, std::size_t first, const D* __restrict__ lo,
                                   const D* __restrict__ hi, unsigned log_lo, unsigned log_n, unsigned s) {
  const std::size_t v = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (v >> s) return;
  const std::size_t x = s == 0 ? 0 : bitrev(v, s) << (log_n - s - 1);
  store_twiddle(planes, (std::size_t{1} << s) - 1 + v - first,
                ntt_shoup::make_twiddle(split_entry(lo, hi, log_lo, x)));
}

// One pass: stages s0 .. s0 + k - 1 (frequency order) on blocks of 2^k rows x 2^log_c columns.
struct pass_shape {
  unsigned s0, k, log_c;
};

// The passes of a transform of 2^log_n >= 8 points, in frequency order, for rounds of r stages. Up
// to 2^10 points, one pass. Beyond, blocks of 2^10 elements: a last pass of up to 10 stages (one
// contiguous run) after passes of 3 .. 8 stages (at least 4 columns). For radix 4 (r = 2) those are
// split as evenly as possible: 2^11: 3 + 8; 2^12: 3 + 9; 2^16: 6 + 10; 2^18: 8 + 10; 2^19: 5 + 4 + 10;
// 2^20: 5 + 5 + 10. For radix 8 (r = 3) the split with the fewest rounds (sum of ceil(k / 3)) comes
// first, the most even among those next: 2^24 is 6 + 8 + 10 (2 + 3 + 4 rounds) rather than
// 7 + 7 + 10 (3 + 3 + 4). The order of the passes before the last: smaller first where the
// transform runs them in this order (natural input), larger first where it runs them backwards
// (bit-reversed input, which then runs 10, 6, 8), each measured 0.5-1% faster at 2^24 than the
// other order (docs/gpu/ntt.md, 'Cooley-Tukey butterflies from natural order too', (2)).
inline std::vector<pass_shape> plan_passes(unsigned log_n, unsigned r = 2, bool natural_input = true) {
  std::vector<pass_shape> passes;
  if (log_n <= log_block) {
    passes.push_back({0, log_n, 0});
    return passes;
  }
  constexpr unsigned b = log_block;
  const unsigned max_k = max_stages;
  const unsigned rest = std::max(log_n - b, min_stages);
  const unsigned np = (rest + max_k - 1) / max_k;
  std::vector<unsigned> ks(np);
  for (unsigned i = 0; i < np; ++i) ks[i] = rest / np + (i < rest % np ? 1 : 0);  // even, larger first
  if (r > 2) {
    // Every ascending split of `rest` into np passes of min_stages .. max_k (np <= 3 for 2^28).
    auto rounds = [r](const std::vector<unsigned>& v) {
      unsigned t = 0;
      for (unsigned k : v) t += (k + r - 1) / r;
      return t;
    };
    std::vector<unsigned> cur(np), best = ks;
    auto search = [&](auto&& self, unsigned i, unsigned lo, unsigned left) -> void {
      if (i + 1 == np) {
        if (left < lo || left > max_k) return;
        cur[i] = left;
        const unsigned rc = rounds(cur), rb = rounds(best);
        if (rc < rb || (rc == rb && cur.back() - cur.front() < best.back() - best.front())) best = cur;
        return;
      }
      for (unsigned k = lo; k <= max_k && k * (np - i) <= left; ++k) {
        cur[i] = k;
        self(self, i + 1, k, left - k);
      }
    };
    search(search, 0, min_stages, rest);
    if (natural_input)
      ks = best;
    else
      ks.assign(best.rbegin(), best.rend());
  }
  unsigned s0 = 0;
  for (unsigned k : ks) {
    passes.push_back({s0, k, b - k});
    s0 += k;
  }
  passes.push_back({s0, log_n - rest, 0});
  return passes;
}

// The powers g^i, i < 2^log_count, as two short tables, the first 2^log_lo of them then those of
// g^(2^log_lo): g^i = v[i mod 2^log_lo] v[2^log_lo + (i >> log_lo)]. Made on the host, one product
// each.
template <class Fr>
std::vector<Fr> split_powers(const Fr& g, unsigned log_count, unsigned log_lo) {
  const std::size_t b = std::size_t{1} << log_lo;
  std::vector<Fr> v(b + (std::size_t{1} << (log_count - log_lo)));
  Fr x = Fr::one();
  for (std::size_t j = 0; j < b; ++j, x *= g) v[j] = x;
  // x is now g^B.
  Fr y = Fr::one();
  for (std::size_t m = b; m < v.size(); ++m, y *= x) v[m] = y;
  return v;
}

// The exponent bits of a split table of 2^log_count powers that go to its low part: half, rounded
// up, so both parts have about sqrt(2^log_count) entries.
constexpr unsigned split_low_bits(unsigned log_count) { return (log_count + 1) / 2; }

// A split table of g's 2^log_count powers into `out` on the device.
template <class Fr>
status upload_split_powers(device_buffer<Fr>& out, const Fr& g, unsigned log_count, counting_arena* arena) {
  const std::vector<Fr> v = split_powers(g, log_count, split_low_bits(log_count));
  auto d = allocate_in<Fr>(arena, v.size());
  if (!d) return d.error();
  out = std::move(*d);
  return out.copy_from_host(v.data(), v.size());
}

// g^i for i < n into `out` (device), expanded from a split table of them.
template <class Fr>
status fill_powers(device_buffer<Fr>& out, const Fr& g, unsigned log_n, cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  const std::size_t n = std::size_t{1} << log_n;
  const unsigned log_b = std::min(log_n, 10u);
  const std::vector<Fr> v = split_powers(g, log_n, log_b);
  auto dv = device_buffer<Fr>::create(v.size());
  if (!dv) return dv.error();
  CUZK_TRY(dv->copy_from_host(v.data(), v.size()));
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  const D* lo = reinterpret_cast<const D*>(dv->data());
  powers_kernel<D><<<blocks, threads, 0, stream>>>(reinterpret_cast<D*>(out.data()), lo,
                                                   lo + (std::size_t{1} << log_b), log_b, n);
  CUZK_CUDA_TRY(cudaGetLastError());
  // The split table dies with this scope: wait for the kernel that reads it.
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  return status::ok();
}

// The exponent bits of omega_n's powers a plan's twiddles use (x < n/2).
constexpr unsigned omega_bits(unsigned log_n) { return log_n == 0 ? 0 : log_n - 1; }

// The radix a transform of 2^log_n points runs (pass_shape_of): 8 from radix8_from_log_n.
constexpr unsigned radix_log(unsigned log_n) { return log_n >= radix8_from_log_n ? 3 : 2; }

// Whether a pass reads its twiddles from the Shoup table of its order rather than computing them:
// always in a full plan; in a compact one when none of its stages has more than
// 2^compact_log_stage twiddles (by block, stage s has 2^s; by offset, n/2^(s+1)).
inline bool pass_reads_table(const pass_shape& p, unsigned log_n, bool by_block, ntt_memory memory,
                             unsigned compact_log_stage) {
  if (memory == ntt_memory::tables) return true;
  const unsigned largest = by_block ? p.s0 + p.k - 1 : log_n - p.s0 - 1;
  return largest <= compact_log_stage;
}

// The Shoup entries [first, end) a table keeps, whole tiles, for the passes that read it: every
// entry of a full plan's (2^10 at least). Empty (first == end) where no pass reads it.
struct table_range {
  std::size_t first = 0, end = 0;
  std::size_t elements() const noexcept { return 2 * (end - first); }  // a Shoup pair per entry
};
inline table_range kept_range(unsigned log_n, bool by_block, ntt_memory memory, unsigned compact_log_stage) {
  const std::size_t n = std::size_t{1} << log_n;
  constexpr std::size_t tile = std::size_t{1} << log_tile;
  std::size_t lo = SIZE_MAX, hi = 0;
  for (const pass_shape& p : plan_passes(log_n, radix_log(log_n), by_block)) {
    if (!pass_reads_table(p, log_n, by_block, memory, compact_log_stage)) continue;
    for (unsigned s = p.s0; s < p.s0 + p.k; ++s) {
      const std::size_t first = by_block ? (std::size_t{1} << s) - 1 : n - (n >> s);
      const std::size_t count = by_block ? std::size_t{1} << s : n >> (s + 1);
      lo = std::min(lo, first);
      hi = std::max(hi, first + count);
    }
  }
  if (hi == 0) return {};
  return {lo / tile * tile, std::max((hi + tile - 1) / tile * tile, tile)};
}

// The Shoup planes of the stages of the passes that read them into `out`, by block (the
// frequency-order transforms) or by offset (time order): range.elements() elements, four planes of
// quarters in tiles of 2^10 entries. `omega` is the direction's split table of omega_n's powers.
template <class Fr>
status fill_shoup(device_buffer<Fr>& out, table_range range, const Fr* omega, unsigned log_n, bool by_block,
                  ntt_memory memory, unsigned compact_log_stage, cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  static_assert(sizeof(ntt_shoup::twiddle<D>) == 2 * sizeof(Fr));
  const std::size_t n = std::size_t{1} << log_n;
  auto* planes = reinterpret_cast<uint4*>(out.data());
  const unsigned log_lo = split_low_bits(omega_bits(log_n));
  const auto* lo = reinterpret_cast<const D*>(omega);
  const D* hi = lo + (std::size_t{1} << log_lo);
  const unsigned threads = 256;
  for (const pass_shape& p : plan_passes(log_n, radix_log(log_n), by_block)) {
    if (!pass_reads_table(p, log_n, by_block, memory, compact_log_stage)) continue;
    for (unsigned s = p.s0; s < p.s0 + p.k; ++s) {
      const std::size_t count = by_block ? std::size_t{1} << s : n >> (s + 1);
      const auto blocks = static_cast<unsigned>((count + threads - 1) / threads);
      if (by_block)
        block_table_kernel<D><<<blocks, threads, 0, stream>>>(planes, range.first, lo, hi, log_lo, log_n, s);
      else
        offset_table_kernel<D><<<blocks, threads, 0, stream>>>(planes, range.first, lo, hi, log_lo, log_n, s);
      CUZK_CUDA_TRY(cudaGetLastError());
    }
  }
  return status::ok();
}

// out[i] = op(a[i], b[i]) by the lazy butterfly arithmetic, raw (ntt_lazy_batch). out may alias a.
template <class D>
__global__ void lazy_op_kernel(ntt_lazy_op op, const D* a, const D* b, D* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const D x = a[i];
  const D y = b[i];
  D r;
  switch (op) {
    case ntt_lazy_op::mul: r = ntt_shoup::mul(ntt_shoup::make_twiddle(x), y); break;
    case ntt_lazy_op::add: r = ntt_lazy::add(x, y); break;
    case ntt_lazy_op::sub: r = ntt_lazy::sub(x, y); break;
    default: r = ntt_lazy::canonical(x); break;
  }
  out[i] = r;
}

}  // namespace ntt_detail

template <class Fr>
status ntt_lazy_batch(int device, ntt_lazy_op op, const Fr* a, const Fr* b, Fr* out, std::size_t n) {
  using D = fp_device<typename Fr::params>;
  if (n == 0) return status::ok();
  if (a == nullptr || b == nullptr || out == nullptr)
    return status(errc::invalid_argument, "gpu::ntt_lazy_batch: null array");
  CUZK_TRY(use_device(device));
  auto da = device_buffer<Fr>::create(n);
  if (!da) return da.error();
  auto db = device_buffer<Fr>::create(n);
  if (!db) return db.error();
  CUZK_TRY(da->copy_from_host(a, n));
  CUZK_TRY(db->copy_from_host(b, n));
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  ntt_detail::lazy_op_kernel<D><<<blocks, threads>>>(op, reinterpret_cast<const D*>(da->data()),
                                                     reinterpret_cast<const D*>(db->data()),
                                                     reinterpret_cast<D*>(da->data()), n);
  CUZK_CUDA_TRY(cudaGetLastError());
  CUZK_CUDA_TRY(cudaDeviceSynchronize());
  return da->copy_to_host(out, n);
}

template <class Fr>
std::size_t ntt_plan<Fr>::device_bytes(unsigned log_n, ntt_tables tables, ntt_memory memory,
                                       unsigned compact_log_stage) {
  using namespace ntt_detail;
  if (log_n < min_stages) memory = ntt_memory::tables;
  const std::size_t n = std::size_t{1} << log_n;
  auto split = [](unsigned bits) {
    return (std::size_t{1} << split_low_bits(bits)) + (std::size_t{1} << (bits - split_low_bits(bits)));
  };
  std::size_t elements = 2 * split(omega_bits(log_n));
  if (memory == ntt_memory::tables) {
    elements += 2 * n;  // the powers (the short table each is expanded from is create()'s alone)
  } else {
    elements += 2 * split(log_n);
  }
  for (unsigned bit = 0; bit < 4; ++bit)
    if (has(tables, static_cast<ntt_tables>(1u << bit)))
      elements += kept_range(log_n, bit % 2 == 0, memory, compact_log_stage).elements();
  return elements * sizeof(Fr);
}

template <class Fr>
result<ntt_plan<Fr>> ntt_plan<Fr>::create(unsigned log_n, cudaStream_t stream, ntt_tables tables,
                                          ntt_memory memory, unsigned compact_log_stage, counting_arena* arena) {
  using namespace ntt_detail;
  if (log_n > Fr::two_adicity)
    return status(errc::invalid_argument, "gpu::ntt_plan: domain 2^" + std::to_string(log_n) +
                                              " exceeds the field's two-adicity " +
                                              std::to_string(Fr::two_adicity));
  ntt_plan p;
  p.log_n_ = log_n;
  p.memory_ = log_n < min_stages ? ntt_memory::tables : memory;
  p.compact_log_stage_ = compact_log_stage;
  // snarkjs's coset shift: omega_2n, or its Fr.shift = g^2 where no 2n-th root exists.
  constexpr uint64_t gen = fr_generator<Fr>();
  p.shift_ = log_n < Fr::two_adicity ? ff::root_of_unity<Fr>(log_n + 1, gen) : Fr::from_uint(gen).sqr();
  Fr n_fr = Fr::one();
  for (unsigned i = 0; i < log_n; ++i) n_fr = n_fr.dbl();
  p.n_inv_ = n_fr.inverse();
  const std::size_t n = p.size();
  const Fr shift_inv = p.shift_.inverse();
  if (p.memory_ == ntt_memory::tables) {
    auto fwd = allocate_in<Fr>(arena, n);
    if (!fwd) return fwd.error();
    auto inv = allocate_in<Fr>(arena, n);
    if (!inv) return inv.error();
    p.pow_fwd_ = std::move(*fwd);
    p.pow_inv_ = std::move(*inv);
    CUZK_TRY(fill_powers(p.pow_fwd_, p.shift_, log_n, stream));
    CUZK_TRY(fill_powers(p.pow_inv_, shift_inv, log_n, stream));
  } else {
    p.log_pow_lo_ = split_low_bits(log_n);
    CUZK_TRY(upload_split_powers(p.pow_fwd_, p.shift_, log_n, arena));
    CUZK_TRY(upload_split_powers(p.pow_inv_, shift_inv, log_n, arena));
  }
  // omega_n's powers, x < n/2, split: what the tables and a compact plan's computing passes are
  // made from (at the largest domain too, where g is not a root of unity).
  const Fr w = ff::root_of_unity<Fr>(log_n, gen);
  p.log_omega_lo_ = split_low_bits(omega_bits(log_n));
  CUZK_TRY(upload_split_powers(p.omega_[0], w, omega_bits(log_n), arena));
  CUZK_TRY(upload_split_powers(p.omega_[1], w.inverse(), omega_bits(log_n), arena));
  p.tables_ = tables;
  for (unsigned bit = 0; bit < 4; ++bit) {
    if (!has(tables, static_cast<ntt_tables>(1u << bit))) continue;
    const unsigned d = bit < 2 ? 0 : 1;  // forward, inverse
    const bool by_block = bit % 2 == 0;  // natural input
    const table_range range = kept_range(log_n, by_block, p.memory_, compact_log_stage);
    p.shoup_first_[bit] = range.first;
    if (range.elements() == 0) continue;
    auto shoup = allocate_in<Fr>(arena, range.elements());
    if (!shoup) return shoup.error();
    p.shoup_[bit] = std::move(*shoup);
    CUZK_TRY(fill_shoup(p.shoup_[bit], range, p.omega_[d].data(), log_n, by_block, p.memory_, compact_log_stage,
                        stream));
  }
  return result<ntt_plan>(std::move(p));
}

template <class Fr>
status ntt_plan<Fr>::run(Fr* data, ntt_direction dir, ntt_order order, ntt_domain domain,
                         cudaStream_t stream) const {
  using D = fp_device<typename Fr::params>;
  using namespace ntt_detail;
  static_assert(sizeof(D) == sizeof(Fr));
  if (data == nullptr) return status(errc::invalid_argument, "gpu::ntt_plan::run: null data");
  const unsigned L = log_n_;
  if (L == 0) return status::ok();  // one point: every variant is the identity (g^0 = 1/1 = 1)

  const bool dit = order == ntt_order::bitrev_to_natural;
  const bool forward = dir == ntt_direction::forward;
  const bool coset = domain == ntt_domain::coset;
  D* d = reinterpret_cast<D*>(data);
  const D* tw = reinterpret_cast<const D*>(forward ? pow_fwd_.data() : pow_inv_.data());
  const ntt_tables table = table_for(dir, order);
  if (!has(tables_, table))
    return status(errc::invalid_argument,
                  std::string("gpu::ntt_plan::run: the plan was built without the twiddles of the ") +
                      (forward ? "forward" : "inverse") + " transform from " +
                      (dit ? "bit-reversed" : "natural") + " order (ntt_tables)");
  const unsigned bit = static_cast<unsigned>(std::countr_zero(static_cast<unsigned>(table)));
  // The planes as if they began at entry 0: a compact plan's table starts at entry
  // shoup_first_[bit] (a whole tile), and its passes read only the entries it holds. The address is
  // computed as an integer, since the pointer it gives may lie before the allocation (0 in a full plan).
  const auto* stw = reinterpret_cast<const uint4*>(reinterpret_cast<std::uintptr_t>(shoup_[bit].data()) -
                                                   quarter_slot(shoup_first_[bit], 0) * sizeof(uint4));

  if (L < min_stages) {
    tiny_kernel<D><<<1, 1, 0, stream>>>(d, tw, L, forward, coset, dit, order == ntt_order::natural_to_bitrev,
                                        D::from_host(n_inv_));
    CUZK_CUDA_TRY(cudaGetLastError());
    return status::ok();
  }

  const unsigned r = radix_log(L);
  auto passes = plan_passes(L, r, !dit);
  if (dit) std::reverse(passes.begin(), passes.end());
  const bool split = memory_ == ntt_memory::compact;
  const D* pow_hi = split ? tw + (std::size_t{1} << log_pow_lo_) : nullptr;
  const auto* omega = reinterpret_cast<const D*>(omega_[forward ? 0 : 1].data());
  for (std::size_t i = 0; i < passes.size(); ++i) {
    pass_args<D> a{};
    a.log_n = L;
    a.s0 = passes[i].s0;
    a.k = passes[i].k;
    a.log_c = passes[i].log_c;
    a.n_inv = D::from_host(n_inv_);
    a.pre = scale_mode::none;
    a.post = scale_mode::none;
    a.last = i + 1 == passes.size();
    a.log_pow_lo = log_pow_lo_;
    a.omega_lo = omega;
    a.omega_hi = omega + (std::size_t{1} << log_omega_lo_);
    a.log_omega_lo = log_omega_lo_;
    if (i == 0 && forward && coset) {
      a.pre = scale_mode::table;
      a.pre_table = tw;
      a.pre_hi = pow_hi;
      a.pre_bitrev = dit;  // bit-reversed input: position p holds coefficient rev(p)
    }
    if (i + 1 == passes.size() && !forward) {
      a.post = coset ? scale_mode::n_inv_table : scale_mode::n_inv;
      a.post_table = tw;
      a.post_hi = pow_hi;
      a.post_bitrev = !dit;  // frequency order writes bit-reversed positions
    }
    const bool computed = !pass_reads_table(passes[i], L, !dit, memory_, compact_log_stage_);
    const unsigned log_e = a.k + a.log_c;
    const unsigned threads = 1u << (log_e - r);
    const auto blocks = static_cast<unsigned>(std::size_t{1} << (L - log_e));
    const std::size_t smem = (std::size_t{1} << log_e) * sizeof(D);
    auto launch = [&](auto dit_c, auto r_c, auto computed_c) {
      pass_kernel<D, decltype(dit_c)::value, decltype(r_c)::value, decltype(computed_c)::value>
          <<<blocks, threads, smem, stream>>>(d, stw, a);
    };
    using yes = std::true_type;
    using no = std::false_type;
    using r3 = std::integral_constant<unsigned, 3>;
    using r2 = std::integral_constant<unsigned, 2>;
    auto with_radix = [&](auto dit_c, auto computed_c) {
      if (r == 3)
        launch(dit_c, r3{}, computed_c);
      else
        launch(dit_c, r2{}, computed_c);
    };
    auto with_computed = [&](auto dit_c) {
      if (computed)
        with_radix(dit_c, yes{});
      else
        with_radix(dit_c, no{});
    };
    if (dit)
      with_computed(yes{});
    else
      with_computed(no{});
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  if (order == ntt_order::natural_to_natural) {
    const unsigned threads = 256;
    const auto blocks = static_cast<unsigned>(((std::size_t{1} << L) + threads - 1) / threads);
    bitrev_kernel<D><<<blocks, threads, 0, stream>>>(d, L);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  return status::ok();
}

}  // namespace cuzk::gpu
