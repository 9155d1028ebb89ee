// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk info [--check] <file>`: what is in a .zkey, .r1cs, .wtns, or a snarkjs JSON file
// (proof, public signals, verification key): the curve (both spellings, "bn254 (snarkjs: bn128)"),
// the sizes that matter (nVars, nPublic, domain, constraints, non-zero coefficients, witness
// length), and the container's sections with their offsets and sizes.
//
// The kind is read from the file's magic bytes (or, for JSON, its shape), never from its name.
// Opening already checks the structure (sizes that add up, primes, header points). --check
// also checks what opening leaves for later because it is linear in the file: every point of a
// zkey canonical, on the curve and in the prime-order subgroup, every coefficient record in
// range, every witness value below r. Exit 0 when the file is sound, 1 with the first problem
// otherwise.
#pragma once

#include <string>

#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct info_command {
  std::string file;
  bool check = false;
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
