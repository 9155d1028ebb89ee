// SPDX-License-Identifier: MIT OR Apache-2.0
// circuit.wasm + input.json -> a .wtns in memory, for `cuzk wtns calculate` and `cuzk fullprove`:
// the wasm compiled to native code once (witness/wasm_compiler.hpp, cached), loaded, the input
// read by circom's rules and the witness computed as snarkjs computes it. What the circuit's
// log() calls print goes to stdout, as snarkjs prints it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/progress.hpp"
#include "base/result.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct witness_options {
  std::string cache_dir;  // empty: witness::default_witness_cache_dir()

  // --witness-cache on `sub`.
  void add_to(CLI::App& sub);
};

// The .wtns bytes; messages name the wasm or the input file.
result<std::vector<uint8_t>> witness_from_input(const std::string& wasm, const std::string& input,
                                                const witness_options& opts, step_reporter& rep);

}  // namespace cuzk::apps
