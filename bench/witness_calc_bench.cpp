// SPDX-License-Identifier: MIT OR Apache-2.0
// One circuit's witness computed again and again in one process, each way of computing it in
// turn (interleaved, so that background load hits every way alike): the wasm with its own field
// arithmetic, the wasm with the native one (docs/witness.md, 'Native field arithmetic'), the
// witness graph (docs/witness.md, 'The witness graph'), and N graph calculations at once on N
// threads against one, as throughput. Prints the recording's time, one line per round and the
// medians. The wasm is compiled into --cache first (not timed). With --graph-only, the rounds are
// the graph alone and N graphs at once: the wasm's runs free and fault in tens of MiB each, which
// the neighbouring graph rounds pay for.
//
//   witness_calc_bench CIRCUIT.wasm INPUT.json [--rounds R] [--threads N] [--cache DIR] [--graph-only]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "formats/file_io.hpp"
#include "witness/circom_input.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

using namespace cuzk;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CIRCUIT.wasm INPUT.json [--rounds R] [--threads N] [--cache DIR]\n", argv[0]);
    return 2;
  }
  const std::string wasm = argv[1], input = argv[2];
  int rounds = 5;
  unsigned threads = 2;
  std::string cache = witness::default_witness_cache_dir();
  bool graph_only = false;
  for (int i = 3; i < argc; ++i)
    if (std::string(argv[i]) == "--graph-only") graph_only = true;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--graph-only") {
      --i;
      continue;
    }
    if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
    else if (a == "--threads") threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (a == "--cache") cache = argv[i + 1];
  }
  std::ifstream f(wasm, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), {}};
  auto lib = witness::compile_witness_generator(bytes, wasm, cache);
  if (!lib) return std::fprintf(stderr, "%s\n", lib.error().message().c_str()), 1;
  auto gen = witness::witness_generator::load(lib->library, wasm);
  if (!gen) return std::fprintf(stderr, "%s\n", gen.error().message().c_str()), 1;
  auto text = formats::read_text_file(input);
  if (!text) return std::fprintf(stderr, "%s\n", text.error().message().c_str()), 1;
  auto inputs = witness::parse_circom_input(*text, input, (*gen)->prime());
  if (!inputs) return std::fprintf(stderr, "%s\n", inputs.error().message().c_str()), 1;

  enum class way { wasm_own, wasm_native, graph };
  const auto one = [&](way how) {
    witness::calculation_limits limits;
    limits.native_field = how != way::wasm_own;
    limits.graph = how == way::graph;
    const auto t0 = std::chrono::steady_clock::now();
    auto w = (*gen)->calculate(*inputs, input, limits);
    if (!w) std::fprintf(stderr, "%s\n", w.error().message().c_str()), std::exit(1);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // N calculations at once: the wall time of all of them.
  const auto parallel = [&](unsigned n) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < n; ++t) ts.emplace_back([&] { one(way::graph); });
    for (auto& t : ts) t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::printf("circuit %s, native field: %s, %u threads for the parallel rounds\n", wasm.c_str(),
              (*gen)->native_field() ? "yes" : "no", threads);
  const bool had_graph = (*gen)->graph() == witness::graph_state::ready;
  const double first = one(way::graph);
  const char* state = (*gen)->graph() == witness::graph_state::ready ? "ready" : "refused";
  std::printf("first calculation %.3f s (%s); witness graph: %s%s%s\n", first,
              had_graph ? "the graph was in the cache" : "recording the graph", state,
              (*gen)->graph_reason().empty() ? "" : ": ", (*gen)->graph_reason().c_str());
  if (graph_only) {
    std::vector<double> graph, par;
    for (int r = 0; r < rounds; ++r) {
      graph.push_back(one(way::graph));
      par.push_back(parallel(threads));
    }
    const double g = median(graph), p = median(par);
    std::printf("median of %d rounds: graph %.3f s; %u at once %.3f s: throughput %.2fx one's\n", rounds, g, threads, p,
                threads * g / p);
    return 0;
  }
  std::vector<double> own, native, graph, par;
  for (int r = 0; r < rounds; ++r) {
    own.push_back(one(way::wasm_own));
    native.push_back(one(way::wasm_native));
    graph.push_back(one(way::graph));
    par.push_back(parallel(threads));
    std::printf("round %d: wasm, own arithmetic %.3f s; wasm, native %.3f s; graph %.3f s; %u graphs at once %.3f s\n", r,
                own.back(), native.back(), graph.back(), threads, par.back());
    std::fflush(stdout);
  }
  const double n = median(native), g = median(graph), p = median(par);
  std::printf("median: wasm, own %.3f s; wasm, native %.3f s (%.2fx); graph %.3f s (%.2fx the native wasm); %u at once %.3f s: "
              "throughput %.2fx one's\n",
              median(own), n, median(own) / n, g, n / g, threads, p, threads * g / p);
}
