// SPDX-License-Identifier: MIT OR Apache-2.0
// Point-arithmetic micro-benchmarks for G1 and G2 of both curves: the group operations the MSM
// and the prover spend their time in. One line per case (Google Benchmark's console or
// --benchmark_format=json output).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/xyzz.hpp"

namespace {

using namespace cuzk;

// A small ring of random subgroup points, so that each iteration works on fresh inputs and the
// compiler cannot fold anything.
template <class G>
struct inputs {
  static constexpr std::size_t n = 64;
  std::vector<typename G::jacobian> j;
  std::vector<typename G::affine> a;
  std::vector<typename G::xyzz> x;
  inputs() {
    std::mt19937_64 rng(7);
    for (std::size_t i = 0; i < n; ++i) {
      auto p = ec::scalar_mul(G::jacobian::from_affine(G::generator), G::scalar::random(rng));
      j.push_back(p.dbl());  // Z != 1
      a.push_back(p.to_affine());
      x.push_back(G::xyzz::from_jacobian(p.dbl()));
    }
  }
};

template <class G>
void jacobian_add(benchmark::State& state) {
  inputs<G> in;
  auto acc = in.j[0];
  std::size_t i = 0;
  for (auto _ : state) {
    acc = acc + in.j[++i % in.n];
    benchmark::DoNotOptimize(acc);
  }
}
template <class G>
void jacobian_add_mixed(benchmark::State& state) {
  inputs<G> in;
  auto acc = in.j[0];
  std::size_t i = 0;
  for (auto _ : state) {
    acc = acc + in.a[++i % in.n];
    benchmark::DoNotOptimize(acc);
  }
}
template <class G>
void jacobian_dbl(benchmark::State& state) {
  inputs<G> in;
  auto acc = in.j[0];
  for (auto _ : state) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}
template <class G>
void xyzz_add(benchmark::State& state) {
  inputs<G> in;
  auto acc = in.x[0];
  std::size_t i = 0;
  for (auto _ : state) {
    acc = acc + in.x[++i % in.n];
    benchmark::DoNotOptimize(acc);
  }
}
template <class G>
void xyzz_add_mixed(benchmark::State& state) {
  inputs<G> in;
  auto acc = in.x[0];
  std::size_t i = 0;
  for (auto _ : state) {
    acc = acc + in.a[++i % in.n];
    benchmark::DoNotOptimize(acc);
  }
}
template <class G>
void scalar_mul(benchmark::State& state) {
  inputs<G> in;
  std::mt19937_64 rng(9);
  const auto k = G::scalar::random(rng);
  for (auto _ : state) benchmark::DoNotOptimize(ec::scalar_mul(in.j[0], k));
}
template <class G>
void subgroup_check(benchmark::State& state) {
  inputs<G> in;
  for (auto _ : state) benchmark::DoNotOptimize(G::in_subgroup_given_on_curve(in.a[0]));
}
template <class G>
void batch_to_affine_64(benchmark::State& state) {
  inputs<G> in;
  std::vector<typename G::affine> out(in.n);
  for (auto _ : state) {
    ec::batch_to_affine(in.j.data(), out.data(), in.n);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.n));
}

#define CUZK_EC_BENCH(fn)                      \
  BENCHMARK_TEMPLATE(fn, bn254_g1);            \
  BENCHMARK_TEMPLATE(fn, bls12_381_g1);        \
  BENCHMARK_TEMPLATE(fn, bn254_g2);            \
  BENCHMARK_TEMPLATE(fn, bls12_381_g2)

CUZK_EC_BENCH(jacobian_add);
CUZK_EC_BENCH(jacobian_add_mixed);
CUZK_EC_BENCH(jacobian_dbl);
CUZK_EC_BENCH(xyzz_add);
CUZK_EC_BENCH(xyzz_add_mixed);
CUZK_EC_BENCH(scalar_mul);
CUZK_EC_BENCH(subgroup_check);
CUZK_EC_BENCH(batch_to_affine_64);

}  // namespace

