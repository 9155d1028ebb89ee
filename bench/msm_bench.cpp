// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU MSM benchmarks: G1 of both curves at 2^12..2^20 points with uniform scalars and with a
// witness-like vector (90% of the scalars 0 or 1), G2 at 2^16, plus a window-width sweep (the
// measurement window_choice.hpp's cost model is checked against) and the 0/1 split switched off.
//
// Inputs are generated in memory once per (group, size) and kept for the process (msm_inputs.hpp
// explains how 2^20 points are made in about a second). Times are wall-clock (UseRealTime): the
// MSM runs on the whole thread pool (CUZK_THREADS sets its size). cpu_all_threads_ms is the
// process's CPU time per MSM over all threads, the figure to compare on a loaded machine.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <map>
#include <random>
#include <vector>

#include "msm/msm_inputs.hpp"
#include "msm/pippenger.hpp"

namespace {

using namespace cuzk;

template <class G>
struct inputs {
  std::vector<typename G::affine> points;
  std::vector<typename G::scalar::repr> uniform, boolean90;
};

template <class G>
const inputs<G>& get_inputs(unsigned log_n) {
  static std::map<unsigned, inputs<G>> cache;
  auto it = cache.find(log_n);
  if (it != cache.end()) return it->second;
  const std::size_t n = std::size_t{1} << log_n;
  std::mt19937_64 rng(log_n);
  inputs<G> in;
  in.points = msm::testing::random_points<G>(n, log_n);
  in.uniform = msm::testing::random_scalars<G>(n, rng);
  in.boolean90 = msm::testing::mostly_boolean_scalars<G>(n, 0.9, rng);
  return cache.emplace(log_n, std::move(in)).first->second;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

template <class G>
void run(benchmark::State& state, const std::vector<typename G::scalar::repr>& scalars, const inputs<G>& in,
         const msm::msm_options& options) {
  const double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    auto r = msm::msm<G>(std::span(in.points), std::span(scalars), options);
    benchmark::DoNotOptimize(r);
  }
  // CPU time of all threads per MSM: on a shared machine the wall time also counts the other
  // processes' time slices, this does not.
  state.counters["cpu_all_threads_ms"] =
      benchmark::Counter(1e3 * (process_cpu_seconds() - cpu0) / static_cast<double>(state.iterations()));
  state.counters["points"] = static_cast<double>(in.points.size());
  state.counters["threads"] = thread_pool::global().size();
}

template <class G>
void msm_uniform(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.uniform, in, {});
}
template <class G>
void msm_boolean90(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.boolean90, in, {});
}
template <class G>
void msm_boolean90_no_split(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.boolean90, in, {.split_zero_one = false});
}
// Args: log2 n, window, 0 = XYZZ / 1 = batch-affine buckets.
template <class G>
void msm_window_sweep(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.uniform, in,
         {.window = static_cast<unsigned>(state.range(1)),
          .accumulation = state.range(2) ? msm::bucket_accumulation::batch_affine : msm::bucket_accumulation::xyzz});
}

// Args: log2 n, 0 = XYZZ / 1 = batch-affine buckets (the window as the cost model chooses it).
template <class G>
void msm_accumulation(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.uniform, in,
         {.accumulation = state.range(1) ? msm::bucket_accumulation::batch_affine : msm::bucket_accumulation::xyzz});
}

// Args: log2 n, window, 0 = XYZZ / 1 = batch-affine buckets, on the 90%-boolean scalars.
template <class G>
void msm_boolean90_window(benchmark::State& state) {
  const auto& in = get_inputs<G>(static_cast<unsigned>(state.range(0)));
  run<G>(state, in.boolean90, in,
         {.window = static_cast<unsigned>(state.range(1)),
          .accumulation = state.range(2) ? msm::bucket_accumulation::batch_affine : msm::bucket_accumulation::xyzz});
}

void sizes_g1(benchmark::internal::Benchmark* b) {
  for (int log_n : {12, 16, 18, 20}) b->Arg(log_n);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}
void sizes_g2(benchmark::internal::Benchmark* b) { b->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime(); }
void sweep(benchmark::internal::Benchmark* b) {
  for (int log_n : {12, 16, 18, 20})
    for (int c = 8; c <= 18; ++c)
      if (c >= log_n - 6 && c <= log_n - 1)
        for (int a : {0, 1}) b->Args({log_n, c, a});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_TEMPLATE(msm_uniform, bn254_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_uniform, bls12_381_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_boolean90, bn254_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_boolean90, bls12_381_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_boolean90_no_split, bn254_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_boolean90_no_split, bls12_381_g1)->Apply(sizes_g1);
BENCHMARK_TEMPLATE(msm_uniform, bn254_g2)->Apply(sizes_g2);
BENCHMARK_TEMPLATE(msm_uniform, bls12_381_g2)->Apply(sizes_g2);
BENCHMARK_TEMPLATE(msm_boolean90, bn254_g2)->Apply(sizes_g2);
BENCHMARK_TEMPLATE(msm_boolean90, bls12_381_g2)->Apply(sizes_g2);
BENCHMARK_TEMPLATE(msm_accumulation, bn254_g1)->ArgsProduct({{12, 16, 18}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(msm_accumulation, bls12_381_g1)->ArgsProduct({{12, 16, 18}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(msm_accumulation, bn254_g2)->ArgsProduct({{16}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(msm_boolean90_window, bn254_g1)->ArgsProduct({{18}, {10, 11, 12, 13, 14}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(msm_window_sweep, bn254_g1)->Apply(sweep);
BENCHMARK_TEMPLATE(msm_window_sweep, bls12_381_g1)->Apply(sweep);

}  // namespace
