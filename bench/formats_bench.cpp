// SPDX-License-Identifier: MIT OR Apache-2.0
// Costs of using a proving key in place: open (map, size checks, header and IC decoding, copies of
// misaligned sections), the linear scans validate_coefs and validate_points (on-curve only, and
// with the subgroup check that `cuzk info --check` asks for), and the zkey writer. The key is
// synthetic (every point the generator, which costs the checks exactly what any point costs),
// written once per size to the temporary directory; the argument is log2(nVars) = log2(domainSize).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <string>

#include "formats/zkey_writer.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::formats;

template <class C>
groth16_key_data<C> synthetic_key(uint32_t logn) {
  const uint32_t n = 1u << logn;
  groth16_key_data<C> k;
  k.n_vars = n;
  k.n_public = 1;
  k.domain_size = n;
  const auto g1 = g1_group<C>::generator;
  const auto g2 = g2_group<C>::generator;
  k.alpha1 = k.beta1 = k.delta1 = g1;
  k.beta2 = k.gamma2 = k.delta2 = g2;
  k.ic.assign(2, g1);
  k.a.assign(n, g1);
  k.b1.assign(n, g1);
  k.b2.assign(n, g2);
  k.c.assign(n - 2, g1);
  k.h.assign(n, g1);
  for (uint32_t i = 0; i < n; ++i) k.coefs.push_back({i & 1, i / 2, i, C::fr::from_uint(i + 1)});
  return k;
}

template <class C>
const std::string& key_file(uint32_t logn) {
  static std::map<uint32_t, std::string> files;
  auto& f = files[logn];
  if (f.empty()) {
    f = (std::filesystem::temp_directory_path() /
         ("cuzk_formats_bench_" + std::string(C::name) + "_" + std::to_string(logn) + ".zkey"))
            .string();
    if (!write_zkey(f, synthetic_key<C>(logn))) std::abort();
  }
  return f;
}

template <class C>
void zkey_open(benchmark::State& state) {
  const auto& path = key_file<C>(static_cast<uint32_t>(state.range(0)));
  std::size_t copied = 0;
  for (auto _ : state) {
    auto k = zkey<C>::open(path);
    if (!k) state.SkipWithError(k.error().to_string().c_str());
    copied = k->copied_bytes();
    benchmark::DoNotOptimize(k->h().data());
  }
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(path));
  state.counters["copied"] = static_cast<double>(copied);
}

template <class C, subgroup_check check>
void zkey_validate_points(benchmark::State& state) {
  const auto k = zkey<C>::open(key_file<C>(static_cast<uint32_t>(state.range(0)))).value();
  for (auto _ : state) {
    if (!k.validate_points(check)) state.SkipWithError("validate_points failed");
  }
  state.counters["points"] = static_cast<double>(4 * k.n_vars() + k.domain_size());
}

template <class C>
void zkey_validate_coefs(benchmark::State& state) {
  const auto k = zkey<C>::open(key_file<C>(static_cast<uint32_t>(state.range(0)))).value();
  for (auto _ : state) {
    if (!k.validate_coefs()) state.SkipWithError("validate_coefs failed");
  }
}

template <class C>
void zkey_write(benchmark::State& state) {
  const auto data = synthetic_key<C>(static_cast<uint32_t>(state.range(0)));
  const auto path = (std::filesystem::temp_directory_path() / "cuzk_formats_bench_write.zkey").string();
  for (auto _ : state) {
    if (!write_zkey(path, data)) state.SkipWithError("write_zkey failed");
  }
  std::filesystem::remove(path);
}

BENCHMARK(zkey_open<bn254>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_open<bls12_381>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_validate_coefs<bn254>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_validate_points<bn254, subgroup_check::skip>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_validate_points<bls12_381, subgroup_check::skip>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_validate_points<bn254, subgroup_check::check>)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(zkey_validate_points<bls12_381, subgroup_check::check>)
    ->Arg(12)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(zkey_write<bn254>)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(zkey_write<bls12_381>)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace
