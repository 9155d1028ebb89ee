// SPDX-License-Identifier: MIT OR Apache-2.0
// The checks every curve group gets from its description: on the curve, in the prime-order
// subgroup, cofactor clearing.
//
// A group description G (curves/<curve>_groups.hpp) names the coordinate field, the scalar field,
// the coefficient b of y^2 = x^3 + b, a generator, the cofactor h (#E = h * r), and its own
// subgroup test for points already known to be on the curve: free when h = 1, an endomorphism
// check where one is known, [r]P = O otherwise. `in_subgroup_by_order` is kept here as the
// definition those faster checks are tested against.
#pragma once

#include "base/hd.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::ec {

// y^2 = x^3 + b; the point at infinity passes.
template <class G>
CUZK_HD constexpr bool is_on_curve(const affine<typename G::field>& p) {
  if (p.is_infinity()) return true;
  return p.y.sqr() == p.x.sqr() * p.x + G::b;
}

// Y^2 = X^3 + b Z^6, the same equation with x = X/Z^2, y = Y/Z^3, without inverting Z.
template <class G>
CUZK_HD constexpr bool is_on_curve(const jacobian<typename G::field>& p) {
  if (p.is_infinity()) return true;
  const auto z2 = p.z.sqr();
  const auto z6 = z2.sqr() * z2;
  return p.y.sqr() == p.x.sqr() * p.x + G::b * z6;
}

// The definition of membership: [r]P = O. Slow (a full-length scalar multiplication); the groups
// use it only where nothing faster is known, and the tests use it as the oracle.
template <class G>
CUZK_HD constexpr bool in_subgroup_by_order(const affine<typename G::field>& p) {
  return scalar_mul(p, G::scalar::modulus).is_infinity();
}

// On the curve and in the subgroup of order r.
template <class G>
CUZK_HD constexpr bool is_in_subgroup(const affine<typename G::field>& p) {
  return is_on_curve<G>(p) && G::in_subgroup_given_on_curve(p);
}

// [h]P: maps any curve point into the subgroup of order r (the map the tests use to build
// subgroup points from arbitrary curve points; it is not the hash-to-curve h_eff).
template <class G>
CUZK_HD constexpr jacobian<typename G::field> clear_cofactor(const jacobian<typename G::field>& p) {
  return scalar_mul(p, G::cofactor);
}
template <class G>
CUZK_HD constexpr jacobian<typename G::field> clear_cofactor(const affine<typename G::field>& p) {
  return clear_cofactor<G>(jacobian<typename G::field>::from_affine(p));
}

}  // namespace cuzk::ec
