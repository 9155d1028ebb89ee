// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk wtns calculate <circuit.wasm> <input.json> <witness.wtns>`: the witness of an input, as
// `snarkjs wtns calculate` makes it, with the same arguments and a byte-identical .wtns, for
// circom 2 circuits on BN254 and BLS12-381 (the prime is the wasm's own). The wasm runs as native
// code compiled once per circuit and cached (witness_from_input.hpp, docs/witness.md).
//
// Exit 0 with the file written (atomically); otherwise circom's message for a failure inside the
// circuit (a failed assert: its template and line), or one naming the input file and the signal,
// exit 1, and nothing written.
#pragma once

#include <string>

#include "apps/cli_support.hpp"
#include "apps/witness_from_input.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct wtns_command {
  std::string wasm, input, wtns;
  witness_options witness;
  CLI::App* calculate = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
