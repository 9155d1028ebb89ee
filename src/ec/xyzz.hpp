// SPDX-License-Identifier: MIT OR Apache-2.0
// Extended Jacobian coordinates (X, Y, ZZ, ZZZ) for y^2 = x^3 + b (a = 0): the affine point is
// (X/ZZ, Y/ZZZ), with ZZ^3 = ZZZ^2 (think ZZ = Z^2, ZZZ = Z^3).
//
// This is the MSM bucket representation. Keeping Z^2 and Z^3 separately makes adding an affine
// point cost 8M + 2S ("madd-2008-s") against 7M + 4S in plain Jacobian, and it makes the mixed
// addition's doubling fallback cheap; Pippenger spends almost all its time in exactly that
// bucket += affine step, on the CPU and on the GPU.
//
// Formulas: https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html (general a; here a = 0, so
// the a*ZZ1^2 term of the doublings drops). As in jacobian.hpp, the formulas are incomplete and
// every special case is handled before them: O + P = P, P + P doubles, P + (-P) = O.
//
// Infinity is ZZ = ZZZ = 0; infinity() is all zeros so zero-initialised buckets are empty.
// Same field requirements as jacobian.hpp (inverse() only for to_affine).
#pragma once

#include "base/hd.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"

namespace cuzk::ec {

template <class F>
struct xyzz {
  using field = F;
  using affine_type = affine<F>;

  F x{}, y{}, zz{}, zzz{};

  CUZK_HD static constexpr xyzz infinity() { return {}; }
  CUZK_HD static constexpr xyzz from_affine(const affine<F>& a) {
    if (a.is_infinity()) return infinity();
    return {a.x, a.y, F::one(), F::one()};
  }
  // (X, Y, Z) -> (X, Y, Z^2, Z^3).
  CUZK_HD static constexpr xyzz from_jacobian(const jacobian<F>& p) {
    if (p.is_infinity()) return infinity();
    const F z2 = p.z.sqr();
    return {p.x, p.y, z2, z2 * p.z};
  }
  // A Jacobian triple with Z = ZZ: x = X ZZ / ZZ^2 and y = Y ZZZ / ZZ^3, because ZZ^3 = ZZZ^2.
  // Two multiplications, no inversion.
  CUZK_HD constexpr jacobian<F> to_jacobian() const {
    if (is_infinity()) return jacobian<F>::infinity();
    return {x * zz, y * zzz, zz};
  }
  CUZK_HD constexpr bool is_infinity() const { return zz.is_zero(); }

  // Doubling, "dbl-2008-s-1": 6M + 3S (a = 0: M = 3 X1^2).
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html#doubling-dbl-2008-s-1
  // Infinity gives ZZ3 = V*ZZ1 = 0 and Y1 = 0 gives V = 0: both come out as infinity unbranched.
  CUZK_HD constexpr xyzz dbl() const {
    const F U = y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = x * V;
    const F X1X1 = x.sqr();
    const F M = X1X1.dbl() + X1X1;
    xyzz r;
    r.x = M.sqr() - S.dbl();
    r.y = M * (S - r.x) - W * y;
    r.zz = V * zz;
    r.zzz = W * zzz;
    return r;
  }

  // Doubling of an affine point (ZZ1 = ZZZ1 = 1), "mdbl-2008-s-1": 4M + 3S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html#doubling-mdbl-2008-s-1
  CUZK_HD static constexpr xyzz dbl_affine(const affine<F>& a) {
    if (a.is_infinity()) return infinity();
    const F U = a.y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = a.x * V;
    const F X1X1 = a.x.sqr();
    const F M = X1X1.dbl() + X1X1;
    xyzz r;
    r.x = M.sqr() - S.dbl();
    r.y = M * (S - r.x) - W * a.y;
    r.zz = V;
    r.zzz = W;
    return r;
  }

