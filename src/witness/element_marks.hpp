// SPDX-License-Identifier: MIT OR Apache-2.0
// What the witness graph's recorder knows of each 4 bytes (a granule) of a wasm32 linear memory
// (graph_recorder.hpp): whether they hold a constant, a part of a field element whose value it
// follows, or bytes the circuit's own code stored.
//
// Two arrays, both reserved for all 4 GiB a wasm32 memory can grow to and touched only where the
// calculation writes:
//   - a state byte per granule (1 GiB reserved): `constant` (0) where the bytes have not been
//     written since the trace began or hold a value that does not depend on the inputs, `stored`
//     where the circuit's own code stored them (the compiled code's trace hooks write these two
//     themselves, circom_wasm_glue_abi.h), else 1 + k for granule k of a followed element;
//   - a node slot per 8 granules (32 bytes; 512 MiB reserved): the followed node of the element
//     whose granule 0 lies in those 8, and which of the 8 it is.
// That is 1.5 bytes per 4 bytes of memory where a u32 per granule took 4: the 72 MB the benchmark
// circuit's calculation touches cost 27 MB of marks, not 72 (docs/witness.md, 'Peak memory of the
// recording').
//
// One slot for 8 granules suffices because a field element spans more than 8 (40 bytes for BN254,
// 56 for BLS12-381): an element at granule g is read as followed only where granules g..g+n-1 hold
// 1, 2, .., n, so no other element whose granule 0 lies within 7 of g is whole at the same time.
// The slot keeps the most recent granule 0 written in its 8; where the whole element is an older
// one, the slot no longer names it and the element reads as unknown, which costs a graph, never a
// wrong one.
//
// Exact: an element reads as followed by node N only where every one of its granules was written
// by one event (`follow`, or one `restore` of a snapshot of such an element), so the bytes are
// that element's. A restore of a range that cuts an element (its granule 0 outside the range, or
// its tail beyond it) makes the cut parts `stored`; a plain per-granule node mark would take an
// element whose tail a shifted copy replaced for the element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cuzk::witness {

class element_marks {
 public:
  static constexpr uint8_t constant = 0;
  static constexpr uint8_t stored = 0xff;  // CUZK_TRACE_STORED in circom_wasm_glue_abi.h
  // Granules of 4 bytes in a wasm32 memory, and per node slot.
  static constexpr uint64_t memory_granules = uint64_t{1} << 30;
  static constexpr uint32_t slot_granules = 8;
  // Nodes are 29 bits: the slot's other 3 say which of its granules is the element's granule 0.
  static constexpr uint32_t max_node = (uint32_t{1} << 29) - 1;

  // `element_granules`: 4-byte granules of one field element, more than `slot_granules` and at
  // most 16 (the 40 bytes of a BN254 element, the 56 of a BLS12-381 one). Throws std::bad_alloc
  // where the address space cannot be reserved.
  explicit element_marks(uint32_t element_granules);
  ~element_marks();
  element_marks(const element_marks&) = delete;
  element_marks& operator=(const element_marks&) = delete;

  // The state bytes, for the compiled code's trace hooks.
  uint8_t* states() const noexcept { return states_; }
  uint32_t element_granules() const noexcept { return n_; }

  // What the element at granule g holds. g + element_granules() <= memory_granules.
  enum class holds : uint8_t { constant, followed, unknown };
  struct reading {
    holds what;
    uint32_t node;  // where followed
  };
  reading read(uint32_t g) const noexcept;

  // The element at g: node (1..max_node) follows it / it holds a constant / its bytes are stored.
  void follow(uint32_t g, uint32_t node) noexcept;
  void set_constant(uint32_t g) noexcept;
  void set_stored(uint32_t g) noexcept;

  // The marks of `granules` granules from g, to put back (after a copy: elsewhere) with restore.
  // Most copies are of one element, whole or constant (circom's Fr_copy, tens of millions in a
  // large circuit): those keep only that, the rest every state.
  struct snapshot {
    uint32_t granules = 0;
    enum class shape : uint8_t { whole, constant, any } form = shape::any;
    uint32_t node = 0;  // whole
    std::vector<uint8_t> states;                        // any
    std::vector<std::pair<uint32_t, uint32_t>> firsts;  // any: (granule within, node) of each granule 0
  };
  void save(uint32_t g, uint32_t granules, snapshot& s) const;
  void restore(uint32_t g, const snapshot& s) noexcept;

 private:
  uint8_t* states_ = nullptr;
  uint32_t* slots_ = nullptr;
  uint32_t n_;
  // The states of a whole element, 1, 2, .., n, and the mask of its last n - 8, as two words.
  uint64_t whole_low_ = 0, whole_high_ = 0, high_mask_ = 0;
};

}  // namespace cuzk::witness
