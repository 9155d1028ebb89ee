// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk verify <verification_key.json> <public.json> <proof.json>`, like `snarkjs groth16 verify`
// (same arguments, same order): prints "OK!" and exits 0 for a valid proof, prints
// "Invalid proof" and exits 1 for a well-formed proof that fails the pairing equation. A file that
// cannot be read, is not valid JSON, names the other curve, holds a coordinate >= q, a point off
// the curve or outside the prime-order subgroup, a public value >= r, or the wrong number of public
// signals is an error: "cuzk: error: <file>: <field>: ..." and exit 1.
//
// The curve comes from the key's "curve" field; the proof's, when present, must agree (rapidsnark
// leaves it out, which is accepted).
#pragma once

#include <string>

#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct verify_command {
  std::string vk, public_json, proof;
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
