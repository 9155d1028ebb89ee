// SPDX-License-Identifier: MIT OR Apache-2.0
// The 64-bit FNV-1a hash of a signal name, as circom's witness code looks inputs up.
//
// circom's wasm finds an input signal by the FNV-1a hash of its name (offset basis
// 0xcbf29ce484222325, prime 0x100000001b3), split into two 32-bit halves, most significant first
// (witness_calculator.js's fnvHash). JavaScript hashes UTF-16 code units; circom names are ASCII,
// so hashing bytes is the same.
#pragma once

#include <cstdint>
#include <string_view>

namespace cuzk::witness {

constexpr uint64_t fnv1a_64(std::string_view text) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The published test vectors (Fowler, Noll, Vo).
static_assert(fnv1a_64("") == 0xcbf29ce484222325ull);
static_assert(fnv1a_64("a") == 0xaf63dc4c8601ec8cull);
static_assert(fnv1a_64("foobar") == 0x85944171f73967e8ull);

}  // namespace cuzk::witness
