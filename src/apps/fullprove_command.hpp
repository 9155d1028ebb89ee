// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk fullprove <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>`: the
// witness of an input and its proof in one step, as `snarkjs groth16 fullprove` makes them, with
// the same arguments in the same order and the same output files. The witness is computed as
// `cuzk wtns calculate` computes it (kept in memory, never written), then proved as `cuzk prove`
// proves (the GPU where there is one, --cpu to force the CPU; checked against the key's
// verification key before anything is written, --no-verify skips that).
#pragma once

#include <string>

#include "apps/cli_support.hpp"
#include "apps/witness_from_input.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct fullprove_command {
  std::string input, wasm, zkey, proof, public_json;
  bool no_verify = false;
  bool force_cpu = false;
  witness_options witness;
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
