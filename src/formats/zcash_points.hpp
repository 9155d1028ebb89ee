// SPDX-License-Identifier: MIT OR Apache-2.0
// The ZCash encoding of BLS12-381 points, used by Filecoin parameters, Ethereum's consensus layer
// and most BLS12-381 libraries (https://github.com/zkcrypto/pairing, "Serialization").
//
// Coordinates are big-endian canonical integers; G2 coordinates are written c1 || c0. The three
// top bits of the first byte are flags:
//   0x80 compression: set for the x-only form (G1 48 bytes, G2 96), clear for x || y (96, 192);
//   0x40 infinity:    set for the point at infinity, whose remaining bits must all be zero;
//   0x20 sign:        compressed form only: set when y is the lexicographically larger of the
//                     two roots, i.e. y > (q - 1)/2, comparing c1 first (then c0) in Fq2.
// 381-bit coordinates leave exactly those three bits free in a 48-byte field.
//
// Decoding is strict: wrong length, a flag that contradicts the length or another flag, stray
// bits in an infinity, a coordinate >= q, a point off the curve or outside the subgroup are all
// errors. The format promises subgroup points, so decoding always checks membership.
//
// Defined for bls12_381_g1 and bls12_381_g2 (curves/bls12_381_groups.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.hpp"

namespace cuzk::formats::zcash {

template <class G>
inline constexpr std::size_t compressed_size = sizeof(typename G::field);  // 48 (G1), 96 (G2)
template <class G>
inline constexpr std::size_t uncompressed_size = 2 * compressed_size<G>;

template <class G>
std::array<uint8_t, compressed_size<G>> encode_compressed(const typename G::affine& p);
template <class G>
std::array<uint8_t, uncompressed_size<G>> encode_uncompressed(const typename G::affine& p);

template <class G>
result<typename G::affine> decode_compressed(std::span<const uint8_t> in);
template <class G>
result<typename G::affine> decode_uncompressed(std::span<const uint8_t> in);
// Either form, chosen by the compression flag of the first byte.
template <class G>
result<typename G::affine> decode(std::span<const uint8_t> in);

}  // namespace cuzk::formats::zcash
