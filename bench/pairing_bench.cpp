// SPDX-License-Identifier: MIT OR Apache-2.0
// Pairing micro-benchmarks for both curves: the field operations the pairing is made of, the
// Miller loop, the final exponentiation, a full pairing and the Groth16 verifier's four-term
// check. Run: build/bench/pairing_bench (add --benchmark_format=csv for one line per case).
#include <benchmark/benchmark.h>

#include <array>
#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "pairing/pairing.hpp"

namespace {

using namespace cuzk;

template <class Curve>
pairing::g1g2_pair<Curve> generators() {
  return {{Curve::g1_gen_x, Curve::g1_gen_y}, {Curve::g2_gen_x, Curve::g2_gen_y}};
}

template <class F>
void bm_mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F a = F::random(rng);
  const F b = F::random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void bm_sqr(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F a = F::random(rng);
  for (auto _ : state) {
    a = a.sqr();
    benchmark::DoNotOptimize(a);
  }
}

template <class Curve>
void bm_cyclotomic_sqr(benchmark::State& state) {
  const auto pq = generators<Curve>();
  auto g = pairing::pairing<Curve>(pq.p, pq.q);
  for (auto _ : state) {
    g = g.cyclotomic_sqr();
    benchmark::DoNotOptimize(g);
  }
}

template <class Curve>
void bm_miller_loop(benchmark::State& state) {
  const std::array<pairing::g1g2_pair<Curve>, 1> pairs{generators<Curve>()};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::miller_loop<Curve>(pairs));
}

template <class Curve>
void bm_final_exponentiation(benchmark::State& state) {
  const std::array<pairing::g1g2_pair<Curve>, 1> pairs{generators<Curve>()};
  const auto f = pairing::miller_loop<Curve>(pairs);
  for (auto _ : state) benchmark::DoNotOptimize(pairing::final_exponentiation<Curve>(f));
}

template <class Curve>
void bm_pairing(benchmark::State& state) {
  const auto pq = generators<Curve>();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing<Curve>(pq.p, pq.q));
}

// The Groth16 verifier's shape: four pairs, one shared final exponentiation.
template <class Curve>
void bm_pairing_check_4(benchmark::State& state) {
  const auto pq = generators<Curve>();
  const std::array<pairing::g1g2_pair<Curve>, 4> pairs{
      {{-pq.p, pq.q}, {pq.p, pq.q}, {-pq.p, pq.q}, {pq.p, pq.q}}};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing_check<Curve>(pairs));
}

#define CUZK_PAIRING_BENCHES(Curve)                                                             \
  BENCHMARK(bm_mul<Curve::fq>)->Name(#Curve "/fq_mul");                                         \
  BENCHMARK(bm_sqr<Curve::fq>)->Name(#Curve "/fq_sqr");                                         \
  BENCHMARK(bm_mul<Curve::fq2>)->Name(#Curve "/fq2_mul");                                       \
  BENCHMARK(bm_mul<pairing::fq12<Curve>>)->Name(#Curve "/fq12_mul");                            \
  BENCHMARK(bm_sqr<pairing::fq12<Curve>>)->Name(#Curve "/fq12_sqr");                            \
  BENCHMARK(bm_cyclotomic_sqr<Curve>)->Name(#Curve "/fq12_cyclotomic_sqr");                     \
  BENCHMARK(bm_miller_loop<Curve>)->Name(#Curve "/miller_loop")->Unit(benchmark::kMicrosecond); \
  BENCHMARK(bm_final_exponentiation<Curve>)                                                     \
      ->Name(#Curve "/final_exponentiation")                                                    \
      ->Unit(benchmark::kMicrosecond);                                                          \
  BENCHMARK(bm_pairing<Curve>)->Name(#Curve "/pairing")->Unit(benchmark::kMicrosecond);         \
  BENCHMARK(bm_pairing_check_4<Curve>)->Name(#Curve "/pairing_check_4")->Unit(benchmark::kMicrosecond)

CUZK_PAIRING_BENCHES(bn254);
CUZK_PAIRING_BENCHES(bls12_381);

}  // namespace

BENCHMARK_MAIN();