  // Addition, "add-2008-s": 12M + 2S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html#addition-add-2008-s
  CUZK_HD friend constexpr xyzz operator+(const xyzz& p, const xyzz& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const F U1 = p.x * q.zz;
    const F U2 = q.x * p.zz;
    const F S1 = p.y * q.zzz;
    const F S2 = q.y * p.zzz;
    const F P = U2 - U1;
    const F R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? p.dbl() : infinity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = U1 * PP;
    xyzz r;
    r.x = R.sqr() - PPP - Q.dbl();
    r.y = R * (Q - r.x) - S1 * PPP;
    r.zz = p.zz * q.zz * PP;
    r.zzz = p.zzz * q.zzz * PPP;
    return r;
  }

  // Mixed addition with an affine point, "madd-2008-s": 8M + 2S.
  // https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html#addition-madd-2008-s
  CUZK_HD friend constexpr xyzz operator+(const xyzz& p, const affine<F>& q) {
    if (q.is_infinity()) return p;
    if (p.is_infinity()) return from_affine(q);
    const F U2 = q.x * p.zz;
    const F S2 = q.y * p.zzz;
    const F P = U2 - p.x;
    const F R = S2 - p.y;
    if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : infinity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = p.x * PP;
    xyzz r;
    r.x = R.sqr() - PPP - Q.dbl();
    r.y = R * (Q - r.x) - p.y * PPP;
    r.zz = p.zz * PP;
    r.zzz = p.zzz * PPP;
    return r;
  }
  CUZK_HD friend constexpr xyzz operator+(const affine<F>& q, const xyzz& p) { return p + q; }

  CUZK_HD constexpr xyzz operator-() const { return {x, -y, zz, zzz}; }
  CUZK_HD friend constexpr xyzz operator-(const xyzz& p, const xyzz& q) { return p + (-q); }
  CUZK_HD friend constexpr xyzz operator-(const xyzz& p, const affine<F>& q) { return p + (-q); }
  CUZK_HD constexpr xyzz& operator+=(const xyzz& q) { return *this = *this + q; }
  CUZK_HD constexpr xyzz& operator+=(const affine<F>& q) { return *this = *this + q; }
  CUZK_HD constexpr xyzz& operator-=(const xyzz& q) { return *this = *this - q; }
  CUZK_HD constexpr xyzz& operator-=(const affine<F>& q) { return *this = *this - q; }

  // Equality of the points: X1 ZZ2 = X2 ZZ1 and Y1 ZZZ2 = Y2 ZZZ1.
  CUZK_HD friend constexpr bool operator==(const xyzz& p, const xyzz& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    return p.x * q.zz == q.x * p.zz && p.y * q.zzz == q.y * p.zzz;
  }
  CUZK_HD friend constexpr bool operator==(const xyzz& p, const affine<F>& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    return p.x == q.x * p.zz && p.y == q.y * p.zzz;
  }
  // Against Jacobian (X2, Y2, Z2): X1 Z2^2 = X2 ZZ1 and Y1 Z2^3 = Y2 ZZZ1.
  CUZK_HD friend constexpr bool operator==(const xyzz& p, const jacobian<F>& q) {
    if (p.is_infinity() || q.is_infinity()) return p.is_infinity() && q.is_infinity();
    const F Z2Z2 = q.z.sqr();
    return p.x * Z2Z2 == q.x * p.zz && p.y * (Z2Z2 * q.z) == q.y * p.zzz;
  }

  // Inverting ZZZ is enough: with w = 1/ZZZ, 1/ZZ = w^2 ZZ^2 (because ZZZ^2 = ZZ^3).
  CUZK_HD constexpr const F& denominator() const { return zzz; }
  CUZK_HD constexpr affine<F> to_affine_given_inverse(const F& zzz_inv) const {
    if (is_infinity()) return affine<F>::infinity();
    const F zz_inv = (zzz_inv * zz).sqr();
    return {x * zz_inv, y * zzz_inv};
  }
  CUZK_HD constexpr affine<F> to_affine() const {
    if (is_infinity()) return affine<F>::infinity();
    return to_affine_given_inverse(zzz.inverse());
  }
};

}  // namespace cuzk::ec
