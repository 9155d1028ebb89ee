// SPDX-License-Identifier: MIT OR Apache-2.0
// The proof benchmark (prove_bench.hpp): circuit, key and upload per size, then the timed proofs.
#include "apps/bench/prove_bench.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <type_traits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "apps/bench/bench_stats.hpp"
#include "base/thread_pool.hpp"
#include "gpu/device.hpp"
#include "gpu/locked_host_memory.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/gpu/gpu_batch_prover.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/gpu_workspace.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "msm/msm_inputs.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::apps::bench {

using namespace cuzk::gpu;  // the kernels these benchmarks time
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

groth16::synthesis_place to_place(prove_synthesis s) {
  switch (s) {
    case prove_synthesis::host_pinned:
      return groth16::synthesis_place::host_pinned;
    case prove_synthesis::host_pageable:
      return groth16::synthesis_place::host_pageable;
    case prove_synthesis::device:
      break;
  }
  return groth16::synthesis_place::device;
}

// A key of the right shape for `cs` whose points are random, for timing only. The points are made
// in place in pinned host memory, where a streamed vector is read from, so the key costs its own
// size once (no vector to copy from) and crosses at the pinned rate; the matrices are cs's A and B
// with the public-input rows, as a zkey's coefficient section would give them.
template <class C>
struct random_key {
  locked_buffer<g1_affine<C>> a, b1, c, h;
  locked_buffer<g2_affine<C>> b2;
  std::unique_ptr<synth::constraint_matrices<typename C::fr>> matrices;
  groth16::proving_key_view<C> view;
};

// The key's constraint matrices for cs, as a zkey's coefficient section would give them: cs's A
// and B and the public-input rows.
template <class Fr>
result<synth::constraint_matrices<Fr>> key_matrices_of(const synth::constraint_system<Fr>& cs) {
  std::vector<synth::zkey_coefficient<Fr>> recs;
  const std::size_t m = cs.n_constraints;
  recs.reserve(cs.a.col.size() + cs.b.col.size() + cs.n_public + 1);
  for (uint32_t which = 0; which < 2; ++which) {
    const auto& mat = which == 0 ? cs.a : cs.b;
    for (std::size_t j = 0; j < m; ++j) {
      const auto cols = mat.row_cols(j);
      const auto vals = mat.row_values(j);
      for (std::size_t i = 0; i < cols.size(); ++i)
        recs.push_back({which, static_cast<uint32_t>(j), cols[i], synth::value_times_r(vals[i]).montgomery()});
    }
  }
  for (std::size_t s = 0; s <= cs.n_public; ++s)
    recs.push_back({0, static_cast<uint32_t>(m + s), static_cast<uint32_t>(s),
                    synth::value_times_r(Fr::one()).montgomery()});
  return synth::matrices_from_records<Fr>(recs, cs.n_vars, cs.domain_size());
}

// Random points for a circuit of these sizes over `matrices` (key_matrices_of).
template <class C>
result<std::unique_ptr<random_key<C>>> make_random_key(std::size_t n_vars, std::size_t n_public, std::size_t domain,
                                                       synth::constraint_matrices<typename C::fr> matrices) {
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  using Fr = typename C::fr;
  auto k = std::make_unique<random_key<C>>();
  k->matrices = std::make_unique<synth::constraint_matrices<Fr>>(std::move(matrices));
  auto pin = [](auto& slot, std::size_t count) -> status {
    using B = std::remove_reference_t<decltype(slot)>;
    auto made = B::create(std::max<std::size_t>(count, 1));
    if (!made) return made.error();
    slot = std::move(*made);
    return status::ok();
  };
  CUZK_TRY(pin(k->a, n_vars));
  CUZK_TRY(pin(k->b1, n_vars));
  CUZK_TRY(pin(k->b2, n_vars));
  CUZK_TRY(pin(k->c, n_vars - n_public - 1));
  CUZK_TRY(pin(k->h, domain));
  msm::testing::fill_random_points<G1>(k->a.data(), n_vars, 4);
  msm::testing::fill_random_points<G1>(k->b1.data(), n_vars, 5);
  msm::testing::fill_random_points<G2>(k->b2.data(), n_vars, 6);
  msm::testing::fill_random_points<G1>(k->c.data(), n_vars - n_public - 1, 7);
  msm::testing::fill_random_points<G1>(k->h.data(), domain, 8);
  const auto g1s = msm::testing::random_points<G1>(3, 1);
  const auto g2s = msm::testing::random_points<G2>(3, 2);
  auto& v = k->view;
  v.n_vars = n_vars;
  v.n_public = n_public;
  v.domain_size = domain;
  v.alpha1 = g1s[0];
  v.beta1 = g1s[1];
  v.delta1 = g1s[2];
  v.beta2 = g2s[0];
  v.gamma2 = g2s[1];
  v.delta2 = g2s[2];
  v.a = {k->a.data(), n_vars};
  v.b1 = {k->b1.data(), n_vars};
  v.b2 = {k->b2.data(), n_vars};
  v.c = {k->c.data(), n_vars - n_public - 1};
  v.h = {k->h.data(), domain};
  v.matrices = k->matrices.get();
  CUZK_TRY(v.validate());
  return k;
}

