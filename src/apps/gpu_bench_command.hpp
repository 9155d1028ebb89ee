// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench ntt|msm|prove`: the GPU benchmarks (src/apps/bench) on this machine, as tables.
//
// The subcommands exist in every build, so that a script gets the same answer everywhere: the
// arguments are parsed and checked first (apps/bench/bench_options.hpp: curve, sizes, repetitions,
// device ordinal), then a build without CUDA says so and exits 1, and a CUDA build without a
// device (CI) says which device it wanted and how many it sees, and exits 1. The daemon load
// benchmarks (bench_command.hpp) hang under the same `bench` command where the service is built.
#pragma once

#include <string>
#include <vector>

#include "apps/bench/bench_options.hpp"
#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct gpu_bench_command {
  bench::ntt_bench_options ntt_opts;
  bench::msm_bench_options msm_opts;
  bench::prove_bench_options prove_opts;
  // The names as given (checked by CLI11 against the tables in the .cpp); run() maps them into
  // the options above.
  std::string ntt_curve, msm_curve, prove_curve, group = "g1", points = "resident", witness = "dense", key = "real",
                                                 synthesis = "device", stream = "none", twiddles = "tables",
                                                 b2 = "beside", abc = "three";
  std::vector<std::string> accumulations{"auto"}, scalars{"host"};
  CLI::App *ntt = nullptr, *msm = nullptr, *prove = nullptr;

  // Adds ntt, msm and prove under `bench`.
  void add_to(CLI::App& bench);
  bool chosen() const;
  int run(const global_options& g);
};

}  // namespace cuzk::apps
