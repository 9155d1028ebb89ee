// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/witness_from_input.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/file_io.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/circom_input.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::apps {

namespace {

// An input.json larger than this is refused before it is read: circom inputs are field elements
// as text, ~80 bytes each, so this is about 12 million values.
constexpr uint64_t max_input_bytes = uint64_t{1} << 30;

}  // namespace

void witness_options::add_to(CLI::App& sub) {
  sub.add_option("--witness-cache", cache_dir,
                 "folder of compiled witness code, one shared object per .wasm (default: $CUZK_WITNESS_CACHE, "
                 "$XDG_CACHE_HOME/cuzk/witness or ~/.cache/cuzk/witness)");
}

namespace {

// Whether `path` begins with wasm's magic, "\0asm". An unreadable file is not: its reader names it.
bool starts_as_wasm(const std::string& path) {
  char head[4] = {};
  std::ifstream f(path, std::ios::binary);
  return f.read(head, sizeof head) && std::memcmp(head, "\0asm", 4) == 0;
}

constexpr const char* argument_order =
    "(cuzk wtns calculate <circuit.wasm> <input.json> <out.wtns>; cuzk fullprove <input.json> <circuit.wasm> "
    "<circuit.zkey> <proof.json> <public.json>)";

}  // namespace

result<std::vector<uint8_t>> witness_from_input(const std::string& wasm, const std::string& input,
                                                const witness_options& opts, step_reporter& rep) {
  // The two are easily swapped, and wabt would then say only "bad magic value" about the JSON.
  if (starts_as_wasm(input))
    return status(errc::invalid_argument, input + ": expected the circuit's input JSON, found a wasm file (circom's "
                                                  "witness code) " + argument_order);
  if (!starts_as_wasm(wasm) && std::filesystem::is_regular_file(wasm))
    return status(errc::invalid_argument, wasm + ": expected the circuit's witness code (circuit.wasm from circom "
                                                 "--wasm, which starts with \"\\0asm\"), found another file " +
                                              argument_order);
  const std::string cache = opts.cache_dir.empty() ? witness::default_witness_cache_dir() : opts.cache_dir;
  auto code = formats::mapped_file::open(wasm);
  if (!code) return code.error();
  auto lib = rep.step("witness: compile the wasm (once per circuit, then cached)",
                      [&] { return witness::compile_witness_generator(code->bytes(), wasm, cache); });
  if (!lib) return lib.error();
  rep.note(lib->cached ? "  compiled witness code from the cache: " + lib->library
                       : "  compiled " + wasm + " to " + lib->library);
  // One calculation and the process ends: a graph in the cache is mapped, not copied.
  auto gen = rep.step("witness: load", [&] {
    return witness::witness_generator::load(lib->library, wasm, witness::witness_graph::holding::map);
  });
  if (!gen) return gen.error();
  auto text = formats::read_text_file(input, max_input_bytes, "a circuit's input JSON");
  if (!text) return text.error();
  auto inputs = rep.step("witness: read the input", [&] { return witness::parse_circom_input(*text, input, (*gen)->prime()); });
  if (!inputs) return inputs.error();
  auto w = rep.step("witness: calculate", [&] { return (*gen)->calculate(*inputs, input); });
  if (!w) return w.error();
  if (!w->log.empty()) std::fputs(w->log.c_str(), stdout);
  return std::move(w->wtns);
}

}  // namespace cuzk::apps
