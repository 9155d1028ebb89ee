// SPDX-License-Identifier: MIT OR Apache-2.0
// Follows one calculation of a compiled witness generator and makes its witness graph
// (witness_graph.hpp; docs/witness.md, 'The witness graph').
//
// The compiled code tells the recorder of every outermost call of circom's field functions, before
// and after (field_functions.hpp), and of every load and store of the circuit's own code
// (circom_wasm_glue_abi.h, struct cuzk_trace). The recorder keeps, for each 4 bytes of the linear
// memory, what they hold (element_marks.hpp: a byte per 4 bytes, and a node per 32):
//   - not written since the trace began (after init, before the first input): bytes that do not
//     depend on the inputs, so a field function reading them reads a constant;
//   - an element whose value the recorder follows: an input, or the result of a field function of
//     a followed value. Copies move the mark with the bytes;
//   - stored by the circuit's own code: unknown. A field function reading such bytes, or an
//     element made of pieces of several, ends the trace without a graph.
// A field function whose operands are all constants gives a constant (nothing is recorded). A
// test of a followed value (Fr_isTrue, Fr_toInt, ...) becomes a guard. A load of a followed value
// by the circuit's own code, which no guard covers, ends the trace without a graph.
//
// Two places are read by rule rather than followed: setInputSignal's Fr_toInt and Fr_eqR of the
// input just written (circom stores a small input as a short element through its own code, then
// checks it is equal), and the shared memory after getWitness, which the glue reads (the wire).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/result.hpp"
#include "witness/witness_graph.hpp"

struct cuzk_trace;

namespace cuzk::witness {

// How the recorder reads the instance's linear memory (it may move when the memory grows).
struct linear_memory {
  void* instance;
  uint8_t* (*data)(void* instance, uint64_t* size);
};

class graph_recorder {
 public:
  // nullptr where cuzk has no native field for `prime`. `shared_element` is the element whose
  // limbs are the wasm's shared memory. `more_memory` is asked for memory as the trace's values
  // grow (calculation_memory.hpp: node_bytes a node, constant_bytes a constant, at least
  // recording_chunk_bytes at a time); where it says no, the trace ends and finish() answers
  // resource_exhausted. Empty: no limit.
  static std::unique_ptr<graph_recorder> make(std::span<const uint32_t> prime, uint32_t witness_size,
                                              uint32_t shared_element, linear_memory memory,
                                              std::function<bool(uint64_t bytes)> more_memory = {});
  virtual ~graph_recorder() = default;

  // What to hand the glue (cuzk_witness_trace).
  virtual cuzk_trace* trace() noexcept = 0;

  // False once the trace has failed: finish() will give no graph.
  virtual bool may_finish() const noexcept = 0;

  // After the calculation succeeded: its graph, or failed_precondition with why there is none
  // (resource_exhausted where more_memory said no: another calculation may record).
  virtual result<witness_graph> finish() = 0;
};

}  // namespace cuzk::witness
