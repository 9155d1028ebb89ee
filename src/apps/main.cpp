// SPDX-License-Identifier: MIT OR Apache-2.0
// The `cuzk` command: one binary, one subcommand per task. Each subcommand's options and work live
// in its own file (<name>_command.cpp); this file wires them to CLI11, applies the global options
// (--threads sizes the shared thread pool before anything uses it), and turns anything thrown by
// the standard library (std::bad_alloc on a huge key, say) into a clear message and exit 1, so no
// input crashes the process.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apps/cli_support.hpp"
#include "apps/fullprove_command.hpp"
#include "apps/gpu_bench_command.hpp"
#include "apps/info_command.hpp"
#include "apps/prove_command.hpp"
#include "apps/selfcheck.hpp"
#include "apps/setup_command.hpp"
#include "apps/verify_command.hpp"
#include "apps/wtns_command.hpp"
#include "apps/zkey_command.hpp"
#include "base/thread_pool.hpp"
#include "base/version.hpp"
#ifdef CUZK_HAVE_SERVICE
#include "apps/bench_command.hpp"
#include "apps/client_commands.hpp"
#include "apps/daemon_command.hpp"
#endif

namespace {

// Edits (insertions, deletions, substitutions) from a to b: how close a misspelt subcommand is.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// CLI11 reports a word that names no subcommand as "A subcommand is required" (the word itself is
// taken for an extra argument): the first word that is not a global option or its value, when it
// is no subcommand, is named instead, with the closest subcommand where one is near.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view w = argv[i];
    if (w == "--threads") {
      ++i;  // its value
      continue;
    }
    if (w.starts_with("-")) continue;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == w) return std::nullopt;  // a subcommand: CLI11's message stands
      const std::size_t d = edit_distance(w, sub->get_name());
      if (d < best_d) best_d = d, best = sub->get_name();
    }
    std::string msg = "unknown subcommand \"" + std::string(w) + "\"";
    // Near: within a third of the word's length (2 edits at least), so "provee" finds prove and a
    // word unlike every subcommand finds none.
    if (!best.empty() && best_d <= std::max<std::size_t>(2, w.size() / 3)) msg += "; did you mean \"" + best + "\"?";
    return msg;
  }
  return std::nullopt;
}

int run(int argc, char** argv) {
  using namespace cuzk::apps;
  CLI::App app{"cuzk: a Groth16 prover for BN254 and BLS12-381, compatible with circom and snarkjs files"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.set_version_flag("--version", cuzk::version_line());

  global_options g;
  // 0 is all cores, as `threads = 0` is in the daemon's config.
  auto* threads = app.add_option("--threads", g.threads,
                                 "worker threads, including the caller; 0: all cores (default: CUZK_THREADS or all "
                                 "cores)")
                      ->check(CLI::Range(0u, 4096u));
  app.add_flag("--verbose,-v", g.verbose, "print each phase's wall time on stderr");

  prove_command prove;
  verify_command verify;
  setup_command setup;
  info_command info;
  zkey_command zkey;
  wtns_command wtns;
  fullprove_command fullprove;
  prove.add_to(app);
  verify.add_to(app);
  setup.add_to(app);
  info.add_to(app);
  zkey.add_to(app);
  wtns.add_to(app);
  fullprove.add_to(app);
  selfcheck_options selfcheck;
  bool no_gpu = false;
  auto* sc = app.add_subcommand("selfcheck",
                                "check this build's arithmetic and pairing on both curves, with timings");
  sc->add_flag("--no-gpu", no_gpu, "skip the GPU check even when a device is present");
  // One `bench` command: the GPU benchmarks in every build (they say so where CUDA is missing),
  // and the daemon load benchmarks where the service is built.
  auto* bench = app.add_subcommand("bench", "benchmarks: GPU NTT, MSM and proof on this machine (ntt, msm, prove)"
#ifdef CUZK_HAVE_SERVICE
                                            "; a running daemon under load (single, batch, stress) and the cost of "
                                            "sending it a witness (upload)"
#endif
  );
  bench->require_subcommand(1);
  gpu_bench_command gpu_bench;
  gpu_bench.add_to(*bench);
#ifdef CUZK_HAVE_SERVICE
  daemon_command daemon;
  client_commands client;
  bench_command daemon_bench;
  daemon.add_to(app);
  client.add_to(app);
  daemon_bench.add_to(*bench);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help, or the version) and has its own code for each kind of
    // usage error (105 for a value its check refuses, 106 for a missing one, 109 for an extra
    // argument, ...): every usage error exits 2 (cli_support.hpp), --help and --version 0.
    if (auto unknown = unknown_subcommand(app, argc, argv)) {
      std::fprintf(stderr, "cuzk: error: %s\nRun with --help for more information.\n", unknown->c_str());
      return exit_usage;
    }
    return app.exit(e) == 0 ? exit_ok : exit_usage;
  }

  // Given as 0, the pool takes every core even where CUZK_THREADS says otherwise.
  if ((g.threads != 0 || threads->count() > 0) && !cuzk::thread_pool::set_global_threads(g.threads))
    return report_error("--threads: the thread pool was already started");

  if (*prove.sub) return prove.run(g);
  if (*verify.sub) return verify.run(g);
  if (*setup.sub) return setup.run(g);
  if (*info.sub) return info.run(g);
  if (*zkey.export_vk) return zkey.run(g);
  if (*wtns.calculate) return wtns.run(g);
  if (*fullprove.sub) return fullprove.run(g);
#ifdef CUZK_HAVE_SERVICE
  if (*daemon.sub) return daemon.run(g);
  if (client.chosen()) return client.run(g);
  if (daemon_bench.chosen()) return daemon_bench.run(g);
#endif
  if (gpu_bench.chosen()) return gpu_bench.run(g);
  if (*sc) {
    selfcheck.gpu = !no_gpu;
    return run_selfcheck(selfcheck);
  }
  return report_error("no subcommand (see cuzk --help)");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "cuzk: error: out of memory (the key or witness is larger than the memory available)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: error: %s\n", e.what());
  }
  return 1;
}
