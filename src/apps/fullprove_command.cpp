// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/fullprove_command.hpp"

#include <CLI/CLI.hpp>

#include "apps/prove_command.hpp"
#include "formats/binfile.hpp"

namespace cuzk::apps {

void fullprove_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("fullprove",
                           "witness and Groth16 proof from input.json in one step (as snarkjs groth16 fullprove)");
  sub->add_option("input", input, "the circuit's inputs (input.json)")->required();
  sub->add_option("wasm", wasm, "the circuit's witness code (circuit.wasm, from circom --wasm)")->required();
  sub->add_option("zkey", zkey, "proving key (.zkey, snarkjs format)")->required();
  sub->add_option("proof", proof, "output: proof.json")->required();
  sub->add_option("public", public_json, "output: public.json (the public signals)")->required();
  sub->add_flag("--no-verify", no_verify, "skip checking the proof against the key's verification key before writing it");
  sub->add_flag("--cpu", force_cpu, "prove on the CPU even when a GPU is available");
  witness.add_to(*sub);
}

int fullprove_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  rep.note("cuzk fullprove " + input + " " + wasm + " " + zkey);
  const std::string name = "the witness of " + input;
  const witness_source source{
      name, {{"the input JSON", input}, {"the wasm input", wasm}}, [&](step_reporter& r) -> result<formats::wtns> {
        auto bytes = witness_from_input(wasm, input, witness, r);
        if (!bytes) return bytes.error();
        auto file = formats::binfile::from_bytes(std::move(*bytes), name, "wtns", 2);
        if (!file) return file.error();
        return formats::wtns::from_binfile(std::move(*file));
      }};
  return prove_to_files({zkey, proof, public_json, no_verify, force_cpu}, source, rep);
}

}  // namespace cuzk::apps
