// SPDX-License-Identifier: MIT OR Apache-2.0
// The radix-2 NTT passes behind ntt.hpp: decimation in frequency (Gentleman-Sande, natural order
// in, bit-reversed out) and decimation in time (Cooley-Tukey, bit-reversed in, natural out), each
// scheduled so that every pass works on cache-sized pieces.
//
// Why blocked: at 2^24 a vector of Fr is 512 MiB, and the textbook loop sweeps all of it once per
// stage (24 sweeps). Here the log2(n) stages are split into
//   * one "inner" pass over contiguous blocks of B = 2^b elements (512 KiB), doing all b stages of
//     half-distance < B inside L2;
//   * one or two "outer" passes for the stages of half-distance >= B. A pass of r stages touches,
//     for each column i, the 2^r elements i + k*s (s = row stride): closed under those r stages.
//     It gathers a tile of 2^r rows x C contiguous columns into a per-thread buffer, runs the r
//     stages there and scatters it back. Copying (instead of working in place) matters: the rows
//     lie a power of two apart, so in place they all map to the same few cache sets and evict each
//     other; the buffer is contiguous and conflict-free.
// So the data crosses main memory 2-3 times instead of log2(n) times. On the 2-core dev machine
// the multiplications dominate anyway (see ntt_block_log); the blocking is for machines with many
// cores per memory channel, where log2(n) full sweeps would make the transform memory-bound.
//
// Butterflies with twiddle 1 (the first of every group, and all of the half-distance-1 stage) skip
// the multiplication. The inverse reads the forward table mirrored (see ntt_domain.hpp):
// w^-j = -w^(n/2-j), and the sign is absorbed by swapping the sum and difference outputs.
//
// Internal to poly/: callers use ntt.hpp and odd_coset.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/thread_pool.hpp"

