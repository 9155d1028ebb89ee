// SPDX-License-Identifier: MIT OR Apache-2.0
// A scalar-field element as the iden3 files store it: 32 little-endian bytes, alignment 1.
//
// Both curves' scalar fields fit 32 bytes (n8r = 32), so witness values, r1cs coefficients and
// zkey coefficients are all arrays of this type in place over a mapped file. Alignment 1 is the
// point: a .wtns's values start at file offset 76, which no 8-byte-aligned type may sit on, and a
// byte array may sit anywhere. Loading one into a bigint is a 32-byte memcpy (an unaligned vector
// load on x86-64).
#pragma once

#include <cstdint>
#include <cstring>

#include "ff/bigint.hpp"

namespace cuzk::formats {

struct fr_bytes {
  uint8_t bytes[32];

  // The integer as stored (plain or "double Montgomery", depending on the file).
  ff::bigint<4> integer() const {
    ff::bigint<4> v;
    std::memcpy(v.limb, bytes, sizeof(bytes));  // little-endian host (curve_id.hpp asserts it)
    return v;
  }
  static fr_bytes from_integer(const ff::bigint<4>& v) {
    fr_bytes b;
    std::memcpy(b.bytes, v.limb, sizeof(b.bytes));
    return b;
  }
};
static_assert(sizeof(fr_bytes) == 32 && alignof(fr_bytes) == 1);

}  // namespace cuzk::formats
