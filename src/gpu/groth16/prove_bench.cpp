// cuzk_gpu_prove_bench: the whole Groth16 proof on the GPU, per phase, as a plain table (the GPU
// machine has no Google Benchmark; cuzk_gpu_bench's style).
//
//   cuzk_gpu_prove_bench --curve bn254|bls12-381 --log-size K --witness dense|boolean
//                        [--runs N] [--key real|random]
//                        [--synthesis device|host-pinned|host-pageable]
//
// Builds a synthetic circuit of 2^K - 2 constraints (synth/synthetic_circuit.hpp) and a key in
// memory: `real` is a development setup (the proof is verified with groth16::verify), `random`
// fills the key's point sections with random curve points (cheap; the timings are the same since
// no phase depends on what the points are, but such a proof cannot verify, and the table says
// so). Uploads the key once, proves once as a warm-up (the MSMs' scratch grows then), then N
// times, and prints the median of each phase (gpu_prover.hpp says how each is timed and which
// overlap). The witness is the caller's host memory; the prover stages it into pinned memory
// (the `witness` row).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/groth16/gpu_prover.hpp"
#include "msm/msm_inputs.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::gpu {
namespace {

struct options {
  std::string curve = "bn254", witness = "dense", key = "real", synthesis = "device";
  unsigned log_size = 16;
  unsigned runs = 5;
};

int fail(const status& s) {
  std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
  return 1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A key of the right shape for `cs` whose points are random: for timing only.
template <class C>
formats::groth16_key_data<C> random_key(const synth::constraint_system<typename C::fr>& cs) {
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  formats::groth16_key_data<C> kd;
  kd.n_vars = static_cast<uint32_t>(cs.n_vars);
  kd.n_public = static_cast<uint32_t>(cs.n_public);
  kd.domain_size = static_cast<uint32_t>(cs.domain_size());
  const auto g1s = msm::testing::random_points<G1>(3, 1), g2s = msm::testing::random_points<G2>(3, 2);
  kd.alpha1 = g1s[0];
  kd.beta1 = g1s[1];
  kd.delta1 = g1s[2];
  kd.beta2 = g2s[0];
  kd.gamma2 = g2s[1];
  kd.delta2 = g2s[2];
  kd.ic = msm::testing::random_points<G1>(cs.n_public + 1, 3);
  kd.a = msm::testing::random_points<G1>(cs.n_vars, 4);
  kd.b1 = msm::testing::random_points<G1>(cs.n_vars, 5);
  kd.b2 = msm::testing::random_points<G2>(cs.n_vars, 6);
  kd.c = msm::testing::random_points<G1>(cs.n_vars - cs.n_public - 1, 7);
  kd.h = msm::testing::random_points<G1>(kd.domain_size, 8);
  const std::size_t m = cs.n_constraints;
  for (std::size_t j = 0; j < m; ++j)
    for (uint32_t which = 0; which < 2; ++which) {
      const auto& mat = which == 0 ? cs.a : cs.b;
      const auto cols = mat.row_cols(j);
      const auto vals = mat.row_values(j);
      for (std::size_t k = 0; k < cols.size(); ++k)
        kd.coefs.push_back({which, static_cast<uint32_t>(j), cols[k], vals[k]});
    }
  for (std::size_t s = 0; s <= cs.n_public; ++s)
    kd.coefs.push_back({0, static_cast<uint32_t>(m + s), static_cast<uint32_t>(s), C::fr::one()});
  return kd;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class C>
int bench(const options& o) {
  using Fr = typename C::fr;
  const auto kind = o.witness == "dense" ? synth::witness_kind::dense : synth::witness_kind::mostly_boolean;
  auto t0 = std::chrono::steady_clock::now();
  const auto circuit = synth::make_synthetic_circuit<Fr>(o.log_size, kind);
  const double gen_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  std::optional<groth16::development_key<C>> dk;
  formats::groth16_key_data<C> random_kd;
  if (o.key == "real") {
    auto made = groth16::development_setup<C>(circuit.cs);
    if (!made) return fail(made.error());
    dk = std::move(made).value();
  } else {
    random_kd = random_key<C>(circuit.cs);
  }
  const auto& kd = dk ? dk->key : random_kd;
  auto pk = groth16::proving_key<C>::from_key_data(kd);
  if (!pk) return fail(pk.error());
  const double setup_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  synthesis_place place = synthesis_place::device;
  for (const auto p : {synthesis_place::device, synthesis_place::host_pinned, synthesis_place::host_pageable})
    if (o.synthesis == synthesis_place_name(p)) place = p;
  auto gk = gpu_proving_key<C>::create(pk->view(), 0, gpu_key_options{place});
  if (!gk) return fail(gk.error());
  const double upload_s = seconds_since(t0);
  auto desc = device_description(gk->device());
  std::printf("# %s, %s; curve=%s log_size=%u witness=%s key=%s synthesis=%s threads=%u\n",
              desc ? desc->c_str() : "?", "cuzk_gpu_prove_bench", C::name, o.log_size, o.witness.c_str(),
              o.key.c_str(), synthesis_place_name(place), thread_pool::global().size());
  std::printf(
      "# nVars=%zu constraints=%zu domain=%zu; generate %.2f s, %s %.2f s, key upload %.2f s, "
      "resident %.1f MiB\n",
      circuit.cs.n_vars, circuit.cs.n_constraints, pk->view().domain_size, gen_s,
      o.key == "real" ? "development setup" : "random key", setup_s, upload_s,
      static_cast<double>(gk->resident_bytes()) / (1 << 20));

  std::mt19937_64 rng(42);
  std::vector<gpu_phase_timings> ts;
  formats::proof<C> last{};
  for (unsigned run = 0; run <= o.runs; ++run) {
    gpu_phase_timings t;
    auto proof = gpu_prove<C>(*gk, pk->view(), circuit.witness, Fr::random(rng), Fr::random(rng), &t);
    if (!proof) return fail(proof.error());
    last = *proof;
    if (run > 0) ts.push_back(t);
  }
  std::string verified = "not verified (random key)";
  if (dk) {
    const auto publics = groth16::public_signals_of<C>(circuit.witness, circuit.cs.n_public);
    const status v = groth16::verify<C>(dk->vk, publics, last);
    verified = v.is_ok() ? "verified" : "FAILED verification: " + v.to_string();
  }

  auto med = [&](double gpu_phase_timings::*field) {
    std::vector<double> v;
    for (const auto& t : ts) v.push_back(t.*field);
    return median(v);
  };
  std::printf("%-34s %10s\n", "phase (median of runs)", "ms");
  auto row = [&](const char* name, double gpu_phase_timings::*field) {
    std::printf("%-34s %10.3f\n", name, med(field));
  };
  row("witness -> pinned", &gpu_phase_timings::witness_ms);
  row(place == synthesis_place::device ? "synthesis (GPU)" : "synthesis (CPU)", &gpu_phase_timings::synthesis_ms);
  std::vector<double> gbs;
  for (const auto& t : ts) gbs.push_back(t.h2d_gb_per_s());
  std::printf("%-34s %10.3f   (%.1f MiB, %.1f GB/s)\n", place == synthesis_place::device ? "witness H2D" : "a,b,c H2D",
              med(&gpu_phase_timings::h2d_ms),
              ts.front().h2d_bytes / (1 << 20), median(gbs));
  row("NTTs (3 inverse + 3 coset) + h", &gpu_phase_timings::ntt_ms);
  row("h D2H staging", &gpu_phase_timings::h_stage_ms);
  row("MSM A (GPU)", &gpu_phase_timings::msm_a_ms);
  row("MSM B1 (GPU)", &gpu_phase_timings::msm_b1_ms);
  row("MSM C (GPU)", &gpu_phase_timings::msm_c_ms);
  row("MSM H (GPU)", &gpu_phase_timings::msm_h_ms);
  row("MSM B2 (G2, GPU)", &gpu_phase_timings::msm_b2_ms);
  row("wait for A,B1,B2,C after H", &gpu_phase_timings::msm_wait_ms);
  row("assembly (CPU)", &gpu_phase_timings::assembly_ms);
  row("total (witness in, proof out)", &gpu_phase_timings::total_ms);
  std::printf("# runs=%zu (after 1 warm-up); proof %s\n", ts.size(), verified.c_str());
  std::fflush(stdout);
  return dk && verified != "verified" ? 1 : 0;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --curve bn254|bls12-381 --log-size K --witness dense|boolean [--runs N] "
               "[--key real|random] [--synthesis device|host-pinned|host-pageable]\n",
               argv0);
  return 2;
}

}  // namespace
}  // namespace cuzk::gpu

