// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench single|batch|stress|upload`: load a running daemon with proofs and report what it
// sustains; upload times sending a witness's bytes alone (upload_bench.hpp).
// (The same `bench` command holds the GPU benchmarks, gpu_bench_command.hpp.)
//
// single: one proof at a time (Prove), so latency is the daemon's unloaded round trip.
// batch:  all --count jobs submitted at once from --concurrency client threads, then awaited, so the
//         scheduler sees a full queue (priorities, batching); latency is the daemon's own
//         submit-to-finish time for each job.
// stress: --concurrency threads each proving back to back for --duration seconds; latency is the
//         client's round trip.
// Job i gets witness i mod (number of files) and a priority from --priority-mix (weights, spread
// evenly). Every proof is checked with the Groth16 verifier against the verification key of the
// circuit's zkey (--zkey, default the daemon's path from ListCircuits) unless --no-verify. The
// report is throughput (proofs/s) and latency p50/p90/p99/max per priority; failures (RPC errors,
// jobs that did not finish DONE, proofs that do not verify) are counted and make the exit status 1.
// --witness-by-path sends each witness's path instead of its bytes (a daemon on this machine reads
// it: no upload, no spooling). stress --warmup S leaves the first S seconds out of a second
// throughput line and of the daemon's GPU-busy lines, which then cover the steady state only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/cli_support.hpp"
#include "service/client_credentials.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct bench_command {
  std::string socket, addr, circuit, zkey, priority_mix = "NORMAL:1";
  service::client_credentials creds;  // --tls-ca, --tls-cert, --tls-key, --token-file
  std::vector<std::string> witnesses;
  uint64_t count = 20, concurrency = 1;
  double duration_s = 10;
  double warmup_s = 0;
  bool no_verify = false;
  bool by_path = false;
  bool input_json = false;  // the files are input JSON: the daemon computes each witness
  CLI::App *single = nullptr, *batch = nullptr, *stress = nullptr, *upload = nullptr;

  // Adds single, batch, stress and upload (upload_bench.hpp) under `bench`.
  void add_to(CLI::App& bench);
  bool chosen() const;
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
