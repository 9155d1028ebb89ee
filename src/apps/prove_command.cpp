// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/prove_command.hpp"

#include <CLI/CLI.hpp>

#include <bit>
#include <span>

#include "apps/progress.hpp"
#include "base/thread_pool.hpp"
#include "formats/output_files.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/phase_timings.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/proving_key.hpp"
#include "groth16/verifier.hpp"
#if defined(CUZK_HAVE_GPU_PROVER)
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/gpu_proving_key.hpp"
#endif

namespace cuzk::apps {

void prove_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("prove", "make a Groth16 proof (drop-in for rapidsnark's prover and snarkjs groth16 prove)");
  sub->add_option("zkey", zkey, "proving key (.zkey, snarkjs format)")->required();
  sub->add_option("wtns", wtns, "witness (.wtns, from circom's witness generator or snarkjs wtns calculate)")
      ->required();
  sub->add_option("proof", proof, "output: proof.json")->required();
  sub->add_option("public", public_json, "output: public.json (the public signals)")->required();
  sub->add_flag("--no-verify", no_verify, "skip checking the proof against the key's verification key before writing it");
  sub->add_flag("--cpu", force_cpu, "prove on the CPU even when a GPU is available");
}

namespace {

// The prover this run uses: the GPU when this build has it, a device answers and --cpu was not
// given; the CPU otherwise (with a note saying why, when a GPU was wanted).
groth16::prover_choice choose_backend(const prove_settings& cmd, step_reporter& rep) {
  const auto wanted = cmd.force_cpu ? groth16::prover_kind::cpu : groth16::prover_kind::automatic;
  groth16::prover_choice choice = *groth16::choose_prover(wanted);  // cpu and automatic always answer
  if (choice.kind == groth16::prover_kind::cpu && !cmd.force_cpu && groth16::gpu_prover_built())
    rep.note("  " + choice.reason + "; proving on the CPU");  // "no usable CUDA GPU: <why>; ..."
  return choice;
}

// The phases of one proof, as --verbose prints them.
void report_phases(step_reporter& rep, const groth16::phase_timings& t, bool on_gpu) {
  const char* const gpu = on_gpu ? ", GPU" : "";
  if (t.synthesis_on_device) {
    // Synthesis on the device follows the witness copy; on the host, a, b, c are copied after it.
    rep.phase("witness to the GPU", t.h2d, true);
    rep.phase("synthesis (a, b, c, GPU)", t.synthesis, true);
  } else {
    rep.phase("synthesis (a, b, c)", t.synthesis, true);
    if (on_gpu) rep.phase("a, b, c to the GPU", t.h2d, true);
  }
  rep.phase("ntt (h)", t.ntt, true);
  rep.phase(std::string("msm A (G1") + gpu + ")", t.msm_a, true);
  rep.phase(std::string("msm B1 (G1") + gpu + ")", t.msm_b1, true);
  rep.phase(std::string("msm B2 (G2") + gpu + ")", t.msm_b2, true);
  rep.phase(std::string("msm C (G1") + gpu + ")", t.msm_c, true);
  rep.phase(std::string("msm H (G1") + gpu + ")", t.msm_h, true);
  rep.phase("assembly", t.assembly, true);
}

template <class C>
int prove_on(const prove_settings& cmd, const witness_source& source, step_reporter& rep) {
  using repr = typename C::fr::repr;

  // Checked before the proof is made, written together after (output_files.hpp).
  std::vector<formats::named_path> inputs = {{"the zkey input", cmd.zkey}};
  inputs.insert(inputs.end(), source.inputs.begin(), source.inputs.end());
  auto out = formats::output_files::prepare({{"the proof output", cmd.proof}, {"the public output", cmd.public_json}},
                                            inputs);
  if (!out) return report_error(out.error());
  auto zk = rep.step("load: map the zkey", [&] { return formats::zkey<C>::open(cmd.zkey); });
  if (!zk) return report_error(zk.error());
  auto w = source.open(rep);
  if (!w) return report_error(w.error());
  if (auto s = w->check_fits(formats::curve_id_of<C>, zk->n_vars(), cmd.zkey); !s) return report_error(s);
  auto witness = rep.step("load: check the witness", [&] { return groth16::witness_of<C>(*w); });
  if (!witness) return report_error(witness.error());
  auto pk = rep.step("load: constraint matrices", [&] { return groth16::proving_key<C>::from_zkey(*zk); });
  if (!pk) return report_error(pk.error().with_context(cmd.zkey));

  const groth16::prover_choice backend = choose_backend(cmd, rep);
  const bool on_gpu = backend.kind == groth16::prover_kind::gpu;
  rep.note("  (" + std::string(C::name) + ", nVars " + std::to_string(zk->n_vars()) + ", nPublic " +
           std::to_string(zk->n_public()) + ", domain 2^" + std::to_string(std::countr_zero(zk->domain_size())) +
           ", backend " + (on_gpu ? "GPU " + backend.reason : std::string("CPU")) + ", " +
           std::to_string(thread_pool::global().size()) + " threads)");
  const std::string what =
      std::string("proving (") + C::name + ", 2^" + std::to_string(std::countr_zero(zk->domain_size())) + ")";
  const std::span<const repr> wit(*witness);

  groth16::phase_timings t;
  result<formats::proof<C>> p = status(errc::internal, "no prover ran");
#if defined(CUZK_HAVE_GPU_PROVER)
  if (on_gpu) {
    auto gk = rep.step("load: key to the GPU", [&] { return groth16::gpu_proving_key<C>::create(pk->view()); });
    if (!gk) return report_error(gk.error().with_context(cmd.zkey));
    p = rep.step(what, [&] { return groth16::prove<C>(pk->view(), wit, &t, groth16::gpu_context<C>{*gk}); });
  }
#endif
  if (!on_gpu) p = rep.step(what, [&] { return groth16::prove<C>(pk->view(), wit, &t); });
  if (!p) return report_error(p.error());
  report_phases(rep, t, on_gpu);

  const auto publics = groth16::public_signals_of<C>(std::span<const repr>(*witness), zk->n_public());
  if (!cmd.no_verify) {
    const auto vk = formats::verification_key_of<C>(*zk);
    const status ok = rep.step("verify", [&] { return groth16::verify<C>(vk, publics, *p); });
    if (!ok) {
      return report_error("the proof made from " + cmd.zkey + " and " + source.name +
                          " does not verify against the key's own verification key (" + ok.message() +
                          "); nothing was written. Either the witness does not satisfy the circuit, or "
                          "the key's points do not match its coefficients (`cuzk info --check` checks the key)");
    }
  }
  const status written = rep.step("write proof.json and public.json", [&]() -> status {
    CUZK_TRY(formats::write_proof_json<C>(out->staging_path(0), *p));
    CUZK_TRY(formats::write_public_json<C>(out->staging_path(1), publics));
    return out->commit();
  });
  if (!written) return report_error(written);
  rep.finish();
  return exit_ok;
}

}  // namespace

int prove_to_files(const prove_settings& settings, const witness_source& source, step_reporter& rep) {
  auto curve = formats::detect_curve(settings.zkey);
  if (!curve) return report_error(curve.error());
  return with_curve(*curve, [&]<class C>() { return prove_on<C>(settings, source, rep); });
}

int prove_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  rep.note("cuzk prove " + zkey + " " + wtns);
  const witness_source source{wtns, {{"the witness input", wtns}}, [&](step_reporter& r) {
                                return r.step("load: map the witness", [&] { return formats::wtns::open(wtns); });
                              }};
  return prove_to_files({zkey, proof, public_json, no_verify, force_cpu}, source, rep);
}

}  // namespace cuzk::apps
