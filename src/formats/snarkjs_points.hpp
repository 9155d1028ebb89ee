// SPDX-License-Identifier: MIT OR Apache-2.0
// Points as snarkjs writes them: the binary form inside .zkey files and the JSON form in
// proof.json and verification_key.json.
//
// Binary: affine x || y, each coordinate little-endian in Montgomery form (ffjavascript's R is
// 2^(8*n8) with n8 = 32 or 48 bytes, the same R = 2^(64N) as ff/fp.hpp, so the bytes are the
// Montgomery limbs as they are in memory). G2 coordinates are c0 || c1. Infinity is all zero
// bytes. Sizes: G1 64 / 96 bytes, G2 128 / 192 bytes (BN254 / BLS12-381).
//
// JSON: decimal strings of the plain affine coordinates with a projective z, G1 [x, y, "1"] and
// G2 [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]. snarkjs writes infinity as G1 ["0", "1", "0"] and
// G2 [["0", "0"], ["1", "0"], ["0", "0"]] (ffjavascript's projective zero, checked against
// snarkjs 0.7.6); encoding does the same, decoding also accepts the (0, 0) affine form and a
// missing z.
//
// Defined for the four groups of curves/bn254_groups.hpp and curves/bls12_381_groups.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>

#include "base/result.hpp"
#include "formats/point_validation.hpp"

namespace cuzk::formats::snarkjs {

// Bytes of one binary point.
template <class G>
inline constexpr std::size_t binary_size = 2 * sizeof(typename G::field);

// Writes binary_size<G> bytes.
template <class G>
void encode_binary(const typename G::affine& p, std::span<uint8_t, binary_size<G>> out);

// Reads exactly binary_size<G> bytes: each coordinate must be a reduced Montgomery value (< q)
// and the point on the curve; `check` adds the subgroup test.
template <class G>
result<typename G::affine> decode_binary(std::span<const uint8_t> in, subgroup_check check);

template <class G>
nlohmann::json to_json(const typename G::affine& p);

template <class G>
result<typename G::affine> from_json(const nlohmann::json& j, subgroup_check check);

}  // namespace cuzk::formats::snarkjs
