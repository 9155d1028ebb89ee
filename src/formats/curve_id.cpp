// SPDX-License-Identifier: MIT OR Apache-2.0
// Curve detection from primes and names; see curve_id.hpp.
#include "formats/curve_id.hpp"

#include <algorithm>
#include <vector>

namespace cuzk::formats {
namespace {

// Equal as numbers: `le` may be wider than the constant (zero-padded) but not narrower.
template <std::size_t N>
bool le_equals(std::span<const uint8_t> le, const ff::bigint<N>& v) {
  uint8_t want[8 * N];
  v.to_bytes_le(want);
  const std::size_t n = std::min(le.size(), sizeof(want));
  if (!std::equal(le.begin(), le.begin() + static_cast<std::ptrdiff_t>(n), want)) return false;
  if (le.size() < sizeof(want))
    return std::all_of(want + n, want + sizeof(want), [](uint8_t b) { return b == 0; });
  return std::all_of(le.begin() + static_cast<std::ptrdiff_t>(n), le.end(), [](uint8_t b) { return b == 0; });
}

template <class Fbn, class Fbls>
result<curve_id> from_prime(std::span<const uint8_t> le, const std::string& where, const char* which) {
  if (le_equals(le, Fbn::modulus)) return curve_id::bn254;
  if (le_equals(le, Fbls::modulus)) return curve_id::bls12_381;
  return status(errc::unsupported, where + ": " + which + " " + le_bytes_to_decimal(le) +
                                       " is neither bn254's (" + Fbn::modulus.to_decimal() +
                                       ") nor bls12-381's (" + Fbls::modulus.to_decimal() + ")");
}

}  // namespace

const char* curve_name(curve_id c) noexcept { return c == curve_id::bn254 ? bn254::name : bls12_381::name; }

const char* snarkjs_curve_name(curve_id c) noexcept {
  return c == curve_id::bn254 ? bn254::snarkjs_name : bls12_381::snarkjs_name;
}

result<curve_id> curve_from_scalar_prime(std::span<const uint8_t> le, const std::string& where) {
  return from_prime<bn254::fr, bls12_381::fr>(le, where, "scalar field prime r");
}

result<curve_id> curve_from_base_prime(std::span<const uint8_t> le, const std::string& where) {
  return from_prime<bn254::fq, bls12_381::fq>(le, where, "base field prime q");
}

result<curve_id> curve_from_snarkjs_name(std::string_view name, const std::string& where) {
  if (name == bn254::snarkjs_name) return curve_id::bn254;
  if (name == bls12_381::snarkjs_name) return curve_id::bls12_381;
  return status(errc::unsupported,
                where + ": expected \"bn128\" or \"bls12381\", found \"" + std::string(name) + "\"");
}

std::string le_bytes_to_decimal(std::span<const uint8_t> le) {
  // Repeated division by 10 over base-256 digits; quadratic, but primes are at most a few dozen bytes.
  std::vector<uint8_t> v(le.rbegin(), le.rend());  // big-endian
  std::string out;
  for (;;) {
    while (!v.empty() && v.front() == 0) v.erase(v.begin());
    if (v.empty()) break;
    unsigned rem = 0;
    for (auto& d : v) {
      const unsigned cur = rem * 256 + d;
      d = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
    }
    out.push_back(static_cast<char>('0' + rem));
  }
  if (out.empty()) return "0";
  return {out.rbegin(), out.rend()};
}

}  // namespace cuzk::formats
