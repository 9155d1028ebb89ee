// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk setup`: a development proving key (.zkey, snarkjs format) and verification key.
//
//   cuzk setup <circuit.r1cs> <out.zkey> [--vk verification_key.json]
//   cuzk setup --synthetic --log-size K [--witness dense|boolean] [--curve bn254|bls12-381]
//              [--seed N] <out.zkey> <out.wtns> [--vk verification_key.json]
//
// NOT A CEREMONY: the toxic waste is drawn from the OS CSPRNG and dropped, but whoever ran the
// command could have kept it and forged proofs. It is for tests, benchmarks and development, where
// snarkjs's powers of tau and phase 2 take minutes to hours; the command says so every time it
// runs. The zkey is in snarkjs's layout, so snarkjs and rapidsnark prove with it, and the
// verification key (vk_alphabeta_12 included) is byte-identical to what `snarkjs zkey export
// verificationkey` writes for it.
//
// The points are made on the GPU where `cuzk prove` would prove on one (a 2^25 key in seconds instead
// of minutes: groth16/gpu/gpu_setup.hpp), on the CPU otherwise or with --cpu; the key is the same.
//
// --synthetic makes a circuit of 2^K - 2 constraints and its witness instead of reading an .r1cs
// (synth/synthetic_circuit.hpp): for benchmarks at sizes circom cannot reach quickly. `dense`
// witnesses are random field elements, `boolean` ones 90% zeros and ones, as hash circuits are.
#pragma once

#include <string>
#include <vector>

#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct setup_command {
  std::vector<std::string> files;  // r1cs zkey, or zkey wtns with --synthetic
  std::string vk;
  bool synthetic = false;
  unsigned log_size = 0;
  std::string witness = "dense";
  std::string curve = "bn254";
  uint64_t seed = 1;
  bool force_cpu = false;  // --cpu: the points on the CPU even where a GPU is present
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
