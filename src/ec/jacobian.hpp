// SPDX-License-Identifier: MIT OR Apache-2.0
// Jacobian coordinates (X, Y, Z) for y^2 = x^3 + b (a = 0): the affine point is (X/Z^2, Y/Z^3).
//
// This is the working representation for everything that is not an MSM bucket: scalar
// multiplication, running sums, the final reduction of bucket sums. It avoids the inversion every
// affine addition needs; a point goes back to affine once, at the end (or many at once with
// batch_to_affine.hpp).
//
// Formulas are the a = 0 ones from the Explicit-Formulas Database,
// https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html, used as written there. Those
// formulas are incomplete: they divide by zero (silently, giving a wrong result) when an input is
// the point at infinity or when both inputs are equal or opposite. Each special case is caught
// before the formula runs: O + P = P, P + P falls back to doubling, P + (-P) = O.
//
// The point at infinity is any triple with Z = 0; infinity() returns (0, 0, 0) so that a
// zero-initialised array of points is an array of infinities.
//
// Everything is CUZK_HD and uses only the field's + - * unary-, sqr(), dbl(), is_zero(), zero(),
// one() and ==, so the same code runs in the CUDA kernels over the device field. Only to_affine
// also needs inverse().
#pragma once

#include "base/hd.hpp"
#include "ec/affine.hpp"

namespace cuzk::ec {

template <class F>
struct jacobian {
  using field = F;
  using affine_type = affine<F>;

  F x{}, y{}, z{};

  CUZK_HD static constexpr jacobian infinity() { return {}; }
  CUZK_HD static constexpr jacobian from_affine(const affine<F>& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, F::one()};
  }
  CUZK_HD constexpr bool is_infinity() const { return z.is_zero(); }

  // Doubling, "dbl-2009-l": 2M + 5S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html#doubling-dbl-2009-l
  // Infinity needs no branch: Z3 = 2*Y1*Z1 = 0. Neither does a point of order 2 (Y1 = 0).
  CUZK_HD constexpr jacobian dbl() const {
    const F A = x.sqr();
    const F B = y.sqr();
    const F C = B.sqr();
    const F D = ((x + B).sqr() - A - C).dbl();
    const F E = A.dbl() + A;
    const F Fs = E.sqr();
    jacobian r;
    r.x = Fs - D.dbl();
    r.y = E * (D - r.x) - C.dbl().dbl().dbl();
    r.z = (y * z).dbl();
    return r;
  }

  // Addition, "add-2007-bl": 11M + 5S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html#addition-add-2007-bl
  CUZK_HD friend constexpr jacobian operator+(const jacobian& p, const jacobian& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const F Z1Z1 = p.z.sqr();
    const F Z2Z2 = q.z.sqr();
    const F U1 = p.x * Z2Z2;
    const F U2 = q.x * Z1Z1;
    const F S1 = p.y * q.z * Z2Z2;
    const F S2 = q.y * p.z * Z1Z1;
    const F H = U2 - U1;
    const F S2mS1 = S2 - S1;
    if (H.is_zero()) {
      // Same x: either the same point (double it) or opposite points (sum is infinity).
      return S2mS1.is_zero() ? p.dbl() : infinity();
    }
    const F I = H.dbl().sqr();
    const F J = H * I;
    const F rr = S2mS1.dbl();
    const F V = U1 * I;
    jacobian r;
    r.x = rr.sqr() - J - V.dbl();
    r.y = rr * (V - r.x) - (S1 * J).dbl();
    r.z = ((p.z + q.z).sqr() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  // Mixed addition with an affine point (Z2 = 1), "madd-2007-bl": 7M + 4S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html#addition-madd-2007-bl
  CUZK_HD friend constexpr jacobian operator+(const jacobian& p, const affine<F>& q) {
    if (q.is_infinity()) return p;
    if (p.is_infinity()) return from_affine(q);
    const F Z1Z1 = p.z.sqr();
    const F U2 = q.x * Z1Z1;
    const F S2 = q.y * p.z * Z1Z1;
    const F H = U2 - p.x;
    const F S2mY1 = S2 - p.y;
    if (H.is_zero()) return S2mY1.is_zero() ? p.dbl() : infinity();
    const F HH = H.sqr();
    const F I = HH.dbl().dbl();
    const F J = H * I;
    const F rr = S2mY1.dbl();
    const F V = p.x * I;
    jacobian r;
    r.x = rr.sqr() - J - V.dbl();
    r.y = rr * (V - r.x) - (p.y * J).dbl();
    r.z = (p.z + H).sqr() - Z1Z1 - HH;
    return r;
  }
  CUZK_HD friend constexpr jacobian operator+(const affine<F>& q, const jacobian& p) { return p + q; }

  CUZK_HD constexpr jacobian operator-() const { return {x, -y, z}; }
  CUZK_HD friend constexpr jacobian operator-(const jacobian& p, const jacobian& q) { return p + (-q); }
  CUZK_HD friend constexpr jacobian operator-(const jacobian& p, const affine<F>& q) { return p + (-q); }
  CUZK_HD constexpr jacobian& operator+=(const jacobian& q) { return *this = *this + q; }
  CUZK_HD constexpr jacobian& operator+=(const affine<F>& q) { return *this = *this + q; }
  CUZK_HD constexpr jacobian& operator-=(const jacobian& q) { return *this = *this - q; }

  // Equality of the points, not of the triples: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3, so no
  // inversion is needed.
  CUZK_HD friend constexpr bool operator==(const jacobian& p, const jacobian& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    const F Z1Z1 = p.z.sqr();
    const F Z2Z2 = q.z.sqr();
    return p.x * Z2Z2 == q.x * Z1Z1 && p.y * (q.z * Z2Z2) == q.y * (p.z * Z1Z1);
  }
  CUZK_HD friend constexpr bool operator==(const jacobian& p, const affine<F>& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    const F Z1Z1 = p.z.sqr();
    return p.x == q.x * Z1Z1 && p.y == q.y * (p.z * Z1Z1);
  }

  // What batch_to_affine inverts, and how the inverse finishes the conversion.
  CUZK_HD constexpr const F& denominator() const { return z; }
  CUZK_HD constexpr affine<F> to_affine_given_inverse(const F& z_inv) const {
    if (is_infinity()) return affine<F>::infinity();
    const F z_inv2 = z_inv.sqr();
    return {x * z_inv2, y * (z_inv2 * z_inv)};
  }
  // One field inversion; for many points use batch_to_affine.
  CUZK_HD constexpr affine<F> to_affine() const {
    if (is_infinity()) return affine<F>::infinity();
    return to_affine_given_inverse(z.inverse());
  }
};

}  // namespace cuzk::ec
