// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/gpu_bench_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>

#ifdef CUZK_HAVE_CUDA
#include "apps/bench/msm_bench.hpp"
#include "apps/bench/ntt_bench.hpp"
#include "apps/bench/prove_bench.hpp"
#endif

namespace cuzk::apps {
namespace {

namespace gb = bench;

// The names on the command line for each enumeration (lists take them comma-separated).
template <class E>
using names = std::map<std::string, E>;
const names<gb::bench_curve> curve_names{{"bn254", gb::bench_curve::bn254},
                                         {"bls12-381", gb::bench_curve::bls12_381}};
const names<gb::msm_group> group_names{{"g1", gb::msm_group::g1}, {"g2", gb::msm_group::g2}};
const names<gb::msm_accumulation_choice> accumulation_names{{"auto", gb::msm_accumulation_choice::automatic},
                                                            {"affine", gb::msm_accumulation_choice::affine},
                                                            {"xyzz", gb::msm_accumulation_choice::xyzz}};
const names<gb::msm_points> point_names{{"resident", gb::msm_points::resident},
                                        {"streamed", gb::msm_points::streamed}};
const names<gb::msm_scalars> scalar_names{{"host", gb::msm_scalars::host},
                                          {"device", gb::msm_scalars::device}};
const names<gb::prove_witness> witness_names{{"dense", gb::prove_witness::dense},
                                             {"boolean", gb::prove_witness::mostly_boolean}};
const names<gb::prove_key> key_names{{"real", gb::prove_key::real}, {"random", gb::prove_key::random}};
const names<gb::prove_synthesis> synthesis_names{{"device", gb::prove_synthesis::device},
                                                 {"host-pinned", gb::prove_synthesis::host_pinned},
                                                 {"host-pageable", gb::prove_synthesis::host_pageable}};
const names<gb::prove_twiddles> twiddle_names{{"tables", gb::prove_twiddles::tables},
                                              {"compact", gb::prove_twiddles::compact}};
const names<gb::prove_b2> b2_names{{"beside", gb::prove_b2::beside}, {"in-turn", gb::prove_b2::in_turn}};
const names<gb::prove_abc> abc_names{{"three", gb::prove_abc::three}, {"two", gb::prove_abc::two}};

template <class E>
CLI::IsMember one_of(const names<E>& n) {
  std::vector<std::string> list;
  for (const auto& [name, value] : n) list.push_back(name);
  return CLI::IsMember(list, CLI::ignore_case);
}

// CLI11's IsMember has already turned the name into the table's spelling.
template <class E>
E lookup(const names<E>& n, const std::string& name) {
  return n.at(name);
}

template <class E>
std::vector<E> lookup(const names<E>& n, const std::vector<std::string>& list) {
  std::vector<E> out;
  for (const auto& name : list) out.push_back(n.at(name));
  return out;
}

// The options every GPU benchmark takes.
void add_common(CLI::App* s, gb::common_options& o, std::string& curve, std::vector<unsigned>& log_sizes,
                const char* sizes_help) {
  s->add_option("--curve", curve, "bn254 or bls12-381")->required()->transform(one_of(curve_names));
  s->add_option("--log-size,-k", log_sizes, sizes_help)->required()->delimiter(',');
  s->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str();
  s->add_option("--reps", o.reps,
                "timed runs after the one warm-up; the table gives their median, min and max")
      ->capture_default_str();
}

}  // namespace

void gpu_bench_command::add_to(CLI::App& bench) {
  ntt = bench.add_subcommand(
      "ntt", "GPU NTT over resident data: seven transforms (direction, order, coset; ms), one row each");
  add_common(ntt, ntt_opts, ntt_curve, ntt_opts.log_sizes, "log2 of the domain size, K[,K...] (1..28)");

  msm = bench.add_subcommand("msm", "GPU MSM, G1 or G2, over resident or streamed points, with the phase breakdown (ms)");
  add_common(msm, msm_opts, msm_curve, msm_opts.log_sizes,
             "log2 of the number of points, K[,K...] (G1 1..28, G2 1..26; the points of the largest are "
             "built once)");
  msm->add_option("--group", group, "g1 or g2")->capture_default_str()->transform(one_of(group_names));
  msm->add_option(
         "--accumulation", accumulations,
         "bucket accumulation, auto|affine|xyzz[,...] (default auto)")
      ->delimiter(',')
      ->transform(one_of(accumulation_names));
  msm->add_option("--chunks", msm_opts.chunks,
                  "point ranges of the XYZZ accumulation, K[,K...] (0..64; default 0: by size)")
      ->delimiter(',');
  msm->add_option("--points", points,
                  "resident: on the device; streamed: in pinned host memory, copied in ranges every run")
      ->capture_default_str()
      ->transform(one_of(point_names));
  msm->add_option("--chunk-points", msm_opts.chunk_points,
                  "points per streamed range (0: the MSM's default, 2^22; with --points streamed)");
  msm->add_option("--zero-one", msm_opts.zero_one_share,
                  "share of the scalars that are 0 or 1, the rest uniform (0..1; a witness of bits: ~0.9); "
                  "`auto` chooses as for scalars it was not told of")
      ->capture_default_str();
  msm->add_option("--scalars", scalars,
                  "host: streamed from pinned host memory each run (the copy is timed); device: resident; "
                  "host|device[,...] (default host)")
      ->delimiter(',')
      ->transform(one_of(scalar_names));

  prove = bench.add_subcommand("prove",
                               "the whole Groth16 proof on the GPU, per phase, with the copy's GB/s (ms)");
  add_common(prove, prove_opts, prove_curve, prove_opts.log_sizes,
             "log2 of the domain: a synthetic circuit of 2^K - 2 constraints, K[,K...] (2..28)");
  prove->add_option("--witness", witness, "dense, or boolean (mostly 0/1 values)")
      ->capture_default_str()
      ->transform(one_of(witness_names));
  prove
      ->add_option("--key", key,
                   "real: a development setup, the proof is verified; random: random points, cheap at large "
                   "sizes, not verifiable")
      ->capture_default_str()
      ->transform(one_of(key_names));
  prove->add_option("--synthesis", synthesis, "device, host-pinned or host-pageable")
      ->capture_default_str()
      ->transform(one_of(synthesis_names));
  prove
      ->add_option("--stream", stream,
                   "point vectors left in host memory and streamed to the GPU in every proof: none, all, or "
                   "a list of a,b1,b2,c,h")
      ->capture_default_str();
  prove->add_option("--gpu-budget-mib", prove_opts.gpu_budget_mib,
                    "device memory the key may take (MiB); the vectors that do not fit are streamed too "
                    "(default 0: none where the key as asked fits the device's free memory, nine tenths of that "
                    "memory where it does not)");
  prove
      ->add_option("--twiddles", twiddles,
                   "the NTT plan's twiddles: tables (every one precomputed), or compact (computed in the passes "
                   "with the largest stages; what a budget picks when the tables do not fit)")
      ->capture_default_str()
      ->transform(one_of(twiddle_names));
  prove
      ->add_option("--b2", b2,
                   "B2's G2 MSM: beside A, B1 and C (its own thread, stream and arena), or in their turn (one "
                   "arena fewer; what a budget picks when beside does not fit)")
      ->capture_default_str()
      ->transform(one_of(b2_names));
  prove
      ->add_option("--abc-on-device", abc,
                   "how many of the vectors a, b, c a proof holds on the device at once: three (the witness "
                   "beside them), or two (c takes b's place, made there by a second synthesis kernel or copied "
                   "from the host, and then with synthesis on the host the witness). With a budget the budget "
                   "chooses: two where three do not fit, or with synthesis on the device where two let B2 run "
                   "beside A, B1 and C")
      ->capture_default_str()
      ->transform(one_of(abc_names));
  prove->add_option("--chunk-points", prove_opts.chunk_points,
                    "points per streamed range (default 0: 2^22)");
  prove->add_option("--partitions", prove_opts.partitions,
                    "proofs per batch, as a job's partitions: each MSM runs once for all of them (default 1; "
                    "the same witness each time)")
      ->capture_default_str();
}

bool gpu_bench_command::chosen() const {
  return (ntt && ntt->parsed()) || (msm && msm->parsed()) || (prove && prove->parsed());
}

int gpu_bench_command::run(const global_options&) {
  const char* name = ntt->parsed() ? "ntt" : msm->parsed() ? "msm" : "prove";
  ntt_opts.curve = ntt->parsed() ? lookup(curve_names, ntt_curve) : ntt_opts.curve;
  msm_opts.curve = msm->parsed() ? lookup(curve_names, msm_curve) : msm_opts.curve;
  prove_opts.curve = prove->parsed() ? lookup(curve_names, prove_curve) : prove_opts.curve;
  msm_opts.group = lookup(group_names, group);
  msm_opts.accumulations = lookup(accumulation_names, accumulations);
  msm_opts.scalars = lookup(scalar_names, scalars);
  msm_opts.points = lookup(point_names, points);
  prove_opts.witness = lookup(witness_names, witness);
  prove_opts.key = lookup(key_names, key);
  prove_opts.synthesis = lookup(synthesis_names, synthesis);
  prove_opts.twiddles = lookup(twiddle_names, twiddles);
  prove_opts.b2 = lookup(b2_names, b2);
  prove_opts.abc = lookup(abc_names, abc);
  if (prove->parsed()) {
    auto set = groth16::key_vector_set::parse(stream, "--stream");
    if (!set) return usage_error(set.error());
    prove_opts.stream = *set;
  }
  const status valid = ntt->parsed()   ? gb::validate(ntt_opts)
                       : msm->parsed() ? gb::validate(msm_opts)
                                       : gb::validate(prove_opts);
  if (!valid) return usage_error(valid);
#ifdef CUZK_HAVE_CUDA
  const status s = ntt->parsed()   ? gb::run_ntt_bench(ntt_opts, stdout)
                   : msm->parsed() ? gb::run_msm_bench(msm_opts, stdout)
                                   : gb::run_prove_bench(prove_opts, stdout);
  if (!s)
    return report_error(std::string("bench ") + name + ": " +
                        (s.message().empty() ? s.to_string() : s.message()));
  return exit_ok;
#else
  return report_error(std::string("bench ") + name +
                      ": this cuzk was built without CUDA; the GPU benchmarks need a build configured with "
                      "-DCUZK_CUDA=ON where the CUDA toolkit is installed");
#endif
}

}  // namespace cuzk::apps
