// SPDX-License-Identifier: MIT OR Apache-2.0
// The two steps of the Miller loop on the twist: T <- 2T and T <- T + Q, each returning the line
// through the points involved, to be evaluated at the G1 point P.
//
// T is kept in homogeneous projective coordinates (x = X/Z, y = Y/Z) on the twist
// E': y^2 = x^3 + b' over Fq2, so no step inverts anything. Formulas: Costello, Lange, Naehrig,
// "Faster Pairing Computations on Curves with High-Degree Twists" (PKC 2010, ePrint 2009/615),
// in the form of Aranha, Karabina, Longa, Gebotys, Lopez, "Faster Explicit Formulas for
// Computing Pairings over Ordinary Curves" (EUROCRYPT 2011, ePrint 2010/526).
//
// A line is returned as three Fq2 coefficients (a, b, c) meaning a*yP, b*xP and c. Where they sit
// in Fq12 depends on the twist. Untwisting a D-type point multiplies x by w^2 and y by w^3, and
// the tangent at T, scaled by factors in proper subfields of Fq12 (which the final
// exponentiation maps to 1), becomes
//     l(P) = -2YZ yP + 3X^2 xP w + (3b'Z^2 - Y^2) w^3;
// for an M-type twist the untwisting divides by w^2 and w^3 and, after scaling by w^3,
//     l(P) = (3b'Z^2 - Y^2) + 3X^2 xP w^2 - 2YZ yP w^3.
// Same coefficients, other places: ff::fp12::mul_by_w013 and mul_by_w023. The chord through T
// and Q behaves the same way.
#pragma once

#include "pairing/pairing_params.hpp"

namespace cuzk::pairing {

template <class Fq2>
struct g2_homogeneous {
  Fq2 x, y, z;
};

// l(P) = a yP + b xP (times w or w^2) + c (times w^3 or 1); see above.
template <class Fq2>
struct line {
  Fq2 a, b, c;
};

template <class Fq2>
constexpr Fq2 half(const Fq2& v) {
  return {v.c0.half(), v.c1.half()};
}

// T <- 2T and the tangent at T. three_b is 3b' of the twist. Aranha et al.:
//   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B + F)/2, H = (Y + Z)^2 - (B + C),
//   X3 = A(B - F), Y3 = G^2 - 3E^2, Z3 = BH; line (-H, 3X^2, E - B).
template <class Fq2>
constexpr line<Fq2> double_step(g2_homogeneous<Fq2>& t, const Fq2& three_b) {
  const Fq2 a = half(t.x * t.y);
  const Fq2 b = t.y.sqr();
  const Fq2 c = t.z.sqr();
  const Fq2 e = three_b * c;
  const Fq2 f = e.dbl() + e;
  const Fq2 g = half(b + f);
  const Fq2 h = (t.y + t.z).sqr() - (b + c);
  const Fq2 x2 = t.x.sqr();
  const Fq2 e2 = e.sqr();
  t.x = a * (b - f);
  t.y = g.sqr() - (e2.dbl() + e2);
  t.z = b * h;
  return {-h, x2.dbl() + x2, e - b};
}

// T <- T + Q for Q = (qx, qy) affine, and the line through T and Q. Aranha et al.:
//   theta = Y - qy Z, lambda = X - qx Z, C = theta^2, D = lambda^2, E = lambda D, F = Z C,
//   G = X D, H = E + F - 2G, X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E;
//   line (lambda, -theta, theta qx - lambda qy).
// T must not be +-Q (the chord would be a tangent or vertical). In the Miller loop on points of
// order r, T = [k]Q for partial loop scalars k that are never +-1 mod r, and BN's two Frobenius
// additions meet [6x+2]Q and [6x+2+q]Q against [q]Q and [-q^2]Q, which differ as well.
template <class Fq2>
constexpr line<Fq2> add_step(g2_homogeneous<Fq2>& t, const Fq2& qx, const Fq2& qy) {
  const Fq2 theta = t.y - qy * t.z;
  const Fq2 lambda = t.x - qx * t.z;
  const Fq2 c = theta.sqr();
  const Fq2 d = lambda.sqr();
  const Fq2 e = lambda * d;
  const Fq2 f = t.z * c;
  const Fq2 g = t.x * d;
  const Fq2 h = e + f - g.dbl();
  t.x = lambda * h;
  t.y = theta * (g - h) - t.y * e;
  t.z = t.z * e;
  return {lambda, -theta, theta * qx - lambda * qy};
}

// f * l(P) for a line l and P = (xp, yp): a and b are scaled by yP and xP (Fq), then the sparse
// product for the twist's shape.
template <twist_type Twist, class Fq12, class Fq2, class Fq>
constexpr Fq12 mul_by_line(const Fq12& f, const line<Fq2>& l, const Fq& xp, const Fq& yp) {
  const Fq2 ay = l.a.mul_by_base(yp);
  const Fq2 bx = l.b.mul_by_base(xp);
  if constexpr (Twist == twist_type::d) {
    return f.mul_by_w013(ay, bx, l.c);
  } else {
    return f.mul_by_w023(l.c, bx, ay);
  }
}

}  // namespace cuzk::pairing
