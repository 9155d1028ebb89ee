// SPDX-License-Identifier: MIT OR Apache-2.0
// The explicit instantiations of the synth layer for one scalar field, written once: each
// synth_<curve>.cpp expands CUZK_SYNTH_INSTANTIATE for its field.
#pragma once

#include "synth/constraint_matrices_impl.hpp"
#include "synth/evaluate_abc_impl.hpp"
#include "synth/synthetic_circuit_impl.hpp"

#define CUZK_SYNTH_INSTANTIATE(FR)                                                                       \
  namespace cuzk::synth {                                                                                \
  template result<constraint_matrices<FR>> matrices_from_zkey<FR>(std::span<const uint8_t>, std::size_t, \
                                                                  std::size_t);                          \
  template result<constraint_matrices<FR>> matrices_from_records<FR>(                                    \
      std::span<const zkey_coefficient<FR>>, std::size_t, std::size_t);                                  \
  template status evaluate_abc<FR>(const constraint_matrices<FR>&, std::span<const FR::repr>,            \
                                   std::span<FR>, std::span<FR>, std::span<FR>, thread_pool&);           \
  template synthetic_circuit<FR> make_synthetic_circuit<FR>(unsigned, witness_kind, uint64_t);           \
  }  // namespace cuzk::synth
