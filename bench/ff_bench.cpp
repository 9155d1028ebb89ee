// SPDX-License-Identifier: MIT OR Apache-2.0
// Field arithmetic micro-benchmarks for the four fields of the two curves.
//
// Each case runs a dependent chain (x = x op y), so the figure is latency, the number that
// bounds point additions and the pairing's Miller loop. "portable" cases run the constexpr
// __int128 kernels that the assembly replaces at run time, so one run shows what it buys.
#include <benchmark/benchmark.h>

#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ff/mont_math.hpp"

namespace {

using namespace cuzk;

template <class F>
std::pair<F, F> operands() {
  std::mt19937_64 rng(7);
  const F a = F::random(rng);
  return {a, F::random(rng)};
}

template <class F>
void BM_mul(benchmark::State& state) {
  auto [x, y] = operands<F>();
  for (auto _ : state) {
    x = x * y;
    benchmark::DoNotOptimize(x);
  }
}
template <class F>
void BM_mul_portable(benchmark::State& state) {
  auto [x, y] = operands<F>();
  typename F::repr r = x.montgomery();
  for (auto _ : state) {
    ff::mont::mul_portable<F::N>(r.limb, r.limb, y.montgomery().limb, F::modulus.limb, F::inv);
    benchmark::DoNotOptimize(r);
  }
}
template <class F>
void BM_sqr(benchmark::State& state) {
  auto [x, y] = operands<F>();
  for (auto _ : state) {
    x = x.sqr();
    benchmark::DoNotOptimize(x);
  }
}
template <class F>
void BM_sqr_portable(benchmark::State& state) {
  auto [x, y] = operands<F>();
  typename F::repr r = x.montgomery();
  for (auto _ : state) {
    ff::mont::sqr_portable<F::N>(r.limb, r.limb, F::modulus.limb, F::inv);
    benchmark::DoNotOptimize(r);
  }
}
template <class F>
void BM_add(benchmark::State& state) {
  auto [x, y] = operands<F>();
  for (auto _ : state) {
    x = x + y;
    benchmark::DoNotOptimize(x);
  }
}
template <class F>
void BM_sub(benchmark::State& state) {
  auto [x, y] = operands<F>();
  for (auto _ : state) {
    x = x - y;
    benchmark::DoNotOptimize(x);
  }
}
template <class F>
void BM_inverse(benchmark::State& state) {
  auto [x, y] = operands<F>();
  for (auto _ : state) {
    x = x.inverse() + y;
    benchmark::DoNotOptimize(x);
  }
}

#define CUZK_FIELD_BENCHES(F, NAME)                              \
  BENCHMARK_TEMPLATE(BM_mul, F)->Name(NAME "/mul");              \
  BENCHMARK_TEMPLATE(BM_mul_portable, F)->Name(NAME "/mul_portable"); \
  BENCHMARK_TEMPLATE(BM_sqr, F)->Name(NAME "/sqr");              \
  BENCHMARK_TEMPLATE(BM_sqr_portable, F)->Name(NAME "/sqr_portable"); \
  BENCHMARK_TEMPLATE(BM_add, F)->Name(NAME "/add");              \
  BENCHMARK_TEMPLATE(BM_sub, F)->Name(NAME "/sub");              \
  BENCHMARK_TEMPLATE(BM_inverse, F)->Name(NAME "/inverse")

CUZK_FIELD_BENCHES(bls12_381::fq, "bls12_381/fq");
CUZK_FIELD_BENCHES(bls12_381::fr, "bls12_381/fr");
CUZK_FIELD_BENCHES(bn254::fq, "bn254/fq");
CUZK_FIELD_BENCHES(bn254::fr, "bn254/fr");

}  // namespace