namespace cuzk::poly::detail {

// log2 of the in-cache block of the NTT: 2^14 Fr elements = 512 KiB, a quarter of the 2 MiB L2 of
// the dev machine's cores, leaving room for the twiddles. bench/ntt_bench.cpp forward_schedule at
// 2^20 on the (loaded) dev machine: blocks of 2^12 / 2^13 / 2^14 took 860 / 891 / 828 ms, i.e. the
// same within noise; on 2 cores the transform is bound by the field multiplication (~26 ns of CPU
// per butterfly, one multiplication's latency), not by memory.
inline constexpr std::size_t ntt_block_log = 14;

// How a transform is cut into passes. The defaults were measured with bench/ntt_bench.cpp
// (forward_schedule, 2^20, 2 threads, dev machine under load): rows 2^3 / 2^6 / 2^10 per tile took
// 904 / 882 / 828 ms; tiles of 4 / 8 / 16 / 32 / 64 columns 950 / 896 / 828 / 884 / 860 ms. Only
// the narrowest tiles are clearly worse. Tests pass small values to exercise every path (several
// outer passes, narrow tiles) at small sizes.
struct ntt_schedule {
  // log2 of the in-cache block; capped by the domain's (its packed twiddles are that long).
  std::size_t block_log = ntt_block_log;
  // At most 2^10 rows per gathered tile: 2^10 x 16 x 32 B = 512 KiB of buffer, within L2 next to
  // the twiddles; 2^24 then needs a single outer pass (10 stages) after the 14 in-block stages.
  std::size_t max_rows_log = 10;
  // Columns per tile: 16 Fr = 512 B = 8 cache lines per row, so each gathered row is a short
  // sequential stream rather than scattered cache lines.
  std::size_t tile_columns = 16;
};

// The low `bits` bits of i, reversed.
inline std::size_t reverse_bits(std::size_t i, std::size_t bits) {
  if (bits == 0) return 0;
  uint64_t x = i;
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
  x = __builtin_bswap64(x);
  return static_cast<std::size_t>(x >> (64 - bits));
}

// A butterfly whose twiddle is 1: (u, v) -> (u + v, u - v), the same for DIF and DIT.
template <class F>
inline void butterfly1(F& x, F& y) {
  const F u = x;
  x = u + y;
  y = u - y;
}

// Gentleman-Sande: (u, v) -> (u + v, (u - v) w). With Inverse, w holds -w' for the wanted w'.
template <bool Inverse, class F>
inline void butterfly_dif(F& x, F& y, const F& w) {
  const F u = x, v = y;
  x = u + v;
  y = Inverse ? (v - u) * w : (u - v) * w;
}

// Cooley-Tukey: (u, v) -> (u + v w, u - v w). With Inverse, w holds -w' for the wanted w'.
template <bool Inverse, class F>
inline void butterfly_dit(F& x, F& y, const F& w) {
  const F t = y * w, u = x;
  x = Inverse ? u - t : u + t;
  y = Inverse ? u + t : u - t;
}

// One row pair of one stage: x[c] with y[c] for c < count, twiddle index (j0 + c) * ts in a table
// of `half` entries (w^idx for a root w of order 2*half).
template <bool Dif, bool Inverse, class F>
inline void butterfly_row(F* x, F* y, std::size_t count, std::size_t j0, const F* tw, std::size_t half,
                          std::size_t ts) {
  std::size_t c = 0;
  if (j0 == 0) {
    butterfly1(x[0], y[0]);
    c = 1;
  }
  // Inverse walks the table backwards from half - idx (w^-idx = -w^(half-idx)).
  const std::ptrdiff_t step = Inverse ? -static_cast<std::ptrdiff_t>(ts) : static_cast<std::ptrdiff_t>(ts);
  const F* w = Inverse ? tw + (half - (j0 + c) * ts) : tw + (j0 + c) * ts;
  for (; c < count; ++c, w += step) {
    if constexpr (Dif) {
      butterfly_dif<Inverse>(x[c], y[c], *w);
    } else {
      butterfly_dit<Inverse>(x[c], y[c], *w);
    }
  }
}

// All stages of half-distance < 2^bb on one contiguous block of 2^bb elements. btw holds w_B^j
// for j < bhalf, w_B of order 2*bhalf >= 2^bb, so stage h reads btw at stride bhalf / h.
template <bool Dif, bool Inverse, class F>
void block_stages(F* a, std::size_t bb, const F* btw, std::size_t bhalf) {
  const std::size_t size = std::size_t{1} << bb;
  auto stage = [&](std::size_t h) {
    for (std::size_t s = 0; s < size; s += 2 * h) {
      butterfly_row<Dif, Inverse>(a + s, a + s + h, h, 0, btw, bhalf, bhalf / h);
    }
  };
  if constexpr (Dif) {
    for (std::size_t h = size / 2; h >= 1; h /= 2) stage(h);
  } else {
    for (std::size_t h = 1; h < size; h *= 2) stage(h);
  }
}

// A pass of r stages whose largest half-distance is 2^(top_log-1): superblocks of 2^top_log, rows
// 2^(top_log-r) apart. tw holds w^j, j < n/2. `scale`, when given, multiplies every output.
template <bool Dif, bool Inverse, class F>
void outer_pass(F* a, std::size_t log_n, std::size_t top_log, std::size_t r, const F* tw,
                std::type_identity_t<const F*> scale, std::size_t tile_columns, thread_pool& pool) {
  const std::size_t n = std::size_t{1} << log_n, half = n / 2;
  const std::size_t super = std::size_t{1} << top_log, rows = std::size_t{1} << r;
  const std::size_t stride = super >> r;
  const std::size_t cols = std::min(tile_columns, stride);
  const std::size_t tiles = stride / cols, supers = n >> top_log;
  pool.parallel_for(supers * tiles, [&](std::size_t begin, std::size_t end) {
    std::vector<F> buf(rows * cols);
    for (std::size_t u = begin; u < end; ++u) {
      // Superblocks vary fastest: consecutive tiles then read the same twiddles.
      const std::size_t sup = u % supers, tile = u / supers;
      F* base = a + sup * super + tile * cols;
      for (std::size_t k = 0; k < rows; ++k) std::copy_n(base + k * stride, cols, buf.data() + k * cols);
      auto stage = [&](std::size_t d) {  // row distance d: half-distance d * stride
        const std::size_t ts = half / (d * stride);
        for (std::size_t g = 0; g < rows; g += 2 * d) {
          for (std::size_t k = g; k < g + d; ++k) {
            butterfly_row<Dif, Inverse>(buf.data() + k * cols, buf.data() + (k + d) * cols, cols,
                                        (k - g) * stride + tile * cols, tw, half, ts);
          }
        }
      };
      if constexpr (Dif) {
        for (std::size_t d = rows / 2; d >= 1; d /= 2) stage(d);
      } else {
        for (std::size_t d = 1; d < rows; d *= 2) stage(d);
      }
      if (scale) {
        for (auto& x : buf) x *= *scale;
      }
      for (std::size_t k = 0; k < rows; ++k) std::copy_n(buf.data() + k * cols, cols, base + k * stride);
    }
  });
}

// The inner block size actually used: the schedule's, made smaller when there would be fewer than
// two blocks per thread, so that small transforms still use every core.
inline std::size_t inner_block_log(std::size_t log_n, std::size_t max_block_log, unsigned threads) {
  std::size_t b = std::min(log_n, max_block_log);
  while (b > 6 && (std::size_t{1} << (log_n - b)) < 2 * std::size_t{threads}) --b;
  return b;
}

// A no-op hook for transforms that need nothing done to a block before its stages.
struct no_block_hook {
  template <class F>
  void operator()(std::size_t, F*, std::size_t) const {}
};

// What a transform reads from its domain.
template <class F>
struct twiddle_tables {
  std::size_t log_n;
  const F* tw;            // w^j, j < n/2
  const F* btw;           // w_B^j, j < bhalf
  std::size_t bhalf;      // 2^(domain block log) / 2
  std::size_t block_log;  // the domain's block log
};

// The whole transform, in place. Dif: natural in, bit-reversed out. !Dif: bit-reversed in, natural
// out. Computes sum_i a_i w^(+-ij) with no 1/n; `scale` (if given) multiplies every output. `hook`
// (DIT only) runs on each inner block (index, pointer, size) before its stages: the coset twist.
template <bool Dif, bool Inverse, class F, class Hook = no_block_hook>
void transform(F* a, const twiddle_tables<F>& t, std::type_identity_t<const F*> scale, thread_pool& pool,
               const ntt_schedule& sched = {}, Hook hook = {}) {
  static_assert(!Dif || std::is_same_v<Hook, no_block_hook>, "the block hook runs before DIT stages only");
  const std::size_t log_n = t.log_n;
  const std::size_t b = inner_block_log(log_n, std::min(t.block_log, sched.block_log), pool.size());
  const std::size_t max_rows_log = std::max<std::size_t>(1, sched.max_rows_log);
  // Outer stages: half-distances 2^b .. 2^(log_n - 1), in as few passes of <= 2^max rows as possible,
  // balanced. Listed top-down (DIF order).
  std::vector<std::pair<std::size_t, std::size_t>> passes;  // (top_log, r)
  const std::size_t outer = log_n - b;
  if (outer > 0) {
    const std::size_t np = (outer + max_rows_log - 1) / max_rows_log;
    std::size_t top = log_n;
    for (std::size_t i = 0; i < np; ++i) {
      const std::size_t r = outer / np + (i < outer % np ? 1 : 0);
      passes.emplace_back(top, r);
      top -= r;
    }
  }
  auto inner = [&](const F* inner_scale) {
    const std::size_t size = std::size_t{1} << b;
    pool.parallel_for(std::size_t{1} << (log_n - b), [&](std::size_t begin, std::size_t end) {
      for (std::size_t blk = begin; blk < end; ++blk) {
        F* p = a + blk * size;
        hook(blk, p, size);
        block_stages<Dif, Inverse>(p, b, t.btw, t.bhalf);
        if (inner_scale) {
          for (std::size_t i = 0; i < size; ++i) p[i] *= *inner_scale;
        }
      }
    });
  };
  if constexpr (Dif) {
    for (auto [top, r] : passes)
      outer_pass<true, Inverse>(a, log_n, top, r, t.tw, nullptr, sched.tile_columns, pool);
    inner(scale);
  } else {
    inner(passes.empty() ? scale : nullptr);
    for (std::size_t i = passes.size(); i-- > 0;) {
      outer_pass<false, Inverse>(a, log_n, passes[i].first, passes[i].second, t.tw, i == 0 ? scale : nullptr,
                                 sched.tile_columns, pool);
    }
  }
}

// a[i] <-> a[rev(i)], each element also multiplied by *scale when given.
template <class F>
void bit_reverse(F* a, std::size_t log_n, std::type_identity_t<const F*> scale, thread_pool& pool) {
  pool.parallel_for(
      std::size_t{1} << log_n,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const std::size_t j = reverse_bits(i, log_n);
          if (i > j) continue;
          if (i < j) std::swap(a[i], a[j]);
          if (scale) {
            a[i] *= *scale;
            if (i != j) a[j] *= *scale;
          }
        }
      },
      1 << 12);
}

}  // namespace cuzk::poly::detail
