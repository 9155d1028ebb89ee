// SPDX-License-Identifier: MIT OR Apache-2.0
// Whether a .wasm is circom's witness calculator, read from the module's own declarations before
// anything is translated or compiled.
//
// Why: the compiled object is wasm2c's C of the module plus circom_wasm_glue.c, which calls the
// module's exports by name and provides its imports. Any other WebAssembly module translates
// fine and then fails in the C compiler with errors about cuzk's glue, which say nothing to
// whoever gave the file (and take seconds). So the module's sections are read first: its imports
// must be among the four functions circom's witness code imports from "runtime", and it must
// export its memory as "memory" and every function the glue calls, each with circom's signature.
// That is the interface of circom 2's witness_calculator.js: getVersion, getMinorVersion,
// getPatchVersion (the version), getFieldNumLen32 and getRawPrime (the field), getWitnessSize and
// getInputSize (the sizes), init, getInputSignalSize and setInputSignal (the inputs), getWitness
// (the wires), readSharedRWMemory, writeSharedRWMemory and getSharedRWMemoryStart (the values
// passed between the two sides) and getMessageChar (circom's error and log text).
//
// Only the sections that declare this are parsed (types, imports, functions, exports); the code
// itself is validated by wasm2c, whose refusal is also the file's fault (wasm_compiler.cpp).
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"

namespace cuzk::witness {

// ok, or invalid_argument naming `source`: "<source>: not a WebAssembly module (...)",
// "<source>: not valid WebAssembly: ... at byte N", or "<source>: not a circom witness calculator:
// it exports no getWitnessSize" (the first export of the list above that is missing), "... its
// export getWitness takes (i32, i32) ...", "... it imports env.f ...".
status check_circom_wasm_interface(std::span<const uint8_t> wasm, const std::string& source);

}  // namespace cuzk::witness
