// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness calculation's memory, bounded before it starts; see calculation_memory.hpp.
#include "witness/calculation_memory.hpp"

#include <algorithm>

#include "formats/wtns_writer.hpp"

namespace cuzk::witness {

namespace {

// The inputs as parsed (circom_input.hpp): 32 bytes a value, a value at least two bytes of text,
// and a signal's name and sizes (about 72 bytes) at least six: within 32 bytes per byte of text.
constexpr uint64_t parsed_input_bytes_per_text_byte = 32;

}  // namespace

uint32_t instance_pages(const circuit_sizes& c) noexcept {
  const uint64_t pages = uint64_t{c.declared_pages} + stack_growth_pages + 1;
  return static_cast<uint32_t>(std::min<uint64_t>({pages, c.declared_max_pages + uint64_t{1}, 65536}));
}

uint64_t instance_bytes(const circuit_sizes& c) noexcept {
  return uint64_t{instance_pages(c)} * wasm_page_bytes + instance_overhead_bytes;
}

uint64_t wtns_buffer_bytes(const circuit_sizes& c) noexcept {
  const uint64_t element = 4 * uint64_t{c.n32};
  return formats::wtns_values_offset(element) + uint64_t{c.witness_size} * element;
}

uint64_t input_bytes(uint64_t input_json_bytes) noexcept {
  return input_json_bytes * (1 + input_bytes_per_text_byte);
}

calculation_memory calculation_memory_bound(const circuit_sizes& c, calculation_kind kind, const graph_sizes& graph,
                                            uint64_t input_json_bytes) noexcept {
  calculation_memory m;
  m.kind = kind;
  const uint64_t instance = instance_bytes(c);
  uint64_t work = instance;
  if (kind == calculation_kind::replay) {
    const uint64_t replay = (uint64_t{graph.slots} + graph.input_values) * element_bytes + (graph.field_calls ? instance : 0);
    work = std::max(work, replay);
  }
  m.calculation = wtns_buffer_bytes(c) + input_bytes(input_json_bytes) + work;
  if (m.records()) {
    // The marks over the instance's memory, and those a copy saves.
    const uint64_t linear = uint64_t{instance_pages(c)} * wasm_page_bytes;
    m.recording = marks_bytes(linear) + saved_marks_bytes(linear) + uint64_t{c.witness_size} * wire_bytes;
    if (kind == calculation_kind::record_beside)
      m.recording += instance + wtns_buffer_bytes(c) + input_json_bytes * parsed_input_bytes_per_text_byte;
  }
  return m;
}

}  // namespace cuzk::witness
