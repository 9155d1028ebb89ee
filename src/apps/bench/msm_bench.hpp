// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench msm`: the GPU MSM (gpu/msm.hpp) in G1 or G2, as a table, one row per combination of
// size, accumulation, chunk count and scalar place.
//
// 2^K points are resident on the device (random subgroup points, built on the CPU with one
// addition each, msm/msm_inputs.hpp; with several sizes those of the largest are built once and
// the smaller runs use a prefix), or with `--points streamed` kept in pinned host memory and
// copied in ranges of `--chunk-points` every run, as a streamed key's are
// (device_msm::create_streamed). Scalars are uniformly random canonical Fr (with `--zero-one S`, a
// share S of them 0 or 1, as a witness of bits has), either streamed from pinned host memory
// each run (`--scalars host`: the copy is in the time, as in the sppark figures of
// docs/BENCHMARKS.md, 'Reference points', and the row gives its effective rate) or already in
// device memory (`--scalars device`, device_msm::run_device, as the prover's witness and h are).
// One warm-up run per row is excluded; then `reps` runs, each timed by the MSM's own CUDA events
// (msm_timing: first event to the result on the host). The row has the median, min and max of the
// totals, and the phase breakdown of the median run:
//
//   curve group log_n c W median_ms min_ms max_ms | copy digits sort plan accum reduce rounds path
//   chunks scalars h2d_GBps
//
// Thread: the calling thread, which it makes use the chosen device.
#pragma once

#include <cstdio>

#include "apps/bench/bench_options.hpp"
#include "base/result.hpp"

namespace cuzk::apps::bench {

// Prints the table to `out`, a row as soon as it is measured. Errors: invalid options, no such
// device, a CUDA failure.
status run_msm_bench(const msm_bench_options& options, std::FILE* out);

}  // namespace cuzk::apps::bench
