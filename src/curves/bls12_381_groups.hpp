// SPDX-License-Identifier: MIT OR Apache-2.0
// BLS12-381's groups G1 (over Fq) and G2 (over Fq2, on the M-type twist).
//
// Neither group is the whole curve: E(Fq) has order h1 * r and the twist h2 * r, so both need a
// subgroup check. The cofactors are derived from the BLS parameter x = -u through the family
// polynomials
//   r(x) = x^4 - x^2 + 1,  q(x) = (x - 1)^2 r(x) / 3 + x,
//   h1(x) = (x - 1)^2 / 3,  h2(x) = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9,
// written below as polynomials in u = |x| (x is negative), and q and r are checked against the
// moduli in bls12_381.hpp.
//
// Subgroup checks use an endomorphism whose eigenvalue on the subgroup is small (Scott, "A note
// on group membership tests for G1, G2 and GT on BLS pairing-friendly curves", ePrint 2021/1130):
//   G1: phi(x, y) = (beta x, y) with beta a cube root of unity; P in G1 iff phi(P) = [-x^2]P;
//   G2: psi = untwist o Frobenius o twist; Q in G2 iff psi(Q) = [x]Q.
// That is a 128-bit (G1) or 64-bit (G2) scalar multiplication instead of a 255-bit one; the tests
// check both against [r]P = O on points inside and outside the subgroups.
#pragma once

#include "curves/bls12_381.hpp"
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

namespace bls12_381_family {
inline constexpr uint64_t u = bls12_381::bls_x;  // x = -u
static_assert(bls12_381::bls_x_is_negative);
inline constexpr auto r = curves::poly_at<4>(u, {1, 0, -1, 0, 1});
// (u + 1)^2 (u^4 - u^2 + 1) / 3 - u = (u^6 + 2u^5 - 2u^3 + 2u + 1) / 3 - u.
inline constexpr auto q = [] {
  auto v = curves::exact_div(curves::poly_at<6>(u, {1, 2, 0, -2, 0, 2, 1}), 3);
  v.sub_in_place(ff::bigint<6>::from_u64(u));
  return v;
}();
static_assert(r == bls12_381::fr::modulus, "bls_x does not give the scalar field modulus");
static_assert(q == bls12_381::fq::modulus, "bls_x does not give the base field modulus");
inline constexpr auto h1 = curves::exact_div(curves::poly_at<2>(u, {1, 2, 1}), 3);
inline constexpr auto h2 = curves::exact_div(curves::poly_at<8>(u, {1, 4, 5, 0, -4, -6, -4, 4, 13}), 9);
}  // namespace bls12_381_family

struct bls12_381_g1 : g1_base<bls12_381> {
  static constexpr auto cofactor = bls12_381_family::h1;

  // beta = 2^((q-1)/3) (2 is not a cube mod q), the cube root of unity whose phi acts on G1 as
  // [-x^2] = [-u^2]; the other root, beta^2, would give [x^2 - 1].
  static constexpr field beta = field::from_uint(2).pow(curves::exact_div(ff::mont::sub_one(field::modulus), 3));
  static constexpr affine phi(const affine& p) { return {p.x * beta, p.y}; }

  static constexpr auto u_squared = curves::poly_at<2>(bls12_381_family::u, {1, 0, 0});
  static constexpr bool in_subgroup_given_on_curve(const affine& p) {
    return ec::scalar_mul(p, u_squared) == -phi(p);
  }
};

struct bls12_381_g2 : g2_base<bls12_381> {
  static constexpr auto cofactor = bls12_381_family::h2;

  // psi(x, y) = (conj(x) / xi^((q-1)/3), conj(y) / xi^((q-1)/2)) on the M-type twist.
  static constexpr field psi_x =
      bls12_381::xi.pow(curves::exact_div(ff::mont::sub_one(bls12_381::fq::modulus), 3)).inverse();
  static constexpr field psi_y =
      bls12_381::xi.pow(curves::exact_div(ff::mont::sub_one(bls12_381::fq::modulus), 2)).inverse();
  static constexpr affine psi(const affine& p) { return {p.x.conjugate() * psi_x, p.y.conjugate() * psi_y}; }

  // [x]Q = -[u]Q.
  static constexpr bool in_subgroup_given_on_curve(const affine& p) {
    return ec::scalar_mul(p, bls12_381_family::u) == -psi(p);
  }
};

template <>
struct groups<bls12_381> {
  using g1_group = bls12_381_g1;
  using g2_group = bls12_381_g2;
};

}  // namespace cuzk
