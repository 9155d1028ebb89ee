// SPDX-License-Identifier: MIT OR Apache-2.0
// Prove time per phase on the CPU: a snarkjs fixture (zkey + wtns) or a synthetic circuit made
// in memory by the development setup. Prints one line per run, key=value, seconds.
//
//   groth16_bench zkey <circuit.zkey> <witness.wtns> [runs]      (BN254 or BLS12-381, detected)
//   groth16_bench synthetic <bn254|bls12_381> <log2 size> <dense|boolean> [runs]
//
// The thread count is CUZK_THREADS (default: all cores).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/synthetic_circuit.hpp"

namespace {

using namespace cuzk;

void print(const std::string& what, int run, const groth16::phase_timings& t, bool ok) {
  std::printf(
      "case=%s run=%d threads=%u synthesis=%.4f ntt=%.4f msm_a=%.4f msm_b_g1=%.4f msm_b_g2=%.4f msm_c=%.4f "
      "msm_h=%.4f assembly=%.4f total=%.4f verified=%d\n",
      what.c_str(), run, thread_pool::global().size(), t.synthesis, t.ntt, t.msm_a, t.msm_b1, t.msm_b2,
      t.msm_c, t.msm_h, t.assembly, t.total, ok ? 1 : 0);
  std::fflush(stdout);
}

template <class C>
int bench_zkey(const std::string& zkey_path, const std::string& wtns_path, int runs) {
  const auto t0 = std::chrono::steady_clock::now();
  auto zk = formats::zkey<C>::open(zkey_path);
  if (!zk) return std::fprintf(stderr, "%s\n", zk.error().to_string().c_str()), 1;
  auto pk = groth16::proving_key<C>::from_zkey(*zk);
  if (!pk) return std::fprintf(stderr, "%s\n", pk.error().to_string().c_str()), 1;
  auto wt = formats::wtns::open(wtns_path);
  if (!wt) return std::fprintf(stderr, "%s\n", wt.error().to_string().c_str()), 1;
  auto w = groth16::witness_of<C>(*wt);
  if (!w) return std::fprintf(stderr, "%s\n", w.error().to_string().c_str()), 1;
  const double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("case=%s load=%.4f nVars=%u domain=%u\n", zkey_path.c_str(), load, zk->n_vars(),
              zk->domain_size());
  const auto vk = formats::verification_key_of(*zk);
  const auto publics = groth16::public_signals_of<C>(*w, zk->n_public());
  for (int run = 0; run < runs; ++run) {
    groth16::phase_timings t;
    auto proof = groth16::prove<C>(pk->view(), *w, &t);
    if (!proof) return std::fprintf(stderr, "%s\n", proof.error().to_string().c_str()), 1;
    print(zkey_path, run, t, groth16::verify<C>(vk, publics, *proof).is_ok());
  }
  return 0;
}

template <class C>
int bench_synthetic(unsigned log_size, synth::witness_kind kind, int runs) {
  const std::string name = std::string(C::name) + "_2^" + std::to_string(log_size) +
                           (kind == synth::witness_kind::dense ? "_dense" : "_boolean");
  auto t0 = std::chrono::steady_clock::now();
  const auto circuit = synth::make_synthetic_circuit<typename C::fr>(log_size, kind);
  const double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  auto dk = groth16::development_setup<C>(circuit.cs);
  if (!dk) return std::fprintf(stderr, "%s\n", dk.error().to_string().c_str()), 1;
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto pk = groth16::proving_key<C>::from_key_data(dk->key);
  if (!pk) return std::fprintf(stderr, "%s\n", pk.error().to_string().c_str()), 1;
  std::printf("case=%s generate=%.3f setup=%.3f nVars=%zu constraints=%zu\n", name.c_str(), gen, setup,
              circuit.cs.n_vars, circuit.cs.n_constraints);
  const auto publics = groth16::public_signals_of<C>(circuit.witness, circuit.cs.n_public);
  for (int run = 0; run < runs; ++run) {
    groth16::phase_timings t;
    auto proof = groth16::prove<C>(pk->view(), circuit.witness, &t);
    if (!proof) return std::fprintf(stderr, "%s\n", proof.error().to_string().c_str()), 1;
    print(name, run, t, groth16::verify<C>(dk->vk, publics, *proof).is_ok());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "zkey" && argc >= 4) {
    const int runs = argc > 4 ? std::atoi(argv[4]) : 3;
    auto curve = formats::detect_curve(argv[2]);
    if (!curve) return std::fprintf(stderr, "%s\n", curve.error().to_string().c_str()), 1;
    return *curve == formats::curve_id::bn254 ? bench_zkey<bn254>(argv[2], argv[3], runs)
                                              : bench_zkey<bls12_381>(argv[2], argv[3], runs);
  }
  if (mode == "synthetic" && argc >= 5) {
    const std::string curve = argv[2];
    const unsigned log_size = static_cast<unsigned>(std::atoi(argv[3]));
    const auto kind =
        std::string(argv[4]) == "dense" ? synth::witness_kind::dense : synth::witness_kind::mostly_boolean;
    const int runs = argc > 5 ? std::atoi(argv[5]) : 3;
    return curve == "bn254" ? bench_synthetic<bn254>(log_size, kind, runs)
                            : bench_synthetic<bls12_381>(log_size, kind, runs);
  }
  std::fprintf(stderr,
               "usage: %s zkey <circuit.zkey> <witness.wtns> [runs]\n"
               "       %s synthetic <bn254|bls12_381> <log2 size> <dense|boolean> [runs]\n",
               argv[0], argv[0]);
  return 2;
}
