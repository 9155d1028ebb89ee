// SPDX-License-Identifier: MIT OR Apache-2.0
// The pinned staging of one GPU proof, as the GPU backend takes it from the pinned pool: the
// witness first, then (synthesis on the host into pinned memory) a | b | c at a page boundary.
#pragma once

#include <cstdint>

#include "groth16/synthesis_place.hpp"

namespace cuzk::engine {

struct staging_layout {
  uint64_t witness_bytes = 0, abc_offset = 0, abc_bytes = 0;
  uint64_t total() const noexcept { return abc_bytes != 0 ? abc_offset + abc_bytes : witness_bytes; }
};

constexpr staging_layout staging_for(uint64_t n_vars, uint64_t domain_size, groth16::synthesis_place place) {
  constexpr uint64_t scalar = 32, page = 4096;
  staging_layout l;
  l.witness_bytes = n_vars * scalar;
  if (place == groth16::synthesis_place::host_pinned) {
    l.abc_offset = (l.witness_bytes + page - 1) / page * page;
    l.abc_bytes = 3 * domain_size * scalar;
  }
  return l;
}

}  // namespace cuzk::engine
