// SPDX-License-Identifier: MIT OR Apache-2.0
// What a GPU benchmark run is asked to do (`cuzk bench ntt|msm|prove`), and the checks on it.
//
// Plain C++ with no CUDA in it, so the command line validates its arguments the same way in
// every build: a binary built without CUDA still rejects a bad curve or size with the same
// message before it says it cannot run the benchmark at all. The benchmarks themselves
// (ntt_bench.hpp, msm_bench.hpp, prove_bench.hpp) exist only where the CUDA backend is built.
//
// The size limits are what the benchmarks can do on one H200 with its host (128 GiB), not what the
// kernels could: the MSM's points and the prover's key are built on the CPU first; the key at 2^24
// takes 14 GiB of device memory, and above 2^25 the prover's key must stream its points (--stream;
// docs/BENCHMARKS.md, 'Keys larger than the device').
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "groth16/key_vectors.hpp"

namespace cuzk::apps::bench {

enum class bench_curve { bn254, bls12_381 };
enum class msm_group { g1, g2 };
enum class msm_scalars { host, device };  // streamed from pinned host memory, or resident
enum class msm_accumulation_choice { automatic, affine, xyzz };
enum class msm_points { resident, streamed };  // on the device, or in pinned host memory, copied each run
enum class prove_witness { dense, mostly_boolean };
enum class prove_key { real, random };
enum class prove_synthesis { device, host_pinned, host_pageable };
enum class prove_twiddles { tables, compact };  // gpu::ntt_memory
enum class prove_b2 { beside, in_turn };        // gpu_key_options::b2_beside
enum class prove_abc { three, two };            // gpu_key_options::abc (groth16::abc_on_device)

inline constexpr unsigned max_reps = 1000;
inline constexpr unsigned ntt_min_log = 1, ntt_max_log = 28;  // BN254's two-adicity is 28
// 2^28 BN254 G1 points are 16 GiB, 2^26 BLS12-381 G2 ones 12 GiB, built on the CPU.
inline constexpr unsigned msm_min_log = 1, msm_max_log_g1 = 28, msm_max_log_g2 = 26;
// 2^K - 2 constraints, K >= 2; above 2^26 the key's points (77 GiB at 2^27 on BLS12-381) must be
// streamed, and BN254's two-adicity is 28.
inline constexpr unsigned prove_min_log = 2, prove_max_log = 28;
inline constexpr std::size_t max_chunk_points = std::size_t{1} << 26;  // gpu::device_msm::max_chunk_points
inline constexpr unsigned max_partitions = 64;                          // a PoRep job has 10, SnapDeals 16

// Every run: which device, how many timed repetitions after the one warm-up.
struct common_options {
  bench_curve curve = bench_curve::bn254;
  int device = 0;
  unsigned reps = 7;
};

struct ntt_bench_options : common_options {
  std::vector<unsigned> log_sizes;
};

// Every combination of the lists runs, one table row each, over the same points (those of the
// largest size; smaller sizes use a prefix).
struct msm_bench_options : common_options {
  msm_group group = msm_group::g1;
  std::vector<unsigned> log_sizes;
  std::vector<msm_accumulation_choice> accumulations{msm_accumulation_choice::automatic};
  std::vector<unsigned> chunks{0};  // 0: by size
  std::vector<msm_scalars> scalars{msm_scalars::host};
  msm_points points = msm_points::resident;
  std::size_t chunk_points = 0;  // streamed points per range (0: the MSM's default)
  // The share of scalars that are 0 or 1 (each equally likely), the rest uniform: 0 for full
  // scalars, ~0.9 for a witness of bits.
  double zero_one_share = 0;
};

struct prove_bench_options : common_options {
  prove_bench_options() { reps = 5; }
  std::vector<unsigned> log_sizes;
  prove_witness witness = prove_witness::dense;
  prove_key key = prove_key::real;
  prove_synthesis synthesis = prove_synthesis::device;
  groth16::key_vector_set stream;  // point vectors streamed from host memory
  unsigned gpu_budget_mib = 0;     // 0: no budget; otherwise the key streams what does not fit
  std::size_t chunk_points = 0;    // points per streamed range (0: the MSM's default)
  unsigned partitions = 1;         // proofs per batch (groth16/gpu/gpu_batch_prover.hpp)
  prove_twiddles twiddles = prove_twiddles::tables;  // compact also where a budget would not need it
  prove_b2 b2 = prove_b2::beside;                     // in turn also where a budget has room beside
  prove_abc abc = prove_abc::three;                   // two also where a budget has room for three
};

inline const char* curve_name(bench_curve c) { return c == bench_curve::bn254 ? "bn254" : "bls12-381"; }

namespace detail {

inline status check_common(const common_options& o) {
  if (o.reps < 1 || o.reps > max_reps)
    return status(errc::invalid_argument,
                  "--reps: expected 1.." + std::to_string(max_reps) + ", found " + std::to_string(o.reps));
  if (o.device < 0)
    return status(errc::invalid_argument,
                  "--device: expected an ordinal >= 0, found " + std::to_string(o.device));
  return status::ok();
}

inline status check_sizes(const std::vector<unsigned>& sizes, unsigned lo, unsigned hi, const char* what) {
  if (sizes.empty()) return status(errc::invalid_argument, "--log-size: expected at least one size");
  for (unsigned k : sizes)
    if (k < lo || k > hi)
      return status(errc::invalid_argument, std::string("--log-size: expected ") + std::to_string(lo) + ".." +
                                                std::to_string(hi) + " for " + what + ", found " +
                                                std::to_string(k));
  return status::ok();
}

}  // namespace detail

inline status validate(const ntt_bench_options& o) {
  if (auto s = detail::check_common(o); !s) return s;
  return detail::check_sizes(o.log_sizes, ntt_min_log, ntt_max_log, "ntt");
}

inline status validate(const msm_bench_options& o) {
  if (auto s = detail::check_common(o); !s) return s;
  if (o.accumulations.empty() || o.chunks.empty() || o.scalars.empty())
    return status(errc::invalid_argument,
                  "msm: --accumulation, --chunks and --scalars need at least one value");
  for (unsigned c : o.chunks)
    if (c > 64)  // the MSM clamps to 64 ranges (msm.cuh chunks_for); more would be silently fewer
      return status(errc::invalid_argument, "--chunks: expected 0..64, found " + std::to_string(c));
  if (o.chunk_points > max_chunk_points)
    return status(errc::invalid_argument, "--chunk-points: expected 0.." + std::to_string(max_chunk_points) +
                                              ", found " + std::to_string(o.chunk_points));
  if (o.chunk_points != 0 && o.points != msm_points::streamed)
    return status(errc::invalid_argument, "--chunk-points: only with --points streamed");
  if (!(o.zero_one_share >= 0 && o.zero_one_share <= 1))
    return status(errc::invalid_argument,
                  "--zero-one: expected a share from 0 to 1, found " + std::to_string(o.zero_one_share));
  const bool g1 = o.group == msm_group::g1;
  return detail::check_sizes(o.log_sizes, msm_min_log, g1 ? msm_max_log_g1 : msm_max_log_g2,
                             g1 ? "msm --group g1" : "msm --group g2");
}

inline status validate(const prove_bench_options& o) {
  if (auto s = detail::check_common(o); !s) return s;
  if (o.chunk_points > max_chunk_points)
    return status(errc::invalid_argument, "--chunk-points: expected 0.." + std::to_string(max_chunk_points) +
                                              ", found " + std::to_string(o.chunk_points));
  if (o.partitions < 1 || o.partitions > max_partitions)
    return status(errc::invalid_argument, "--partitions: expected 1.." + std::to_string(max_partitions) +
                                              ", found " + std::to_string(o.partitions));
  return detail::check_sizes(o.log_sizes, prove_min_log, prove_max_log, "prove");
}

}  // namespace cuzk::apps::bench
