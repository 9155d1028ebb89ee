// SPDX-License-Identifier: MIT OR Apache-2.0
// How the bucket method is cut up: window width c and how many point chunks each window is split
// into, chosen by a cost model in units of one bucket addition (an XYZZ mixed addition).
//
// With m points, W windows of c bits and each window's points split into k chunks (one bucket
// array per (window, chunk) task):
//   accumulation  m / k mixed additions per task,
//   reduction     2 full additions per bucket, 2^(c-1) buckets per task (running sum), each
//                 about 1.4 mixed additions (add-2008-s 12M+2S against madd-2008-s 8M+2S),
// and the W k tasks run on T threads in ceil(W k / T) rounds. Splitting windows into chunks
// costs extra reductions but is what lets more threads than windows work (16+ cores against the
// 13-20 windows of a 255-bit scalar); with 2 threads k stays 1.
//
// A large window also leaves the caches, which the model charges as a penalty per accumulation
// once the bucket array passes cache_bytes. The constants below were set to reproduce window
// sweeps on the 2-core dev machine (bench/msm_bench, msm_window_sweep; the numbers are quoted
// next to each constant).
#pragma once

#include <cstddef>
#include <cstdint>

#include "msm/signed_digits.hpp"

namespace cuzk::msm {

// How buckets are accumulated: XYZZ mixed additions (ec/xyzz.hpp), or affine additions in
// batches sharing one inversion (batch_affine_buckets.hpp). automatic lets the cost model choose.
enum class bucket_accumulation { automatic, xyzz, batch_affine };

struct msm_plan {
  unsigned window = 0;  // c
  unsigned windows = 0;
  unsigned chunks = 1;  // point chunks per window
  bucket_accumulation accumulation = bucket_accumulation::xyzz;  // never automatic
};

// Batch-affine batches hold buckets / batch_affine_fill additions (at most batch_affine_max_batch),
// so that a point rarely meets a bucket already queued; in narrow windows the batches are too
// short to amortise the inversion and XYZZ is faster. Single-thread BN254 G1 sweep (CPU ms),
// 2^12 points: c = 10 XYZZ 28.6 vs batch 35.8, c = 11 30.4 vs 29.0; 2^16: c = 11 373 vs 371,
// c = 13 341 vs 295.
inline constexpr std::size_t batch_affine_fill = 8;
inline constexpr std::size_t batch_affine_max_batch = 1024;
inline constexpr std::size_t batch_affine_batch(std::size_t buckets) {
  const std::size_t b = buckets / batch_affine_fill;
  return b < 1 ? 1 : b > batch_affine_max_batch ? batch_affine_max_batch : b;
}

// Costs in units of one XYZZ mixed addition (~10 field multiplications). A batch-affine
// accumulation is 5M + 1S plus its share of one inversion per batch (~380 multiplications, 38
// units), predicted 0.6 + 38 / batch; measured 0.78 + 38 / batch (2^16 and 2^18 sweeps: the
// field multiplication is an out-of-line call, whose overhead weighs more on the cheaper
// formula, and some points go to the XYZZ overflow). The batch term is what makes narrow
// windows lose: 2^18 points with 90% boolean scalars (26K after the split), single thread, CPU
// ms for c = 10..14: batch affine 322, 262, 237, 217, 242; XYZZ 255, 247, 249, 263, 252.
// Reduction: two full XYZZ additions per bucket (12M + 2S each, 1.4 units), or one mixed and
// one full addition when the buckets are affine.
inline constexpr double batch_affine_accumulate_cost = 0.78;
inline constexpr double inversion_cost = 38;
inline constexpr double xyzz_reduce_cost = 2.8;
inline constexpr double batch_affine_reduce_cost = 2.4;

// A bucket load that misses L2 stalls the dependent addition. Single-thread BN254 G1 2^18
// batch-affine sweep, c = 14..17 (buckets of 64 bytes: 0.5, 1, 2, 4 MiB): 1014, 966, 1180,
// 1327 ms; without a penalty the model predicts 1.08x and 1.28x for c = 16 and 17 against c = 15,
// measured 1.22x and 1.37x. A 15% penalty past 1 MiB reproduces both.
inline constexpr double cache_miss_penalty = 0.15;
inline constexpr std::size_t cache_bytes = std::size_t{1} << 20;

// Estimated time of a plan for m points on T threads.
inline double plan_cost(std::size_t m, const msm_plan& p, unsigned threads, std::size_t affine_bytes,
                        std::size_t xyzz_bytes) {
  const bool batch = p.accumulation == bucket_accumulation::batch_affine;
  const double buckets = static_cast<double>(std::size_t{1} << (p.window - 1));
  const double bucket_bytes = static_cast<double>(batch ? affine_bytes : xyzz_bytes);
  const double miss = buckets * bucket_bytes > static_cast<double>(cache_bytes) ? 1.0 + cache_miss_penalty : 1.0;
  const double batch_len = static_cast<double>(batch_affine_batch(std::size_t{1} << (p.window - 1)));
  const double accumulate = (batch ? batch_affine_accumulate_cost + inversion_cost / batch_len : 1.0) * miss;
  const double reduce = batch ? batch_affine_reduce_cost : xyzz_reduce_cost;
  const double per_task = static_cast<double>(m) / p.chunks * accumulate + reduce * buckets;
  const unsigned tasks = p.windows * p.chunks;
  const unsigned rounds = (tasks + threads - 1) / threads;
  return rounds * per_task;
}

// The cheapest plan for m points (after the 0/1 split) with scalars up to `max`. window,
// chunks and accumulation are fixed where the caller gives them (non-zero / not automatic).
template <std::size_t N>
msm_plan choose_plan(std::size_t m, const ff::bigint<N>& max, unsigned threads, std::size_t affine_bytes,
                     std::size_t xyzz_bytes, unsigned window = 0, unsigned chunks = 0,
                     bucket_accumulation accumulation = bucket_accumulation::automatic) {
  if (threads == 0) threads = 1;
  msm_plan best;
  double best_cost = 0;
  const unsigned c_lo = window ? window : min_window, c_hi = window ? window : max_window;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    const unsigned windows = signed_digits<N>::make(c, max).windows;
    const unsigned k_lo = chunks ? chunks : 1, k_hi = chunks ? chunks : threads;
    for (auto a : {bucket_accumulation::xyzz, bucket_accumulation::batch_affine}) {
      if (accumulation != bucket_accumulation::automatic && a != accumulation) continue;
      for (unsigned k = k_lo; k <= k_hi; ++k) {
        const msm_plan p{c, windows, k, a};
        const double cost = plan_cost(m, p, threads, affine_bytes, xyzz_bytes);
        if (best.window == 0 || cost < best_cost) {
          best = p;
          best_cost = cost;
        }
      }
    }
  }
  return best;
}

}  // namespace cuzk::msm
