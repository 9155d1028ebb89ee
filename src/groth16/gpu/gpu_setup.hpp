// SPDX-License-Identifier: MIT OR Apache-2.0
// A development setup's fixed-base products on a GPU: the fixed_base_engine (groth16/setup.hpp)
// that `cuzk setup` passes where a device is present.
//
// Each group's comb table (groth16/fixed_base.hpp) is made on the host once, for the count of
// points the setup will ask of it, and uploaded (gpu/fixed_base.hpp); every vector's points are
// then made on the device, range by range, straight into the key's vector. The points are the CPU
// comb's, bit for bit (gpu_setup_test.cpp).
#pragma once

#include <cstddef>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "groth16/setup.hpp"

namespace cuzk::groth16 {

// An engine on `device` with tables for about g1_count G1 and g2_count G2 points (they choose the
// comb's window: fixed_base_table::choose_window). For a circuit of nVars signals and a domain of
// n: g1_count = 3 nVars + n, g2_count = nVars. Errors: CUDA failures (no device, no memory).
template <class Curve>
result<fixed_base_engine<Curve>> gpu_fixed_base_engine(int device, std::size_t g1_count, std::size_t g2_count);

extern template result<fixed_base_engine<bn254>> gpu_fixed_base_engine<bn254>(int, std::size_t, std::size_t);
extern template result<fixed_base_engine<bls12_381>> gpu_fixed_base_engine<bls12_381>(int, std::size_t,
                                                                                       std::size_t);

}  // namespace cuzk::groth16
