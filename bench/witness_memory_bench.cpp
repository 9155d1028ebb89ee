// SPDX-License-Identifier: MIT OR Apache-2.0
// A circuit's witness calculations, one of each kind, each measured as the growth of the process's
// peak resident memory over it (reset through /proc/self/clear_refs, free heap memory returned to
// the system first) against the bound calculation_memory.hpp gives before it starts: the wasm
// alone, the first calculation (recording the witness graph in line, or beside it with --beside,
// measured to the recording's end), and a replay. The wasm is compiled into --cache first; give
// an empty cache so that the first calculation records. One line per case:
//
//   case=wasm kind=wasm growth_bytes=102400000 bound_bytes=123201407 values_bytes=0
//
//   witness_memory_bench CIRCUIT.wasm INPUT.json --cache DIR [--beside]
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "formats/file_io.hpp"
#include "witness/circom_input.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

using namespace cuzk;

namespace {

uint64_t status_bytes(const std::string& key) {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size())) * 1024;
  return 0;
}

const char* kind_name(witness::calculation_kind k) {
  switch (k) {
    case witness::calculation_kind::wasm: return "wasm";
    case witness::calculation_kind::replay: return "replay";
    case witness::calculation_kind::record_in_line: return "record_in_line";
    case witness::calculation_kind::record_beside: return "record_beside";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5 || std::string(argv[3]) != "--cache") {
    std::fprintf(stderr, "usage: %s CIRCUIT.wasm INPUT.json --cache DIR [--beside]\n", argv[0]);
    return 2;
  }
  const std::string wasm = argv[1], input = argv[2], cache = argv[4];
  const bool beside = argc > 5 && std::string(argv[5]) == "--beside";
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

  const auto measure = [&](const char* name, witness::calculation_limits limits) {
    if (beside) limits.graph_recording = witness::calculation_limits::recording::beside;
    const witness::calculation_memory bound = (*gen)->memory_needed(text->size(), limits);
    limits.within = bound;
    auto values = std::make_shared<std::atomic<uint64_t>>(0);
    limits.recording_memory = [values](uint64_t n) {
      *values += n;
      return true;
    };
    ::malloc_trim(0);
    {
      std::ofstream clear("/proc/self/clear_refs");
      clear << "5";
    }
    const uint64_t base = status_bytes("VmRSS:");
    auto w = (*gen)->calculate(*inputs, input, limits);
    if (!w) std::fprintf(stderr, "%s\n", w.error().message().c_str()), std::exit(1);
    while ((*gen)->graph() == witness::graph_state::recording) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const uint64_t growth = status_bytes("VmHWM:") - base;
    std::printf("case=%s kind=%s growth_bytes=%llu bound_bytes=%llu values_bytes=%llu\n", name, kind_name(bound.kind),
                static_cast<unsigned long long>(growth), static_cast<unsigned long long>(bound.total()),
                static_cast<unsigned long long>(values->load()));
    std::fflush(stdout);
  };
  witness::calculation_limits wasm_only;
  wasm_only.graph = false;
  measure("wasm", wasm_only);
  measure("first", {});
  measure("again", {});
}
