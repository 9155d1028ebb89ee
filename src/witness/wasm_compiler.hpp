// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's witness .wasm made into native code once, and kept: wabt's wasm2c translates the wasm
// to C, the system's C compiler builds that C, wabt's runtime and circom_wasm_glue.c into a shared
// object, and the object is kept in a cache folder under the SHA-256 of everything that went into
// it (the wasm's bytes, the glue's text, the compiler flags), so a circuit pays the compilation
// once per machine (docs/witness.md has the costs and the comparison with Node).
//
// Why wasm2c and not an interpreter or an embedded JavaScript engine: the generated C runs the
// witness code at native speed with the wasm's semantics (bounds-checked memory, traps), and the
// process gains no JIT or engine: only dlopen of an object this code built.
//
// The cache is safe to share between processes: an object is built in a private temporary folder
// inside the cache and renamed into place, so a reader sees a whole object or none, and two
// processes compiling the same wasm at once both succeed (the second rename replaces the first
// with the same bytes).
//
// Tools: `wasm2c` from PATH (Debian's wabt), the C compiler named by $CC or `cc`; wabt's runtime
// sources from the folder this build was configured with (CUZK_WASM2C_RUNTIME_DIR).
//
// Thread safety: compile_witness_generator may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"

namespace cuzk::witness {

// $CUZK_WITNESS_CACHE; else $XDG_CACHE_HOME/cuzk/witness; else $HOME/.cache/cuzk/witness; else a
// folder under the system's temporary directory.
std::string default_witness_cache_dir();

struct compiled_generator {
  std::string library;    // the shared object's path
  bool cached = false;    // found in the cache, not compiled now
  double compile_s = 0;   // wall time of wasm2c and the C compiler, when compiled now
  std::size_t units = 0;  // how many parts of the C were compiled at once, when compiled now
};

// How the C is compiled: cut into `units` translation units compiled at once (c_units.hpp; 0: as
// many as the cores this process may use, at most 8), none under `min_unit_bytes` of C.
struct compile_options {
  unsigned units = 0;
  std::size_t min_unit_bytes = std::size_t{1} << 20;
};

// `wasm` is the witness code's bytes, `source` its name for messages. invalid_argument naming
// `source` for a file that is not circom's witness code (check_circom_wasm_interface, before any
// work) or that wasm2c refuses (with its output); unavailable (naming the missing tool and the
// package that has it) where wasm2c or a C compiler is missing; internal with the compiler's own
// output when it fails.
result<compiled_generator> compile_witness_generator(std::span<const uint8_t> wasm, const std::string& source,
                                                     const std::string& cache_dir, const compile_options& options = {});

}  // namespace cuzk::witness
