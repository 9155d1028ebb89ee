// SPDX-License-Identifier: MIT OR Apache-2.0
// One circuit's witness computed again and again in one process, each way of computing it in
// turn (interleaved, so that background load hits every way alike): the wasm's own field
// arithmetic against the native one (docs/witness.md, 'Native field arithmetic'), and N
// calculations at once on N threads against one, as throughput. Prints one line per round and
// the medians. The wasm is compiled into --cache first (not timed).
//
//   witness_calc_bench CIRCUIT.wasm INPUT.json [--rounds R] [--threads N] [--cache DIR]
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
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
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

  const auto one = [&](bool native) {
    witness::calculation_limits limits;
    limits.native_field = native;
    const auto t0 = std::chrono::steady_clock::now();
    auto w = (*gen)->calculate(*inputs, input, limits);
    if (!w) std::fprintf(stderr, "%s\n", w.error().message().c_str()), std::exit(1);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // N calculations at once: the wall time of all of them.
  const auto parallel = [&](unsigned n) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < n; ++t) ts.emplace_back([&] { one(true); });
    for (auto& t : ts) t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::printf("circuit %s, native field: %s, %u threads for the parallel rounds\n", wasm.c_str(),
              (*gen)->native_field() ? "yes" : "no", threads);
  std::vector<double> own, native, par;
  for (int r = 0; r < rounds; ++r) {
    own.push_back(one(false));
    native.push_back(one(true));
    par.push_back(parallel(threads));
    std::printf("round %d: wasm's own arithmetic %.3f s, native %.3f s, %u at once %.3f s\n", r, own.back(),
                native.back(), threads, par.back());
    std::fflush(stdout);
  }
  const double n = median(native), p = median(par);
  std::printf("median: wasm's own %.3f s, native %.3f s (%.2fx); %u at once %.3f s: throughput %.2fx one's\n",
              median(own), n, median(own) / n, threads, p, threads * n / p);
}
