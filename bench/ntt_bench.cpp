// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU NTT benchmarks for the scalar fields of both curves.
//
// Arguments are {log2 n, threads}. Cases:
//   forward_nr      forward NTT, natural -> bit-reversed (the bare transform, no permutation)
//   forward_nn      forward NTT, natural -> natural (adds one bit-reversal pass)
//   compute_h       the prover's whole H step on three vectors (6 NTTs + twist + a*b - c)
//   compute_h_nn    the same computed the plain way (inverse NN, distribute_powers, forward NN),
//                   the alternative odd_coset.hpp was measured against
//   forward_schedule {block log, max rows log, tile columns} at 2^20 on 2 threads: the tuning sweep
//                   behind the defaults in poly/ntt_kernels.hpp
// Each pool is built once per thread count; domains once per size.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "poly/ntt.hpp"
#include "poly/ntt_domain.hpp"
#include "poly/odd_coset.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::poly;

thread_pool& pool_of(unsigned threads) {
  static std::map<unsigned, std::unique_ptr<thread_pool>> pools;
  auto& p = pools[threads];
  if (!p) p = std::make_unique<thread_pool>(threads);
  return *p;
}

template <class Curve>
const ntt_domain<Curve>& domain_of(std::size_t log_n) {
  static std::map<std::size_t, std::unique_ptr<ntt_domain<Curve>>> domains;
  auto& d = domains[log_n];
  if (!d) d = std::make_unique<ntt_domain<Curve>>(*ntt_domain<Curve>::create(log_n));
  return *d;
}

template <class F>
std::vector<F> random_vector(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

template <class Curve>
void set_counters(benchmark::State& state, std::size_t n) {
  state.counters["n"] = static_cast<double>(n);
  state.counters["threads"] = static_cast<double>(state.range(1));
}

template <class Curve, ntt_order Out>
void BM_forward(benchmark::State& state) {
  using fr = typename Curve::fr;
  const auto& d = domain_of<Curve>(static_cast<std::size_t>(state.range(0)));
  auto& pool = pool_of(static_cast<unsigned>(state.range(1)));
  auto v = random_vector<fr>(d.size(), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ntt(d, std::span<fr>(v), ntt_direction::forward, ntt_order::natural, Out, pool));
    benchmark::ClobberMemory();
  }
  set_counters<Curve>(state, d.size());
}

template <class Curve>
void BM_compute_h(benchmark::State& state) {
  using fr = typename Curve::fr;
  const auto& d = domain_of<Curve>(static_cast<std::size_t>(state.range(0)));
  auto& pool = pool_of(static_cast<unsigned>(state.range(1)));
  auto a = random_vector<fr>(d.size(), 1), b = random_vector<fr>(d.size(), 2),
       c = random_vector<fr>(d.size(), 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(compute_h(d, std::span<fr>(a), std::span<fr>(b), std::span<fr>(c), pool));
    benchmark::ClobberMemory();
  }
  set_counters<Curve>(state, d.size());
}

template <class Curve>
void BM_compute_h_nn(benchmark::State& state) {
  using fr = typename Curve::fr;
  const auto& d = domain_of<Curve>(static_cast<std::size_t>(state.range(0)));
  auto& pool = pool_of(static_cast<unsigned>(state.range(1)));
  auto a = random_vector<fr>(d.size(), 1), b = random_vector<fr>(d.size(), 2),
       c = random_vector<fr>(d.size(), 3);
  const fr shift = *odd_coset_shift<fr>(d.log_size(), Curve::fr_generator);
  for (auto _ : state) {
    for (auto* v : {&a, &b, &c}) {
      std::span<fr> s(*v);
      benchmark::DoNotOptimize(
          ntt(d, s, ntt_direction::inverse, ntt_order::natural, ntt_order::natural, pool));
      distribute_powers(s, shift, fr::one(), pool);
      benchmark::DoNotOptimize(
          ntt(d, s, ntt_direction::forward, ntt_order::natural, ntt_order::natural, pool));
    }
    pool.parallel_for(d.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) a[i] = a[i] * b[i] - c[i];
    });
    benchmark::ClobberMemory();
  }
  set_counters<Curve>(state, d.size());
}

template <class Curve>
void BM_forward_schedule(benchmark::State& state) {
  using fr = typename Curve::fr;
  const auto& d = domain_of<Curve>(20);
  auto& pool = pool_of(2);
  const detail::ntt_schedule s{static_cast<std::size_t>(state.range(0)),
                               static_cast<std::size_t>(state.range(1)),
                               static_cast<std::size_t>(state.range(2))};
  auto v = random_vector<fr>(d.size(), 1);
  const auto t = detail::tables_of(d);
  for (auto _ : state) {
    detail::transform<true, false>(v.data(), t, static_cast<const fr*>(nullptr), pool, s);
    benchmark::ClobberMemory();
  }
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int log_n : {16, 18, 20, 22}) {
    for (int threads : {1, 2}) b->Args({log_n, threads});
  }
  b->ArgNames({"log_n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void schedules(benchmark::internal::Benchmark* b) {
  for (int block : {12, 13, 14}) b->Args({block, 10, 16});
  for (int rows : {3, 6}) b->Args({14, rows, 16});
  for (int cols : {4, 8, 32, 64}) b->Args({14, 10, cols});
  b->ArgNames({"block_log", "rows_log", "cols"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_forward<bn254, ntt_order::bit_reversed>)->Name("forward_nr/bn254")->Apply(sizes);
BENCHMARK(BM_forward<bls12_381, ntt_order::bit_reversed>)->Name("forward_nr/bls12_381")->Apply(sizes);
BENCHMARK(BM_forward<bn254, ntt_order::natural>)->Name("forward_nn/bn254")->Apply(sizes);
BENCHMARK(BM_forward<bls12_381, ntt_order::natural>)->Name("forward_nn/bls12_381")->Apply(sizes);
BENCHMARK(BM_compute_h<bn254>)->Name("compute_h/bn254")->Apply(sizes);
BENCHMARK(BM_compute_h<bls12_381>)->Name("compute_h/bls12_381")->Apply(sizes);
BENCHMARK(BM_compute_h_nn<bn254>)->Name("compute_h_nn/bn254")->Apply(sizes);
BENCHMARK(BM_compute_h_nn<bls12_381>)->Name("compute_h_nn/bls12_381")->Apply(sizes);
BENCHMARK(BM_forward_schedule<bn254>)->Name("forward_schedule/bn254")->Apply(schedules);

}  // namespace
