// The `cuzk` command: one binary, one subcommand per task. Each subcommand's options live beside
// its implementation; this file only wires them to CLI11 and turns anything thrown by the
// standard library into a clear message and a non-zero exit, so no input crashes the process.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "apps/selfcheck.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuzk: a Groth16 prover for BN254 and BLS12-381 (circom/snarkjs compatible)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cuzk 0.1.0");

  cuzk::apps::selfcheck_options selfcheck;
  bool no_gpu = false;
  auto* sc = app.add_subcommand("selfcheck", "check this build's arithmetic and pairing on both curves, with timings");
  sc->add_flag("--no-gpu", no_gpu, "skip the GPU check even when a device is present");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*sc) {
      selfcheck.gpu = !no_gpu;
      return cuzk::apps::run_selfcheck(selfcheck);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
    return 1;
  }
  return 1;
}
