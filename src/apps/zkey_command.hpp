// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>`: the verification key
// of a proving key, byte-identical to what `snarkjs zkey export verificationkey` writes (the same
// subcommand names, so scripts switch by changing the program name). The key's header points are
// checked at open; vk_alphabeta_12 is computed with our pairing (groth16/alphabeta.hpp).
#pragma once

#include <string>

#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct zkey_command {
  std::string zkey, vk;
  CLI::App* sub = nullptr;     // "zkey"
  CLI::App* export_vk = nullptr;  // "zkey export verificationkey"

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
