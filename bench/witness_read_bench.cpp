// SPDX-License-Identifier: MIT OR Apache-2.0
// A client's witness file read for proving, as a daemon worker reads one (engine/jobs/witness.hpp):
// the file read whole (witness_dirs), its header and every value checked, and its values taken for
// the prover, either where they were read (in place, the engine's path) or copied into a buffer of
// their own (the path before). Every iteration reads into fresh memory, as each partition of a job
// does. Arg: log2 of the number of values (32 bytes each) of a BLS12-381 mostly-0/1 witness.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381.hpp"
#include "engine/jobs/witness.hpp"
#include "formats/wtns_writer.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::engine;

struct witness_on_disk {
  std::string dir, path;
  key_summary key;
};

// A .wtns of 2^log_n values, mostly 0 and 1, in a directory of its own under the temp dir.
const witness_on_disk& witness_of(int log_n) {
  static std::vector<std::unique_ptr<witness_on_disk>> made(40);
  auto& w = made[static_cast<std::size_t>(log_n)];
  if (w) return *w;
  w = std::make_unique<witness_on_disk>();
  w->dir = (std::filesystem::temp_directory_path() / ("cuzk-witness-read-bench-" + std::to_string(log_n))).string();
  std::filesystem::create_directories(w->dir);
  w->path = w->dir + "/w.wtns";
  const std::size_t n = std::size_t{1} << log_n;
  std::vector<uint8_t> values(32 * n, 0);
  std::mt19937_64 rng(7);
  for (std::size_t i = 0; i < n; ++i) values[32 * i] = static_cast<uint8_t>(i == 0 ? 1 : rng() & 1);
  std::vector<uint8_t> prime(32);
  const auto r = bls12_381::fr::modulus;
  for (std::size_t i = 0; i < 32; ++i) prime[i] = static_cast<uint8_t>(r.limb[i / 8] >> (8 * (i % 8)));
  if (!formats::write_wtns_bytes(w->path, prime, values)) std::abort();
  w->key.curve = formats::curve_id::bls12_381;
  w->key.n_vars = static_cast<uint32_t>(n);
  return *w;
}

template <bool InPlace>
void witness_read(benchmark::State& state) {
  const auto& w = witness_of(static_cast<int>(state.range(0)));
  const auto dirs = witness_dirs::create({w.dir}).value();
  for (auto _ : state) {
    auto file = open_witness(w.path, witness_origin::client_path, dirs, w.key);
    if (!file) {
      state.SkipWithError(file.error().to_string().c_str());
      break;
    }
    auto values = InPlace ? read_witness(std::move(file).value(), w.key) : read_witness(file->wtns, w.key);
    if (!values) {
      state.SkipWithError(values.error().to_string().c_str());
      break;
    }
    benchmark::DoNotOptimize(values->values.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 32 * (int64_t{1} << state.range(0)));
}

}  // namespace

BENCHMARK(witness_read<true>)->Name("witness_read/in_place")->Arg(22)->Arg(24)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(witness_read<false>)->Name("witness_read/copied")->Arg(22)->Arg(24)->Unit(benchmark::kMillisecond)->UseRealTime();
