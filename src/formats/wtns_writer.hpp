// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness file (.wtns, version 2; layout in wtns.hpp) made from values that are already bytes:
// for witness generators, whose field is whatever prime their code declares. Byte for byte what
// snarkjs's `wtns calculate` writes (circom_runtime's calculateWTNSBin): the same header, the
// same two sections in the same order.
//
// Built in memory (a witness is a few bytes per constraint, 33 MB for a million) so that a caller
// can read it back without a file (`cuzk fullprove` proves from it), or write it atomically.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace cuzk::formats {

// Where a .wtns's values start: after its header, for values of n8 bytes (a multiple of 4, so the
// values are 4-byte aligned in a buffer that is).
std::size_t wtns_values_offset(std::size_t n8);

// A whole .wtns for `count` values of the prime's size: the header written, the values zero, to be
// written in place by a witness generator (from wtns_values_offset(prime_le.size()) on), so that
// the witness needs no copy into its file. A buffer of megabytes is advised for huge pages: its
// first touch is most of its cost. invalid_argument for a prime that is not whole 32-bit words.
result<std::vector<uint8_t>> wtns_with_room(std::span<const uint8_t> prime_le, std::size_t count);

// `prime_le` is the field's prime, n8 little-endian bytes; `values` is the witness, values of n8
// little-endian bytes each. invalid_argument when the sizes disagree.
result<std::vector<uint8_t>> encode_wtns(std::span<const uint8_t> prime_le, std::span<const uint8_t> values);

// encode_wtns written to `path` through a temporary file and rename(2) (write_file_atomically).
status write_wtns_bytes(const std::string& path, std::span<const uint8_t> prime_le, std::span<const uint8_t> values);

}  // namespace cuzk::formats
