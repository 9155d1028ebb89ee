// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench ntt`: the GPU NTT's time per transform over data resident on the device, as a table.
//
// Seven transforms, each in place over 2^K random Fr: forward natural -> bit-reversed (fwd_nr),
// inverse bit-reversed -> natural (inv_rn), forward natural -> natural (fwd_nn: fwd_nr plus a
// bit-reversal pass), forward odd coset natural -> bit-reversed (coset_nr), the two the GPU
// prover runs per column (inverse natural -> bit-reversed, inv_nr; forward odd coset
// bit-reversed -> natural, coset_rn) and forward bit-reversed -> natural (fwd_rn). Each is timed
// with CUDA events around the transform alone, one warm-up run excluded, then `reps` runs: one
// row per transform with the median, min and max in milliseconds.
//
//   # <device>, device N; ntt <curve>; ms over R runs after one warm-up (CUDA events)
//   curve      log_n  transform   median_ms     min_ms     max_ms
//   bn254      20     fwd_nr          0.310      0.305      0.320
//
// Thread: the calling thread, which it makes use the chosen device.
#pragma once

#include <cstdio>

#include "apps/bench/bench_options.hpp"
#include "base/result.hpp"

namespace cuzk::apps::bench {

// Prints the table to `out`, a row as soon as it is measured. Errors: invalid options, no such
// device, a CUDA failure (out of memory at a large size, ...).
status run_ntt_bench(const ntt_bench_options& options, std::FILE* out);

}  // namespace cuzk::apps::bench