int main(int argc, char** argv) {
  using namespace cuzk;
  gpu::options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return gpu::usage(argv[0]);
    const std::string v = argv[++i];
    if (a == "--curve")
      o.curve = v;
    else if (a == "--log-size")
      o.log_size = static_cast<unsigned>(std::atoi(v.c_str()));
    else if (a == "--witness")
      o.witness = v;
    else if (a == "--runs")
      o.runs = static_cast<unsigned>(std::atoi(v.c_str()));
    else if (a == "--key")
      o.key = v;
    else if (a == "--synthesis")
      o.synthesis = v;
    else
      return gpu::usage(argv[0]);
  }
  if ((o.witness != "dense" && o.witness != "boolean") || (o.key != "real" && o.key != "random") ||
      (o.synthesis != "device" && o.synthesis != "host-pinned" && o.synthesis != "host-pageable") ||
      o.log_size < 2 || o.runs == 0)
    return gpu::usage(argv[0]);
  const auto count = gpu::device_count();
  if (!count || *count == 0) {
    std::fprintf(stderr, "no usable CUDA device%s\n",
                 count ? "" : (": " + count.error().to_string()).c_str());
    return 1;
  }
  if (o.curve == "bn254") return gpu::bench<bn254>(o);
  if (o.curve == "bls12-381" || o.curve == "bls12_381") return gpu::bench<bls12_381>(o);
  return gpu::usage(argv[0]);
}
