// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench prove`: the whole Groth16 proof on the GPU (groth16/gpu/gpu_prover.hpp), per phase,
// as a table.
//
// For each size K: a synthetic circuit of 2^K - 2 constraints (synth/synthetic_circuit.hpp) with a
// dense or mostly-0/1 witness, and a key in memory: `real` is a development setup (the last proof
// is checked with groth16::verify, and a proof that fails makes the run fail), `random` fills the
// key's point sections with random curve points, made in place in pinned host memory (cheap at
// 2^24; the timings are the same since no phase depends on what the points are, but such a proof
// cannot verify, and the header says so). The key is made once on the chosen device, with the
// vectors --stream names (or that do not fit --gpu-budget-mib) left in host memory and streamed in
// every proof; one proof runs as a warm-up (the MSMs' scratch grows then), then `reps` proofs; the
// header has the streamed vectors, the device estimate and the peak host memory, and each phase's
// row has the median, min and max in ms:
//
//   phase                               median_ms     min_ms     max_ms
//   witness -> pinned                      12.400     12.100     13.000
//   synthesis (GPU)                         ...
//   h2d: witness, 512.0 MiB                 ...
//   h2d bandwidth (GB/s)                   54.500     ...
//   NTTs (3 inverse + 3 coset) + h
//   MSM A / MSM B1 / MSM C / MSM H / MSM B2 (G2)
//   wait for A,B1,B2,C after H
//   assembly (CPU)
//   total (witness in, proof out)
//
// How each phase is timed and which overlap is gpu_prover.hpp's: GPU spans by CUDA events, each
// MSM by host clocks around its synchronous run, CPU phases by host clocks; the phases overlap, so
// they do not add up to the total. The h2d row is the copy synthesis waits for: the witness with
// synthesis on the device, a, b, c otherwise (then two more rows have the witness copy the MSMs
// read and its rate); a bandwidth is the copy's bytes over its CUDA-event span.
//
// Thread: the calling thread; the prover makes the key's device current on every thread it uses.
#pragma once

#include <cstdio>

#include "apps/bench/bench_options.hpp"
#include "base/result.hpp"

namespace cuzk::apps::bench {

// Prints a header and the table for each size to `out`. Errors: invalid options, no such device,
// a CUDA failure, a proof from a `real` key that does not verify.
status run_prove_bench(const prove_bench_options& options, std::FILE* out);

}  // namespace cuzk::apps::bench
