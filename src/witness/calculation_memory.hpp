// SPDX-License-Identifier: MIT OR Apache-2.0
// The host memory one witness calculation holds while it runs, known before it starts: an upper
// bound, so that the daemon can reserve it in its host budget first and hold no more than the
// operator allowed however many calculations run at once (docs/witness.md, 'A calculation's memory
// in the host budget'). witness_generator::memory_needed() fills in what the generator knows of its circuit
// without running it: the field, the wires, the linear memory's pages as the module declares them,
// and its witness graph's sizes; the caller gives the input JSON's size.
//
// The parts, each an upper bound:
//   the .wtns      the witness, written in place: its header and wires x n32 words.
//   the input      the JSON text, and its tree and flattened values while it is parsed: measured
//                  at most 49 bytes per byte of text (a million one-digit values; a value takes two
//                  bytes of text at least), counted as input_bytes_per_text_byte.
//   an instance    the wasm's linear memory: the pages the module declares, stack_growth_pages for
//                  circom's stack beyond them and one page for the replay's scratch. Growth past
//                  that is charged as it happens (circom_wasm_glue.c, cuzk_witness_memory_growth;
//                  calculation_limits::memory_growth); where the budget has no room, the grow fails
//                  with circom's own "Not enough memory.". Without a budget it is never capped.
//                  Its resident pages are at most its size.
//   a replay       its slots and input values, 32 bytes each, and an instance where the graph calls
//                  field functions on the wasm. A replay that does not fit the input falls back to
//                  the wasm after freeing its own, so a calculation that starts as a replay counts
//                  the larger of the two: whether an input fits is known only at the replay's end.
//   a recording    the recorder's marks over the linear memory (element_marks.hpp: a byte per 4
//                  bytes of it and a 4-byte node slot per 32, 3/8 of it), the marks a copy saves (a
//                  state byte per 4 bytes copied and 8 bytes per element, under 1/2 of the memory
//                  copied), wire_bytes per wire, and, beside a
//                  calculation (calculation_limits::recording::beside), its own instance, .wtns
//                  and copy of the inputs. The trace's values (its nodes and constants) are known
//                  only as it runs: the recorder asks for them as they grow, recording_chunk_bytes
//                  at a time, node_bytes per node and constant_bytes per constant
//                  (calculation_limits::recording_memory); `recording` below is the rest.
//                  The recording's witness is its graph's replay (circom_wasm.cpp), made once the
//                  instance, the marks and the nodes are freed: its slots and input values (each a
//                  node, 32 bytes) and the graph (16 bytes a node) fit in what the nodes asked
//                  for, and the instance it may make for field calls in the one freed.
// Not counted: the compiled code and the graph a generator keeps (the circuit's, held once for all
// of its calculations), the lines a circuit's log() prints, and thread stacks.
//
// Measured (bench/witness_memory_bench.cpp; docs/witness.md, 'A calculation's memory in the host
// budget') on the 1M-constraint benchmark circuit, 1,034,003 wires and 1102 declared pages: the
// wasm's calculation peaked at 105 MB over the process's resident memory before it (bound 123 MB),
// a replay at 34 MB (123 MB), the first calculation recording in line at 204 MB (367 MB and 117 MB
// its 2,030,003 nodes asked for), recording beside at 238 MB (491 MB and the same 117 MB).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

namespace cuzk::witness {

inline constexpr uint64_t wasm_page_bytes = 65536;

// circom's stack beyond the memory its module declares: reserveStackFr grows the memory where a
// function's frame does not fit. wasm2c traps at a call depth of 10,000 (wasm_compiler.cpp), so 16
// MiB holds that depth of frames of 1.6 KiB, forty field elements each; the pages of larger frames
// that deep are charged as the memory grows (calculation_limits::memory_growth).
inline constexpr uint32_t stack_growth_pages = 256;
// The wasm2c instance beside its linear memory (its globals, tables, the glue's text buffers),
// rounded up.
inline constexpr uint64_t instance_overhead_bytes = 1u << 20;
inline constexpr uint64_t input_bytes_per_text_byte = 64;
// One field element of either scalar field (bn254, bls12-381), in the replay's slots.
inline constexpr uint64_t element_bytes = 32;
// A trace's node (12 bytes) through the compile of its program: its liveness, last use and slot,
// its instruction (16), the list of free slots, and the instruction's copy in the saved file.
inline constexpr uint64_t node_bytes = 56;
// A distinct constant: its value and its entry in the lookup by value, with a vector's and a hash
// table's growth, and its copies in the program and the file.
inline constexpr uint64_t constant_bytes = 320;
// A wire: what it reads, the order of the wires (a vector's growth), its output instruction and the
// file's copy of that.
inline constexpr uint64_t wire_bytes = 64;
// The recorder's marks over `linear` bytes of linear memory (element_marks.hpp), resident where
// the calculation writes: a state byte per 4 bytes and a node slot (4 bytes) per 32.
inline constexpr uint64_t marks_bytes(uint64_t linear) noexcept { return linear / 4 + linear / 8; }
// The marks one copy saves over `linear` bytes (element_marks::snapshot): a state byte per 4
// bytes and a (granule, node) pair per element of at least 36 bytes; within half.
inline constexpr uint64_t saved_marks_bytes(uint64_t linear) noexcept { return linear / 2; }
// How much more memory a recording asks for at a time as its values grow.
inline constexpr uint64_t recording_chunk_bytes = uint64_t{16} << 20;

// What the generator knows of its circuit.
struct circuit_sizes {
  uint32_t n32 = 0;           // 32-bit words per field element
  uint32_t witness_size = 0;  // wires
  uint32_t declared_pages = 0, declared_max_pages = 65536;  // the module's linear memory
};

// The witness graph a calculation replays.
struct graph_sizes {
  uint32_t slots = 0, input_values = 0;
  bool field_calls = false;  // it calls field functions on the wasm (an instance of its own)
};

// What a calculation will do.
enum class calculation_kind {
  wasm,               // the compiled wasm alone
  replay,             // the witness graph, and the wasm where the input does not fit it
  record_in_line,     // the wasm, followed by the recorder
  record_beside,      // the wasm, and the recording on a thread of its own from a copy of the inputs
};

struct calculation_memory {
  calculation_kind kind = calculation_kind::wasm;
  // The calculation's own: released when it returns.
  uint64_t calculation = 0;
  // The recording's, beyond its values (which it asks for as they grow); 0 where it records
  // nothing. Beside a calculation it is held until the recording ends, which may be after the
  // calculation returns.
  uint64_t recording = 0;
  uint64_t total() const noexcept { return calculation + recording; }
  bool records() const noexcept {
    return kind == calculation_kind::record_in_line || kind == calculation_kind::record_beside;
  }
};

// The pages every instance of the circuit is counted for (growth past them is charged as it happens).
uint32_t instance_pages(const circuit_sizes& c) noexcept;
uint64_t instance_bytes(const circuit_sizes& c) noexcept;
uint64_t wtns_buffer_bytes(const circuit_sizes& c) noexcept;
uint64_t input_bytes(uint64_t input_json_bytes) noexcept;

// The bound for a calculation of `kind` on an input of `input_json_bytes` bytes of JSON text;
// `graph` is the graph a replay runs (ignored by the other kinds).
calculation_memory calculation_memory_bound(const circuit_sizes& c, calculation_kind kind, const graph_sizes& graph,
                                            uint64_t input_json_bytes) noexcept;

}  // namespace cuzk::witness
