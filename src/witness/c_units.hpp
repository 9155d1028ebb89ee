// SPDX-License-Identifier: MIT OR Apache-2.0
// The C of one circuit's witness code cut into several translation units, so that the C compiler
// builds them on several cores at once (docs/witness.md, 'The first compile').
//
// wasm2c writes one file: 12 MB of C for a circuit of a million constraints, which one compiler
// process parses and optimises alone (10 s of a 2-core machine's first run, the other core idle).
// The file's shape is fixed by wasm2c (1.0.32):
//
//   the prelude       macros and static inline helpers (loads, stores, traps), read by every unit;
//   the module state  `static bool s_module_initialized`, `static u32 func_types[N]` and its init;
//   declarations      `static <type> w2c_<name>(Z_circuit_instance_t*, ...);` for every function;
//   the rest          data and element segments, the functions' definitions, the exports, and
//                     cuzk's own stubs at the end (generated_c.hpp).
//
// A unit past the first is the prelude, `extern u32 func_types[N];`, every declaration, and a run
// of the functions' definitions; the first unit is the whole file less the definitions the others
// took. Functions are called across units, so every declared function loses `static` (the object
// is built with hidden visibility: no name leaves it). A definition moves only where nothing in it
// needs what the first unit alone has: the data or element segments, the stubs' bodies, or a
// function without a declaration.
//
// Where the text is not of that shape, or too small to be worth it, there is one unit: the text
// unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuzk::witness {

// At most `units` translation units of roughly equal size, none much under `min_unit_bytes`; the
// first is the one with the module's state, data and exports. One unit is `c` itself.
std::vector<std::string> split_into_units(const std::string& c, unsigned units, std::size_t min_unit_bytes = 1 << 20);

}  // namespace cuzk::witness
