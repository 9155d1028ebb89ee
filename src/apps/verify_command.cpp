// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/verify_command.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "apps/progress.hpp"
#include "formats/curve_id.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::apps {

void verify_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("verify", "check a Groth16 proof (like snarkjs groth16 verify): prints OK! or Invalid proof");
  sub->add_option("vk", vk, "verification_key.json (snarkjs format)")->required();
  sub->add_option("public", public_json, "public.json: the public signals")->required();
  sub->add_option("proof", proof, "proof.json")->required();
}

namespace {

template <class C>
int verify_on(const verify_command& cmd, step_reporter& rep) {
  auto vk = rep.step("load: verification key", [&] { return formats::read_verification_key_json<C>(cmd.vk); });
  if (!vk) return report_error(vk.error());
  auto pub = rep.step("load: public signals", [&] { return formats::read_public_json<C>(cmd.public_json); });
  if (!pub) return report_error(pub.error());
  auto pf = rep.step("load: proof", [&] { return formats::read_proof_json<C>(cmd.proof); });
  if (!pf) return report_error(pf.error());
  if (pub->size() != vk->n_public()) {
    return report_error(cmd.public_json + ": " + std::to_string(pub->size()) + " public signals, but " + cmd.vk +
                        " expects nPublic = " + std::to_string(vk->n_public()));
  }
  const status ok = rep.step("verify (pairing check)", [&] { return groth16::verify<C>(*vk, *pub, *pf); });
  rep.finish();
  if (ok) {
    std::printf("OK!\n");
    return exit_ok;
  }
  // Everything but the pairing equation was checked while reading; what is left is a proof that
  // does not verify, reported as snarkjs does.
  if (rep.verbose()) std::fprintf(stderr, "cuzk: %s\n", ok.message().c_str());
  std::printf("Invalid proof\n");
  return exit_failure;
}

}  // namespace

int verify_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  rep.note("cuzk verify " + vk + " " + public_json + " " + proof);
  auto curve = formats::detect_json_curve(vk);
  if (!curve) return report_error(curve.error());
  // snarkjs writes the curve into proof.json too. A proof of the other curve would otherwise fail
  // as a coordinate out of the key's field's range, which does not say what is wrong. A proof.json
  // without the field is read as the key's curve.
  if (auto pc = formats::detect_json_curve(proof); pc && *pc != *curve)
    return report_error(proof + ": curve: expected " + formats::snarkjs_curve_name(*curve) + " (the curve of " + vk +
                        "), found " + formats::snarkjs_curve_name(*pc) + ": the proof and the verification key are "
                        "for different curves");
  return with_curve(*curve, [&]<class C>() { return verify_on<C>(*this, rep); });
}

}  // namespace cuzk::apps
