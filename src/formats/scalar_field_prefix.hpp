// SPDX-License-Identifier: MIT OR Apache-2.0
// The opening of the .r1cs and .wtns header sections: u32 n8, then the scalar field's prime r in
// n8 little-endian bytes. Both files name their curve this way, so both read it here: the curve
// is the one whose r it is, and n8 must be 32 (r is 254/255 bits on both curves).
#pragma once

#include <string>

#include "base/result.hpp"
#include "ff/bigint.hpp"
#include "formats/byte_reader.hpp"
#include "formats/curve_id.hpp"
#include "formats/fr_bytes.hpp"

namespace cuzk::formats {

struct scalar_field_prefix {
  uint32_t n8 = 0;
  ff::bigint<4> prime;
  curve_id curve = curve_id::bn254;
};

inline result<scalar_field_prefix> read_scalar_field_prefix(byte_reader& r) {
  scalar_field_prefix p;
  p.n8 = r.u32("n8");
  const auto prime = r.bytes(p.n8, "prime");
  if (!r.ok()) return r.error();
  const auto curve = curve_from_scalar_prime(prime, r.where());
  if (!curve) return curve.error();
  p.curve = *curve;
  if (p.n8 != sizeof(fr_bytes)) {
    return status(errc::format_error,
                  r.where() + ": n8 = " + std::to_string(p.n8) + ", expected 32 for " + curve_name(p.curve));
  }
  p.prime = ff::bigint<4>::from_bytes_le(prime.data());
  return p;
}

}  // namespace cuzk::formats
