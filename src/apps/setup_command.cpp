// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/setup_command.hpp"

#include <CLI/CLI.hpp>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <new>
#include <span>

#include "apps/progress.hpp"
#include "base/thread_pool.hpp"
#include "formats/output_files.hpp"
#include "formats/r1cs.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey_writer.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/setup.hpp"
#if defined(CUZK_HAVE_GPU_PROVER)
#include "groth16/gpu/gpu_setup.hpp"
#endif
#include "synth/synthetic_circuit.hpp"

namespace cuzk::apps {

void setup_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("setup",
                           "development setup (NOT a ceremony): a zkey and verification key for an .r1cs, or a "
                           "synthetic circuit with its witness");
  sub->add_option("files", files, "<circuit.r1cs> <out.zkey>, or with --synthetic <out.zkey> <out.wtns>")
      ->required()
      ->expected(2);
  sub->add_option("--vk", vk, "also write the verification key (verification_key.json)");
  sub->add_flag("--cpu", force_cpu, "make the points on the CPU even where a GPU is present");
  sub->add_flag("--synthetic", synthetic, "make a synthetic circuit and its witness instead of reading an .r1cs");
  sub->add_option("--log-size", log_size, "synthetic: log2 of the domain (2^K - 2 constraints)")
      ->check(CLI::Range(2u, 28u));
  sub->add_option("--witness", witness, "synthetic: witness shape")
      ->check(CLI::IsMember({"dense", "boolean"}))
      ->capture_default_str();
  sub->add_option("--curve", curve, "synthetic: curve")
      ->check(CLI::IsMember({"bn254", "bls12-381"}))
      ->capture_default_str();
  sub->add_option("--seed", seed, "synthetic: seed of the circuit and witness (not of the toxic waste)")
      ->capture_default_str();
}