// The process's peak resident memory so far, in bytes.
double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;
}

template <class C>
status bench(const prove_bench_options& o, unsigned log_size, const std::string& device_desc,
             std::FILE* out) {
  using Fr = typename C::fr;
  const bool dense = o.witness == prove_witness::dense;
  auto t0 = std::chrono::steady_clock::now();
  auto circuit = synth::make_synthetic_circuit<Fr>(
      log_size, dense ? synth::witness_kind::dense : synth::witness_kind::mostly_boolean);
  const double gen_s = seconds_since(t0);
  // The witness in pinned memory from here on, lent to the workspace below as its staging buffer,
  // where the prover's one copy to the device reads it: as a worker whose witness lands in its
  // pinned buffer, with one copy of it in host memory instead of two (so the "witness -> pinned"
  // row is 0: docs/BENCHMARKS.md, 'Host memory of the bench').
  auto staged = locked_buffer<typename Fr::repr>::create(circuit.witness.size());
  if (!staged) return staged.error();
  std::copy(circuit.witness.begin(), circuit.witness.end(), staged->data());
  std::vector<typename Fr::repr>().swap(circuit.witness);
  const std::span<const typename Fr::repr> witness(staged->data(), staged->size());

  t0 = std::chrono::steady_clock::now();
  std::optional<groth16::development_key<C>> dk;
  std::optional<groth16::proving_key<C>> dev_pk;
  std::unique_ptr<random_key<C>> rk;
  if (o.key == prove_key::real) {
    auto made = groth16::development_setup<C>(circuit.cs);
    if (!made) return made.error();
    dk = std::move(made).value();
    auto pk = groth16::proving_key<C>::from_key_data(dk->key);
    if (!pk) return pk.error();
    dev_pk.emplace(std::move(pk).value());
  } else {
    // The matrices first; then the circuit's own (as large as the key's) go before the points
    // take their memory, so that the peak is about the key's size (only the witness and the
    // sizes of the circuit are read below).
    auto mats = key_matrices_of(circuit.cs);
    if (!mats) return mats.error();
    circuit.cs.a = {};
    circuit.cs.b = {};
    circuit.cs.c = {};
    auto made = make_random_key<C>(circuit.cs.n_vars, circuit.cs.n_public, circuit.cs.domain_size(),
                                   std::move(mats).value());
    if (!made) return made.error();
    rk = std::move(made).value();
  }
  const groth16::proving_key_view<C>& view = dk ? dev_pk->view() : rk->view;
  const double setup_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const groth16::synthesis_place place = to_place(o.synthesis);
  groth16::gpu_key_options key_options{place};
  key_options.streamed = o.stream;
  key_options.stream_chunk_points = o.chunk_points;
  if (o.twiddles == prove_twiddles::compact) key_options.twiddles = gpu::ntt_memory::compact;
  key_options.b2_beside = o.b2 == prove_b2::beside;
  key_options.abc = o.abc == prove_abc::two ? groth16::abc_on_device::two : groth16::abc_on_device::three;
  key_options.batch_partitions = o.partitions;  // a budget then holds the whole batch
  // The budget holds the key and the bench's workspace (made below, with the witness lent). With
  // none given the key is made as asked where that fits the device's free memory; where it does
  // not, the budget is the daemon's default share of it (gpu_prover_backend.cpp: nine tenths), so
  // that the bench proves what the card can hold rather than failing in the first cudaMalloc past
  // its memory (10 x 2^26 on an 80 GB card asks ~86 GB as asked).
  std::size_t budget = std::size_t{o.gpu_budget_mib} << 20;
  const char* budget_source = "--gpu-budget-mib";
  if (budget == 0) {
    auto dev = gpu::device_memory(o.device);
    if (!dev) return dev.error();
    const std::size_t share = dev->free_bytes / 10 * 9;
    if (groth16::estimate_device_bytes<C>(view, key_options, key_options.streamed) > share) {
      budget = share;
      budget_source = "nine tenths of the device's free memory";
    }
  }
  if (budget != 0) {
    auto fitted = groth16::fit_to_budget<C>(view, key_options, budget);
    if (!fitted)
      return fitted.error().with_context(std::string("the device budget (") + budget_source + ", " +
                                         std::to_string(budget >> 20) + " MiB)");
    key_options = std::move(fitted).value();
  }
  key_options.workspace = groth16::key_workspace::none;  // the bench's own, below
  auto gk = groth16::gpu_proving_key<C>::create(view, o.device, key_options);
  if (!gk) return gk.error();
  auto ws = groth16::gpu_workspace<C>::create(o.device);
  if (!ws) return ws.error();
  // A plain lease gives nothing back: the staged witness outlives every proof, and each reads it
  // where it is.
  ws->lend_host(std::make_unique<groth16::host_lease<C>>(std::span(staged->data(), staged->size())));
  CUZK_TRY(ws->reserve(view.n_vars, view.domain_size, place, gk->abc(), gk->msm_scratch()));
  const double upload_s = seconds_since(t0);
  groth16::gpu_key_options chosen_options = key_options;  // with the range a budget chose
  chosen_options.workspace = groth16::key_workspace::own;  // the estimate counts the workspace
  chosen_options.stream_chunk_points = gk->stream_chunk_points();
  std::fprintf(out, "# %s, device %d; prove curve=%s log_size=%u witness=%s key=%s synthesis=%s threads=%u\n",
               device_desc.c_str(), o.device, curve_name(o.curve), log_size, dense ? "dense" : "boolean",
               dk ? "real" : "random", groth16::synthesis_place_name(place), thread_pool::global().size());
  std::fprintf(out,
               "# nVars=%zu constraints=%zu domain=%zu; generate %.2f s, %s %.2f s, key upload %.2f s, "
               "resident %.1f MiB\n",
               circuit.cs.n_vars, circuit.cs.n_constraints, view.domain_size, gen_s,
               dk ? "development setup" : "random key", setup_s, upload_s,
               static_cast<double>(gk->resident_bytes() + ws->device_bytes()) / (1 << 20));
  chosen_options.twiddles = gk->twiddles();
  chosen_options.b2_beside = gk->b2_beside();
  chosen_options.abc = gk->abc();
  std::fprintf(out,
               "# streamed vectors: %s%s (ranges of %zu points); twiddles %s; B2 %s; a, b, c on the device: %s; "
               "device budget %s; estimate %.1f MiB\n",
               gk->streamed().to_string().c_str(), gk->pageable_streamed() ? ", some from pageable memory" : "",
               gk->stream_chunk_points(), gk->twiddles() == gpu::ntt_memory::compact ? "compact" : "tables",
               gk->b2_beside() ? "beside A, B1, C" : "in turn", groth16::abc_on_device_name(gk->abc()),
               budget == 0                ? "none"
               : o.gpu_budget_mib != 0    ? (std::to_string(o.gpu_budget_mib) + " MiB").c_str()
                                          : (std::to_string(budget >> 20) + " MiB, none given: the key as asked did not fit nine tenths of the device's free memory").c_str(),
               static_cast<double>(groth16::estimate_device_bytes<C>(view, chosen_options, gk->streamed())) / (1 << 20));
  std::fprintf(out, "# MSM arenas (in the resident figure): A, B1, C%s %.1f MiB; B2 %.1f MiB; H %.1f MiB\n",
               gk->b2_beside() ? "" : ", B2", static_cast<double>(gk->msm_scratch().witness_side) / (1 << 20),
               static_cast<double>(gk->msm_scratch().b2_side) / (1 << 20),
               static_cast<double>(gk->msm_scratch().h_side) / (1 << 20));

  std::mt19937_64 rng(42);
  std::vector<groth16::phase_timings> ts;
  formats::proof<C> last{};
  const groth16::gpu_context<C> where{*gk, &*ws};
  // A batch proves the same witness as every partition (the work does not depend on the values'
  // differences, only on their 0/1 share), with its own r and s each.
  const std::vector<std::span<const typename Fr::repr>> batch(o.partitions, witness);
  for (unsigned run = 0; run <= o.reps; ++run) {
    groth16::phase_timings t;
    if (o.partitions > 1) {
      std::vector<Fr> r(o.partitions), s(o.partitions);
      for (unsigned p = 0; p < o.partitions; ++p) r[p] = Fr::random(rng), s[p] = Fr::random(rng);
      auto proofs = groth16::prove_batch_with<C>(view, batch, r, s, &t, where);
      if (!proofs) return proofs.error();
      last = proofs->back();
    } else {
      auto proof = groth16::prove_with<C>(view, witness, Fr::random(rng), Fr::random(rng), &t, where);
      if (!proof) return proof.error();
      last = *proof;
    }
    if (run > 0) ts.push_back(t);
  }
  status verified = status::ok();
  if (dk)
    verified =
        groth16::verify<C>(dk->vk, groth16::public_signals_of<C>(witness, circuit.cs.n_public), last);

  std::fprintf(out, "%-36s %10s %10s %10s\n", "phase", "median_ms", "min_ms", "max_ms");
  auto row = [&](const std::string& name, auto value) {
    std::vector<double> v;
    for (const auto& t : ts) v.push_back(value(t));
    const sample_stats s = summarize(std::move(v));
    std::fprintf(out, "%-36s %10.3f %10.3f %10.3f\n", name.c_str(), s.median, s.min, s.max);
  };
  // The timings are seconds; the table is milliseconds.
  auto field = [&](const std::string& name, double groth16::phase_timings::*f) {
    row(name, [f](const groth16::phase_timings& t) { return t.*f * 1e3; });
  };
  const bool on_device = place == groth16::synthesis_place::device;
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f MiB", ts.front().h2d_bytes / (1 << 20));
  field("witness -> pinned", &groth16::phase_timings::witness);
  field(on_device ? "synthesis (GPU)" : "synthesis (CPU)", &groth16::phase_timings::synthesis);
  field(std::string(on_device ? "h2d: witness, " : "h2d: a,b,c, ") + mib, &groth16::phase_timings::h2d);
  row("h2d bandwidth (GB/s)", [](const groth16::phase_timings& t) { return t.h2d_gb_per_s(); });
  if (!on_device) {
    // With synthesis on the host the MSMs' witness is a second copy of its own.
    const double w_bytes = static_cast<double>(circuit.cs.n_vars * sizeof(typename Fr::repr));
    std::snprintf(mib, sizeof mib, "%.1f MiB", w_bytes / (1 << 20));
    field(std::string("witness h2d (for A,B1,B2,C), ") + mib, &groth16::phase_timings::witness_h2d);
    row("witness h2d bandwidth (GB/s)", [w_bytes](const groth16::phase_timings& t) {
      return t.witness_h2d > 0 ? w_bytes / (t.witness_h2d * 1e9) : 0.0;
    });
  }
  field("NTTs (3 inverse + 3 coset) + h", &groth16::phase_timings::ntt);
  field("MSM A", &groth16::phase_timings::msm_a);
  field("MSM B1", &groth16::phase_timings::msm_b1);
  field("MSM C", &groth16::phase_timings::msm_c);
  field("MSM H", &groth16::phase_timings::msm_h);
  field("MSM B2 (G2)", &groth16::phase_timings::msm_b2);
  field("wait for A,B1,B2,C after H", &groth16::phase_timings::msm_wait);
  field("assembly (CPU)", &groth16::phase_timings::assembly);
  field("total (witness in, proof out)", &groth16::phase_timings::total);
  if (o.partitions > 1) {
    std::fprintf(out, "# a batch of %u partitions: the rows are the batch's (MSMs and NTTs summed over them)\n",
                 o.partitions);
    row("total per partition", [&o](const groth16::phase_timings& t) { return t.total * 1e3 / o.partitions; });
  }
  std::fprintf(out, "# peak host memory (RSS) %.1f GiB, key points %.1f GiB\n", peak_rss_bytes() / (1 << 30),
               static_cast<double>(view.a.size_bytes() + view.b1.size_bytes() + view.b2.size_bytes() +
                                   view.c.size_bytes() + view.h.size_bytes()) /
                   (1 << 30));
  std::fprintf(out, "# reps=%zu after one warm-up; proof %s\n", ts.size(),
               !dk                ? "not verified (random key)"
               : verified.is_ok() ? "verified"
                                  : ("FAILED verification: " + verified.to_string()).c_str());
  std::fflush(out);
  if (!verified.is_ok())
    return status(errc::verification_failed, "prove bench: the GPU proof at log size " +
                                                 std::to_string(log_size) +
                                                 " does not verify: " + verified.to_string());
  return status::ok();
}

}  // namespace

status run_prove_bench(const prove_bench_options& o, std::FILE* out) {
  CUZK_TRY(validate(o));
  CUZK_TRY(use_device(o.device));
  auto desc = device_description(o.device);
  if (!desc) return desc.error();
  for (unsigned k : o.log_sizes) {
    CUZK_TRY(o.curve == bench_curve::bn254 ? bench<bn254>(o, k, *desc, out)
                                           : bench<bls12_381>(o, k, *desc, out));
    if (o.log_sizes.size() > 1) std::fprintf(out, "\n");
  }
  return status::ok();
}

}  // namespace cuzk::apps::bench
