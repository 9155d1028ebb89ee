// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a GPU proof computes a = A w, b = B w and c = a∘b: a prover setting that the daemon's
// configuration and the benchmarks name, so it lives here, beside the prover contract, in a header
// that needs no CUDA.
#pragma once

#include <optional>
#include <string_view>

#include "base/enum_names.hpp"

namespace cuzk::groth16 {

enum class synthesis_place {
  device,         // by the GPU from resident matrices (gpu/abc_device.hpp); only the witness is copied
  host_pinned,    // by CPU threads into pinned buffers, then copied at the line rate
  host_pageable,  // by CPU threads into pageable memory: the slow copy, kept to be measured
};

// The words the config and the benchmarks use.
inline constexpr auto synthesis_places =
    words_of<synthesis_place::host_pageable>({"device", "host-pinned", "host-pageable"});
constexpr const char* synthesis_place_name(synthesis_place p) noexcept { return synthesis_places.name(p); }
constexpr std::optional<synthesis_place> parse_synthesis_place(std::string_view w) noexcept {
  return synthesis_places.parse(w);
}

}  // namespace cuzk::groth16