namespace {

double file_size(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(n);
}

// Every output of this setup (the zkey, the verification key when asked, the witness with
// --synthetic), checked before the setup runs and renamed into place together at the end
// (output_files.hpp): a failed verification key write leaves no zkey behind.
result<formats::output_files> prepare_outputs(const setup_command& cmd) {
  std::vector<formats::named_path> outs{{"the zkey output", cmd.synthetic ? cmd.files[0] : cmd.files[1]}};
  if (!cmd.vk.empty()) outs.push_back({"the verification key output", cmd.vk});
  if (cmd.synthetic) outs.push_back({"the witness output", cmd.files[1]});
  std::vector<formats::named_path> ins;
  if (!cmd.synthetic) ins.push_back({"the r1cs input", cmd.files[0]});
  return formats::output_files::prepare(outs, ins);
}

// Where the points are made: on the GPU where the prover's chooser finds a usable one (as `cuzk
// prove` does) and --cpu was not given, by the CPU comb otherwise.
template <class C>
result<groth16::fixed_base_engine<C>> engine_for(const setup_command& cmd,
                                                  const synth::constraint_system<typename C::fr>& cs,
                                                  step_reporter& rep) {
  const auto wanted = cmd.force_cpu ? groth16::prover_kind::cpu : groth16::prover_kind::automatic;
  const groth16::prover_choice choice = *groth16::choose_prover(wanted);  // cpu and automatic always answer
#if defined(CUZK_HAVE_GPU_PROVER)
  if (choice.kind == groth16::prover_kind::gpu) {
    rep.note("  (points on the GPU: " + choice.reason + ")");
    return rep.step("setup: comb tables to the GPU", [&] {
      return groth16::gpu_fixed_base_engine<C>(0, 3 * cs.n_vars + cs.domain_size(), cs.n_vars);
    });
  }
#else
  (void)cs;
#endif
  rep.note("  (points on the CPU, " + std::to_string(thread_pool::global().size()) + " threads" +
           (choice.reason.empty() ? "" : "; " + choice.reason) + ")");
  return groth16::fixed_base_engine<C>{};
}

// Setup for `cs`, then the zkey and (when asked) the verification key, staged in `out` (the zkey
// first, then the key); the caller commits.
template <class C>
status setup_and_write(const setup_command& cmd, const synth::constraint_system<typename C::fr>& cs,
                       formats::output_files& out, step_reporter& rep) {
  const std::size_t domain = cs.domain_size();
  rep.note("  (" + std::string(C::name) + ", " + std::to_string(cs.n_constraints) + " constraints, nVars " +
           std::to_string(cs.n_vars) + ", nPublic " + std::to_string(cs.n_public) + ", domain 2^" +
           std::to_string(std::countr_zero(domain)) + ")");
  auto engine = engine_for<C>(cmd, cs, rep);
  if (!engine) return engine.error();
  auto dk = rep.step(std::string("setup (") + C::name + ", 2^" + std::to_string(std::countr_zero(domain)) + ")",
                     [&] { return groth16::development_setup<C>(cs, *engine); });
  if (!dk) return dk.error();
  CUZK_TRY(rep.step("write the zkey", [&] { return formats::write_zkey<C>(out.staging_path(0), dk->key); }));
  if (!cmd.vk.empty()) {
    // development_setup's key already carries vk_alphabeta_12.
    CUZK_TRY(rep.step("write the verification key",
                      [&] { return formats::write_verification_key_json<C>(out.staging_path(1), dk->vk); }));
  }
  std::printf("WARNING: %s\n", dk->provenance.c_str());
  return status::ok();
}

void print_written(const setup_command& cmd, const std::string& zkey_path, const char* curve,
                   std::size_t n_constraints, std::size_t n_vars, std::size_t n_public, std::size_t domain) {
  std::printf("wrote %s (%s, %s, %zu constraints, nVars %zu, nPublic %zu, domain 2^%d)\n", zkey_path.c_str(),
              human_bytes(file_size(zkey_path)).c_str(), curve, n_constraints, n_vars, n_public,
              std::countr_zero(domain));
  if (!cmd.vk.empty()) std::printf("wrote %s\n", cmd.vk.c_str());
}

template <class C>
int setup_from_r1cs(const setup_command& cmd, const formats::r1cs& r1cs, step_reporter& rep) {
  auto out = prepare_outputs(cmd);
  if (!out) return report_error(out.error());
  auto cs = rep.step("load: constraint matrices", [&] { return groth16::constraint_system_of<C>(r1cs); });
  if (!cs) return report_error(cs.error().with_context(cmd.files[0]));
  try {
    if (auto s = setup_and_write<C>(cmd, *cs, *out, rep); !s) return report_error(s);
  } catch (const std::bad_alloc&) {
    // The key holds points for every wire: an r1cs whose header claims 2^32 - 1 of them reached
    // main's bare "out of memory" without a word of which file asked for it.
    return report_error(cmd.files[0] + ": out of memory for its key's points: nWires = " +
                        std::to_string(cs->n_vars) + ", domain 2^" + std::to_string(std::countr_zero(cs->domain_size())) +
                        " (the key holds four points per wire) is more than the memory available");
  }
  if (auto s = out->commit(); !s) return report_error(s);
  print_written(cmd, cmd.files[1], C::name, cs->n_constraints, cs->n_vars, cs->n_public, cs->domain_size());
  rep.finish();
  return exit_ok;
}

template <class C>
int setup_synthetic(const setup_command& cmd, step_reporter& rep) {
  using Fr = typename C::fr;
  auto out = prepare_outputs(cmd);
  if (!out) return report_error(out.error());
  const auto kind = cmd.witness == "dense" ? synth::witness_kind::dense : synth::witness_kind::mostly_boolean;
  auto circuit = rep.step("synthetic circuit and witness",
                          [&] { return synth::make_synthetic_circuit<Fr>(cmd.log_size, kind, cmd.seed); });
  if (auto s = setup_and_write<C>(cmd, circuit.cs, *out, rep); !s) return report_error(s);
  const status w = rep.step("write the witness", [&] {
    return groth16::write_wtns<C>(out->staging_path(cmd.vk.empty() ? 1 : 2),
                                  std::span<const typename Fr::repr>(circuit.witness));
  });
  if (!w) return report_error(w);
  if (auto s = out->commit(); !s) return report_error(s);
  const auto& cs = circuit.cs;
  print_written(cmd, cmd.files[0], C::name, cs.n_constraints, cs.n_vars, cs.n_public, cs.domain_size());
  std::printf("wrote %s (%s witness, %zu values)\n", cmd.files[1].c_str(), cmd.witness.c_str(),
              circuit.witness.size());
  rep.finish();
  return exit_ok;
}

}  // namespace

int setup_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  if (synthetic) {
    if (log_size == 0) return usage_error("setup --synthetic: --log-size K is required");
    rep.note("cuzk setup --synthetic --log-size " + std::to_string(log_size) + " --witness " + witness + " --curve " +
             curve);
    const auto id = curve == "bn254" ? formats::curve_id::bn254 : formats::curve_id::bls12_381;
    return with_curve(id, [&]<class C>() { return setup_synthetic<C>(*this, rep); });
  }
  if (log_size != 0) return usage_error("setup: --log-size, --witness and --curve need --synthetic");
  rep.note("cuzk setup " + files[0]);
  auto r1cs = rep.step("load: map and check the r1cs", [&] { return formats::r1cs::open(files[0]); });
  if (!r1cs) return report_error(r1cs.error());
  return with_curve(r1cs->header().curve, [&]<class C>() { return setup_from_r1cs<C>(*this, *r1cs, rep); });
}

}  // namespace cuzk::apps
