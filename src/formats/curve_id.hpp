// SPDX-License-Identifier: MIT OR Apache-2.0
// Which curve a file belongs to, decided from the primes it carries.
//
// Files name their curve only through a prime: an .r1cs or .wtns carries the scalar field r, a
// .zkey carries both the base field q and r, and the JSON files say "bn128" or "bls12381". Code
// that serves both curves reads the prime first (detect_curve), then dispatches to the template
// instantiated for that curve: `curve_id` is the runtime tag, `curve_of<curve_id>` the type.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::formats {

// Every reader here uses the mapped bytes as little-endian integers and Montgomery limbs.
static_assert(std::endian::native == std::endian::little,
              "the iden3 formats are used in place: little-endian only");

enum class curve_id { bn254, bls12_381 };

template <class C>
inline constexpr curve_id curve_id_of = std::is_same_v<C, bn254> ? curve_id::bn254 : curve_id::bls12_381;

// The one dispatch from the runtime tag to the template: calls body.template operator()<Curve>()
// for the curve `id` names, e.g.
//   with_curve(id, [&]<class C>() { return prove<C>(...); });
template <class F>
decltype(auto) with_curve(curve_id id, F&& body) {
  if (id == curve_id::bn254) return body.template operator()<bn254>();
  return body.template operator()<bls12_381>();
}

// "bn254", "bls12-381".
const char* curve_name(curve_id c) noexcept;
// snarkjs's spelling: "bn128", "bls12381".
const char* snarkjs_curve_name(curve_id c) noexcept;

// The curve whose scalar field r is `le` (n8 little-endian bytes); otherwise unsupported, naming
// the prime found and the two that are supported. `where` prefixes the message ("x.r1cs: header
// prime").
result<curve_id> curve_from_scalar_prime(std::span<const uint8_t> le, const std::string& where);
// Likewise for the base field q (a .zkey's header).
result<curve_id> curve_from_base_prime(std::span<const uint8_t> le, const std::string& where);
// "bn128" / "bls12381" (the JSON "curve" field).
result<curve_id> curve_from_snarkjs_name(std::string_view name, const std::string& where);

// A little-endian byte string as a decimal number (for primes of any width in messages).
std::string le_bytes_to_decimal(std::span<const uint8_t> le);

}  // namespace cuzk::formats
