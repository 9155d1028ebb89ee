// SPDX-License-Identifier: MIT OR Apache-2.0
// What the optimal ate pairing needs to know about a curve, derived from the curve's own header.
//
// Nothing here is declared twice: the family follows from which loop parameter the curve names
// (bn_x or bls_x), the twist type from comparing g2_b with g1_b and xi, and the Miller loop's
// digits from the loop parameter:
//  - BN curves (Vercauteren, "Optimal pairings", ePrint 2008/096): the loop runs over 6x + 2 and
//    ends with two additions of Frobenius images of Q;
//  - BLS12 curves: the loop runs over |x|; a negative x conjugates the result.
// The digits are either plain binary or the non-adjacent form (NAF), whichever costs less: a
// non-zero digit costs one addition step, a digit position one doubling step plus a squaring of
// the accumulator (weighed as two). 6x + 2 on BN254 has 37 set bits but only 22 NAF digits;
// |x| on BLS12-381 has 6 set bits and its NAF would only be one digit longer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::pairing {

enum class curve_family { bn, bls12 };
// D-type: E'(Fq2): y^2 = x^3 + b/xi; M-type: y^2 = x^3 + b xi. It decides where a line's three
// coefficients land in Fq12 (ff::fp12::mul_by_w013 or mul_by_w023).
enum class twist_type { d, m };

template <class Curve>
struct pairing_params {
  static constexpr curve_family family = requires { Curve::bn_x; }
  ? curve_family::bn : curve_family::bls12;

  static constexpr twist_type twist = [] {
    using fq2 = typename Curve::fq2;
    const fq2 b(Curve::g1_b);
    if (Curve::g2_b == b * Curve::xi) return twist_type::m;
    if (Curve::g2_b * Curve::xi == b) return twist_type::d;
    throw "pairing_params: g2_b is neither b*xi nor b/xi";
  }();

  // The curve parameter x as |x| and its sign.
  static constexpr uint64_t x_abs = [] {
    if constexpr (family == curve_family::bn) {
      return Curve::bn_x;
    } else {
      return Curve::bls_x;
    }
  }();
  static constexpr bool x_is_negative = [] {
    if constexpr (family == curve_family::bn) {
      return Curve::bn_x_is_negative;
    } else {
      return Curve::bls_x_is_negative;
    }
  }();
  static_assert(family != curve_family::bn || !x_is_negative,
                "the BN Miller loop here assumes x > 0 (6x + 2 > 0), as on BN254");
  static_assert(family != curve_family::bn || twist == twist_type::d,
                "the BN Frobenius step here is written for a D-type twist");

  // The loop scalar: 6x + 2 (BN) or |x| (BLS12), up to 67 bits.
  static constexpr unsigned __int128 loop_scalar =
      family == curve_family::bn ? 6 * static_cast<unsigned __int128>(x_abs) + 2 : x_abs;

  struct digits {
    std::array<int8_t, 70> d{};  // least significant first; d[length - 1] == 1
    std::size_t length = 0;
    std::size_t nonzero = 0;
    constexpr std::size_t cost() const { return 2 * (length - 1) + (nonzero - 1); }
  };

  static constexpr digits binary_digits() {
    digits r;
    for (unsigned __int128 k = loop_scalar; k != 0; k >>= 1) {
      r.d[r.length++] = static_cast<int8_t>(k & 1);
      r.nonzero += static_cast<std::size_t>(k & 1);
    }
    return r;
  }
  static constexpr digits naf_digits() {
    digits r;
    for (unsigned __int128 k = loop_scalar; k != 0; k >>= 1) {
      int8_t d = 0;
      if (k & 1) {
        d = static_cast<int8_t>(2 - static_cast<int>(k & 3));
        k = d > 0 ? k - 1 : k + 1;
        ++r.nonzero;
      }
      r.d[r.length++] = d;
    }
    return r;
  }
  static constexpr digits loop_digits =
      naf_digits().cost() < binary_digits().cost() ? naf_digits() : binary_digits();
  static_assert(loop_digits.length >= 2 && loop_digits.d[loop_digits.length - 1] == 1);
};

}  // namespace cuzk::pairing
