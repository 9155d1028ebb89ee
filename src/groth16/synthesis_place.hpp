// Where a GPU proof computes a = A w, b = B w and c = a∘b: a prover setting that the daemon's
// configuration and the benchmarks name, so it lives here, beside the prover contract, in a header
// that needs no CUDA.
#pragma once

#include <optional>
#include <string_view>

namespace cuzk::groth16 {

enum class synthesis_place {
  device,         // by the GPU from resident matrices (gpu/abc_device.hpp); only the witness is copied
  host_pinned,    // by CPU threads into pinned buffers, then copied at the line rate
  host_pageable,  // by CPU threads into pageable memory: the slow copy, kept to be measured
};

inline constexpr synthesis_place all_synthesis_places[] = {synthesis_place::device, synthesis_place::host_pinned,
                                                          synthesis_place::host_pageable};

constexpr const char* synthesis_place_name(synthesis_place p) noexcept {
  switch (p) {
    case synthesis_place::device:
      return "device";
    case synthesis_place::host_pinned:
      return "host-pinned";
    case synthesis_place::host_pageable:
      return "host-pageable";
  }
  return "?";
}

// The place named `name` ("device", "host-pinned", "host-pageable"), or nullopt.
constexpr std::optional<synthesis_place> parse_synthesis_place(std::string_view name) noexcept {
  for (const synthesis_place p : all_synthesis_places)
    if (name == synthesis_place_name(p)) return p;
  return std::nullopt;
}

}  // namespace cuzk::groth16
