// SPDX-License-Identifier: MIT OR Apache-2.0
// BN254's groups G1 (over Fq) and G2 (over Fq2, on the D-type twist).
//
// G1 has cofactor 1: every point of y^2 = x^3 + 3 over Fq has order r, so being on the curve is
// the whole subgroup check. The twist has order r * (2q - r), so G2 needs a real check.
//
// The cofactor is derived from the BN parameter x through the family polynomials
//   q(x) = 36x^4 + 36x^3 + 24x^2 + 6x + 1,  r(x) = 36x^4 + 36x^3 + 18x^2 + 6x + 1,
// and q and r are checked against the moduli in bn254.hpp.
//
// G2 membership uses the endomorphism psi = untwist o Frobenius o twist, which acts on G2 as
// multiplication by q = 6x^2 (mod r): Q is in G2 iff psi(Q) = [6x^2]Q (El Housni, Guillevic,
// Piellard, "Co-factor clearing and subgroup membership testing on pairing-friendly curves",
// ePrint 2022/352, section 4). That is a 127-bit scalar multiplication instead of a 254-bit one;
// the tests check it against [r]Q = O on points inside and outside G2.
#pragma once

#include "curves/bn254.hpp"
#include "curves/family_polynomial.hpp"
#include "curves/groups.hpp"
#include "ec/affine.hpp"
#include "ec/group.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/bigint.hpp"
#include "ff/mont_math.hpp"

namespace cuzk {

namespace bn254_family {
inline constexpr uint64_t x = bn254::bn_x;
static_assert(!bn254::bn_x_is_negative);
inline constexpr auto q = curves::poly_at<4>(x, {36, 36, 24, 6, 1});
inline constexpr auto r = curves::poly_at<4>(x, {36, 36, 18, 6, 1});
static_assert(q == bn254::fq::modulus, "bn_x does not give the base field modulus");
static_assert(r == bn254::fr::modulus, "bn_x does not give the scalar field modulus");
}  // namespace bn254_family

struct bn254_g1 : g1_base<bn254> {
  static constexpr auto cofactor = ff::bigint<1>::from_u64(1);

  CUZK_HD static constexpr bool in_subgroup_given_on_curve(const affine&) { return true; }
};

struct bn254_g2 : g2_base<bn254> {
  // #E'(Fq2) = r * (2q - r).
  static constexpr auto cofactor = curves::poly_at<4>(bn254_family::x, {36, 36, 30, 6, 1});

  // psi(x, y) = (conj(x) xi^((q-1)/3), conj(y) xi^((q-1)/2)) on the D-type twist.
  static constexpr field psi_x = bn254::xi.pow(curves::exact_div(ff::mont::sub_one(bn254::fq::modulus), 3));
  static constexpr field psi_y = bn254::xi.pow(curves::exact_div(ff::mont::sub_one(bn254::fq::modulus), 2));
  static constexpr affine psi(const affine& p) { return {p.x.conjugate() * psi_x, p.y.conjugate() * psi_y}; }

  static constexpr auto six_x_squared = curves::poly_at<2>(bn254_family::x, {6, 0, 0});
  static constexpr bool in_subgroup_given_on_curve(const affine& p) {
    return ec::scalar_mul(p, six_x_squared) == psi(p);
  }
};

template <>
struct groups<bn254> {
  using g1_group = bn254_g1;
  using g2_group = bn254_g2;
};

}  // namespace cuzk
