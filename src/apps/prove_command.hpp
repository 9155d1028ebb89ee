// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>`: a Groth16 proof, as
// rapidsnark's `prover` and `snarkjs groth16 prove` make it, with the same arguments in the same
// order and the same output files (byte-compatible with snarkjs's layout), for BN254 and
// BLS12-381 (the curve is read from the key).
//
// Steps: map the key and the witness and check that they belong together (curve, nVars); build
// the constraint matrices from the key's coefficients; prove (r, s from the OS CSPRNG) on the GPU
// when this build has the GPU prover and a CUDA device answers, else on the CPU (--cpu forces
// the CPU; both give the same proof for the same r, s); verify the
// proof against the key's own verification key, so a wrong proof is never written (a pairing
// check, milliseconds next to the proof; --no-verify skips it); write proof.json, then
// public.json, each atomically. Exit 0 on success; otherwise a message naming the file and field,
// exit 1, and no output file is left half-written.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "apps/cli_support.hpp"
#include "apps/progress.hpp"
#include "formats/output_files.hpp"
#include "formats/wtns.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

// What a proof is made with, and where it goes.
struct prove_settings {
  std::string zkey, proof, public_json;
  bool no_verify = false;
  bool force_cpu = false;
};

// Where a proof's witness comes from: a .wtns file (`prove`), or input JSON run through the
// circuit's witness code (`fullprove`).
struct witness_source {
  std::string name;                         // in messages: the .wtns, or the input JSON
  std::vector<formats::named_path> inputs;  // the files it is read from: no output may replace them
  std::function<result<formats::wtns>(step_reporter&)> open;
};

// The steps above, with the witness from `source`; the command's exit status.
int prove_to_files(const prove_settings& settings, const witness_source& source, step_reporter& rep);

struct prove_command {
  std::string zkey, wtns, proof, public_json;
  bool no_verify = false;
  bool force_cpu = false;
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
