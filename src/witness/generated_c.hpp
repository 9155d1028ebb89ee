// SPDX-License-Identifier: MIT OR Apache-2.0
// What cuzk changes in the C that wasm2c makes of a circuit's .wasm, and in wabt's runtime, before
// the C compiler sees them (wasm_compiler.cpp runs both):
//
// - native_stubs: circom's Fr_add, Fr_sub, Fr_mul, Fr_neg and Fr_toLongNormal call cuzk's field
//   code (native_field.hpp) and Fr_copy is a bounds-checked memmove, where the calculation was given a
//   native field; otherwise they run the wasm's own code, kept under the name `<name>_wasm`. The
//   stubs and Fr_isTrue, which every loop and branch of circom's code calls, first look at the
//   calculation's stop flag. Two exported test hooks reach the wasm's own functions, so that a
//   test can hold the native arithmetic against them.
// - traced: every field function of field_functions.hpp gets a stub, and wasm2c's loads, stores
//   and bulk memory functions a hook, so that a calculation can be followed by a trace
//   (graph_recorder.hpp); `cuzk_witness_traceable` says whether the circuit's code calls a field
//   function with a result that has no stub (then it is never traced). The exported
//   `cuzk_witness_field_call` runs one field function by its code, for the witness graph's replay.
// - data_blob: the wasm's data segments (5 MB for a circuit of a million constraints, as 30 MB of
//   C array text) go into one binary file that the assembler includes with .incbin, so the C
//   compiler no longer parses them: that text was most of a first compile's time.
// - memory_pages: the exported `cuzk_witness_memory_pages` says the linear memory's pages as the
//   module declares them (initial and maximum), so that a generator knows how much memory an
//   instance takes before it makes one (calculation_memory.hpp).
// - thread_local_runtime: wabt's runtime keeps its trap target, call depth and exception in
//   globals; a copy of its sources with those per thread lets calculations run on several threads.
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::witness {

// Rewrites `c` (wasm2c's circuit.c) as above; writes the data blob to `dir`/data.bin.
result<std::string> rewrite_generated_c(const std::string& c, const std::string& dir);

// Writes wasm-rt.h, wasm-rt-impl.h and wasm-rt-impl.c into `dir`, from `runtime_dir` (wabt's
// wasm2c runtime) and `header_dir` (where wasm-rt.h is), with the runtime's state per thread.
// An error where this wabt's runtime is not laid out as the version cuzk knows (1.0.32).
status write_thread_local_runtime(const std::string& runtime_dir, const std::string& header_dir, const std::string& dir);

}  // namespace cuzk::witness
