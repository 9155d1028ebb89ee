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
// A large window also leaves the caches: 2^(c-1) buckets of 128-384 bytes pass the L2 size
// (0.5-1 MiB) from c = 13 on and the L3 from c = 17-18. The model charges a miss penalty per
// accumulation once the bucket array is larger than cache_bytes; the 2-core dev machine's
// measured sweep (docs/BENCHMARKS.md, "CPU MSM window sweep") is what the constants were set to
// reproduce.
#pragma once

#include <cstddef>
#include <cstdint>

#include "msm/signed_digits.hpp"

namespace cuzk::msm {

struct msm_plan {
  unsigned window = 0;  // c
  unsigned windows = 0;
  unsigned chunks = 1;  // point chunks per window
};

// Relative cost of one bucket accumulation when the bucket array misses the cache: a bucket
// load that misses L2/L3 stalls the dependent addition (measured by the sweep above).
inline constexpr double cache_miss_penalty = 0.15;
inline constexpr std::size_t cache_bytes = std::size_t{8} << 20;
inline constexpr double full_add_cost = 1.4;

template <std::size_t N>
double plan_cost(std::size_t m, unsigned c, unsigned windows, unsigned chunks, unsigned threads,
                 std::size_t bucket_bytes) {
  const double buckets = static_cast<double>(std::size_t{1} << (c - 1));
  const double miss = buckets * static_cast<double>(bucket_bytes) > static_cast<double>(cache_bytes)
                          ? 1.0 + cache_miss_penalty
                          : 1.0;
  const double per_task = static_cast<double>(m) / chunks * miss + 2.0 * full_add_cost * buckets;
  const unsigned tasks = windows * chunks;
  const unsigned rounds = (tasks + threads - 1) / threads;
  return rounds * per_task;
}

// The cheapest (c, k) for m points (after the 0/1 split) with scalars up to `max`.
template <std::size_t N>
msm_plan choose_plan(std::size_t m, const ff::bigint<N>& max, unsigned threads, std::size_t bucket_bytes) {
  if (threads == 0) threads = 1;
  msm_plan best;
  double best_cost = 0;
  for (unsigned c = min_window; c <= max_window; ++c) {
    const unsigned windows = signed_digits<N>::make(c, max).windows;
    for (unsigned k = 1; k <= threads; ++k) {
      const double cost = plan_cost<N>(m, c, windows, k, threads, bucket_bytes);
      if (best.window == 0 || cost < best_cost) {
        best = {c, windows, k};
        best_cost = cost;
      }
    }
  }
  return best;
}

// The plan for a window fixed by the caller (tests exercise every c): chunks still follow threads.
template <std::size_t N>
msm_plan plan_for_window(unsigned c, std::size_t m, const ff::bigint<N>& max, unsigned threads,
                         std::size_t bucket_bytes) {
  if (threads == 0) threads = 1;
  msm_plan best{c, signed_digits<N>::make(c, max).windows, 1};
  double best_cost = plan_cost<N>(m, c, best.windows, 1, threads, bucket_bytes);
  for (unsigned k = 2; k <= threads; ++k) {
    const double cost = plan_cost<N>(m, c, best.windows, k, threads, bucket_bytes);
    if (cost < best_cost) {
      best.chunks = k;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace cuzk::msm
