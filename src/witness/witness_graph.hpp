// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness graph: the arithmetic a circuit's witness code did for one input, as a straight-line
// program over field elements, evaluated with cuzk's own field code for any other input
// (docs/witness.md, 'The witness graph').
//
// circom's witness code spends nearly all its time on what is not arithmetic: copying constants
// element by element, counting loop variables in field elements, bounds checks, calls. What the
// witness needs of a run is the few million additions and multiplications between the inputs and
// the wires. graph_recorder.hpp follows one run of the compiled wasm and keeps just those; this
// program replays them.
//
// The replay is exact only where the other input takes the same path through the witness code.
// So every place where the code looked at a value that depends on the inputs (a branch, an
// assert, an array index, a conversion to an integer) is a guard in the program: the value it
// saw then, which the replay must see again. A guard that does not hold, or inputs of other names
// or sizes than the recorded run's, and the replay answers "not this input": the caller computes
// that witness with the wasm, which gives circom's own result or its error.
//
// Slots hold values in Montgomery form; a slot is reused once its value is dead. The functions
// cuzk has no native code for (division, comparisons, bit operations: rare in circuits, and
// their exact circom semantics live in the wasm) are called on the wasm, through `field_caller`.
//
// The file: a header (magic, format, field, sizes, an XXH3-64 of the rest), the inputs, the
// constants and the instructions. A file that does not pass its checks is refused, never used.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "formats/file_io.hpp"
#include "witness/circom_input.hpp"
#include "witness/field_functions.hpp"

namespace cuzk::witness {

enum class graph_op : uint8_t {
  input,          // s[dst] = inputs[a]
  add,            // s[dst] = s[a] + s[b]
  sub,            // s[dst] = s[a] - s[b]
  mul,            // s[dst] = s[a] * s[b]
  neg,            // s[dst] = -s[a]
  field_call,     // s[dst] = fn(s[a], s[b]) on the wasm (b unused for one operand)
  guard_nonzero,  // s[a] != 0, or not this input
  guard_zero,     // s[a] == 0, or not this input
  guard_equal,    // s[a] == s[b], or not this input
  output,         // wire b = s[a]
};

struct graph_instr {
  graph_op op;
  field_fn fn;  // field_call's function
  uint16_t unused = 0;
  uint32_t dst, a, b;
};

// One input signal of the recorded run: `count` values, the first at index `first` of the
// replay's input values.
struct graph_input {
  uint64_t name_hash;
  uint32_t count;
  uint32_t first;
};

// Computes one of circom's field functions on the wasm: a and b in, the result out, each n32
// little-endian 32-bit words of the canonical value. False where the wasm trapped.
using field_caller = std::function<bool(field_fn fn, std::span<const uint32_t> a, std::span<const uint32_t> b,
                                        std::span<uint32_t> out)>;

struct witness_graph {
  std::vector<uint32_t> prime;  // n32 little-endian words
  uint32_t witness_size = 0;
  uint32_t input_values = 0;
  std::vector<graph_input> inputs;
  std::vector<uint32_t> constants;  // n32 words each, canonical
  uint32_t slots = 0;               // constants occupy slots [0, constants / n32)
  std::vector<graph_instr> program; // a recorded (or copied) graph's instructions
  std::size_t field_calls = 0;      // how many instructions call the wasm
  // A mapped graph's file, whose instructions `mapped` points into (in place of `program`).
  std::shared_ptr<const formats::mapped_file> file;
  std::span<const graph_instr> mapped;

  uint32_t n32() const noexcept { return static_cast<uint32_t>(prime.size()); }
  std::span<const graph_instr> instructions() const noexcept { return file ? mapped : std::span<const graph_instr>(program); }

  // Checks the program's indices, so that no file can make the evaluation read or write outside
  // its slots and wires.
  status check() const;

  status save(const std::string& path) const;
  // not_found where there is no file; format_error (naming the file) for one that fails a check.
  // How its instructions are held: copied into memory (a process that keeps the graph: the file may
  // change under it later), or mapped (a command that uses it once and ends: no copy, nothing to
  // zero; the cache's files are replaced by rename, never written in place).
  enum class holding { copy, map };
  static result<witness_graph> load(const std::string& path, holding how = holding::copy);
};

// The witness of `inputs` by the graph, written to `wires` (n32 words per wire, w[0] = 1): true,
// or false where the inputs are not this graph's (a guard failed, other names or sizes, a field
// call trapped; `wires` is then partly written). `stopped` is read every few thousand
// instructions; nonzero: cancelled, with the error the caller makes. `call` may be empty where the
// program has no field calls.
result<bool> evaluate_graph(const witness_graph& g, std::span<const input_signal> inputs, const field_caller& call,
                            const int* stopped, std::span<uint32_t> wires);

}  // namespace cuzk::witness
