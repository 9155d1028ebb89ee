// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis on the CPU (synth/evaluate_abc.hpp): a = A w, b = B w, c = a∘b over a synthetic
// circuit's key matrices, dense and mostly-0/1 witnesses, on the global pool (CUZK_THREADS). What
// the GPU prover runs on the host where a key's matrices do not fit the device with a proof. And
// the matrices' build from the key's coefficient records, in the order a setup writes them
// (synth/constraint_matrices.hpp), which every load of a key does.
//
//   synth_bench --benchmark_filter=bls12_381
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "synth/evaluate_abc.hpp"
#include "synth/synthetic_circuit.hpp"

namespace {

using namespace cuzk;

template <class Fr>
struct synthesis_case {
  synth::constraint_matrices<Fr> matrices;
  std::vector<typename Fr::repr> witness;
  std::vector<synth::zkey_coefficient<Fr>> records;
};

// Made once per size and kind: a 2^20 circuit and its setup's records take seconds.
template <class Fr>
const synthesis_case<Fr>& case_of(unsigned log_size, synth::witness_kind kind) {
  static std::map<std::pair<unsigned, synth::witness_kind>, std::unique_ptr<synthesis_case<Fr>>> cases;
  auto& c = cases[{log_size, kind}];
  if (!c) {
    auto circuit = synth::make_synthetic_circuit<Fr>(log_size, kind);
    auto records = circuit.cs.zkey_records();
    auto m = synth::matrices_from_records<Fr>(records, circuit.cs.n_vars, circuit.cs.domain_size());
    if (!m) std::abort();
    c = std::make_unique<synthesis_case<Fr>>(
        synthesis_case<Fr>{std::move(m).value(), std::move(circuit.witness), std::move(records)});
  }
  return *c;
}

template <class Curve>
void bm_evaluate_abc(benchmark::State& state) {
  using Fr = typename Curve::fr;
  const auto kind = state.range(1) == 0 ? synth::witness_kind::dense : synth::witness_kind::mostly_boolean;
  const auto& c = case_of<Fr>(static_cast<unsigned>(state.range(0)), kind);
  const std::size_t n = c.matrices.domain_size;
  std::vector<Fr> a(n), b(n), abc(n);
  for (auto _ : state) {
    if (!synth::evaluate_abc<Fr>(c.matrices, c.witness, a, b, abc).is_ok()) state.SkipWithError("evaluate_abc failed");
    benchmark::DoNotOptimize(abc.data());
  }
  state.counters["entries"] = static_cast<double>(c.matrices.a.nnz() + c.matrices.b.nnz());
}

template <class Curve>
void bm_matrices_from_records(benchmark::State& state) {
  using Fr = typename Curve::fr;
  const auto& c = case_of<Fr>(static_cast<unsigned>(state.range(0)), synth::witness_kind::mostly_boolean);
  for (auto _ : state) {
    auto m = synth::matrices_from_records<Fr>(c.records, c.matrices.n_vars, c.matrices.domain_size);
    if (!m) state.SkipWithError("matrices_from_records failed");
    benchmark::DoNotOptimize(m);
  }
  state.counters["records"] = static_cast<double>(c.records.size());
}

// Arguments: log2 of the domain, then the witness (0 dense, 1 mostly 0/1).
BENCHMARK(bm_evaluate_abc<bls12_381>)->ArgsProduct({{16, 18, 20}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_evaluate_abc<bn254>)->ArgsProduct({{20}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(bm_matrices_from_records<bls12_381>)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond);

}  // namespace
