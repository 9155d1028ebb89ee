// SPDX-License-Identifier: MIT OR Apache-2.0
// The final exponentiation f -> f^((q^12 - 1)/r * c), which turns a Miller loop value into an
// element of GT.
//
// (q^12 - 1)/r = (q^6 - 1)(q^2 + 1) * (q^4 - q^2 + 1)/r. The easy part, (q^6 - 1)(q^2 + 1), is an
// inversion, a conjugation and a Frobenius map, and lands in the cyclotomic subgroup, where
// inversion is conjugation and squaring is Granger-Scott. The hard part, (q^4 - q^2 + 1)/r, is
// written in base q with coefficients that are polynomials in the curve parameter x, so it costs a
// few exponentiations by x plus Frobenius maps. The shortest such chains compute a fixed multiple
// c * (q^4 - q^2 + 1)/r with c prime to r; that c is part of what "the pairing" means here, and it
// is the same c snarkjs uses (see pairing.hpp and the vk_alphabeta_12 test):
//
//  - BN, c = 2x(6x^2 + 3x + 1): Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, "Faster Hashing to
//    G2" (SAC 2011), for BN curves: c * (q^4 - q^2 + 1)/r = l0 + l1 q + l2 q^2 + l3 q^3 with
//    l0 = 12x^3 + 12x^2 + 6x + 1, l1 = 12x^3 + 6x^2 + 4x, l2 = 12x^3 + 6x^2 + 6x,
//    l3 = 12x^3 + 6x^2 + 4x - 1. Three exponentiations by x.
//  - BLS12, c = 3: Hayashida, Hayasaka, Teruya, "Efficient Final Exponentiation via Cyclotomic
//    Structure for Pairings over Families of Elliptic Curves" (ePrint 2020/875):
//    3 (q^4 - q^2 + 1)/r = (x - 1)^2 (x + q)(x^2 + q^2 - 1) + 3. Five exponentiations by x.
//
// Include this only where the templates are instantiated (pairing_<curve>.cpp) or tested.
#pragma once

#include "pairing/pairing.hpp"
#include "pairing/pairing_params.hpp"

namespace cuzk::pairing {

// g^x for g in the cyclotomic subgroup, x the signed curve parameter.
template <class Curve>
fq12<Curve> cyclotomic_pow_x(const fq12<Curve>& g) {
  using params = pairing_params<Curve>;
  const fq12<Curve> r = g.cyclotomic_pow(params::x_abs);
  return params::x_is_negative ? r.conjugate() : r;
}

template <class Curve>
fq12<Curve> final_exponentiation(const fq12<Curve>& f) {
  using params = pairing_params<Curve>;
  using f12 = fq12<Curve>;
  const auto pow_x = [](const f12& g) { return cyclotomic_pow_x<Curve>(g); };

  // Easy part: f^(q^6 - 1) = conj(f) / f, then ^(q^2 + 1).
  f12 t = f.conjugate() * f.inverse();
  t = t.frobenius_map(2) * t;

  if constexpr (params::family == curve_family::bn) {
    const f12 fx = pow_x(t);
    const f12 f2x = fx.cyclotomic_sqr();
    const f12 f4x = f2x.cyclotomic_sqr();
    const f12 f6x = f4x * f2x;
    const f12 f6x2 = pow_x(f6x);
    const f12 f12x3 = pow_x(f6x2.cyclotomic_sqr());
    const f12 common = f12x3 * f6x2;    // 12x^3 + 6x^2
    const f12 l1 = common * f4x;        // 12x^3 + 6x^2 + 4x
    const f12 l2 = common * f6x;        // 12x^3 + 6x^2 + 6x
    const f12 l0 = l2 * f6x2 * t;       // 12x^3 + 12x^2 + 6x + 1
    const f12 l3 = l1 * t.conjugate();  // 12x^3 + 6x^2 + 4x - 1
    return l0 * l1.frobenius_map(1) * l2.frobenius_map(2) * l3.frobenius_map(3);
  } else {
    const f12 a = pow_x(t) * t.conjugate();                              // t^(x - 1)
    const f12 b = pow_x(a) * a.conjugate();                              // t^((x - 1)^2)
    const f12 c = pow_x(b) * b.frobenius_map(1);                         // ^(x + q)
    const f12 d = pow_x(pow_x(c)) * c.frobenius_map(2) * c.conjugate();  // ^(x^2 + q^2 - 1)
    return d * t.cyclotomic_sqr() * t;                                   // + 3
  }
}

}  // namespace cuzk::pairing
