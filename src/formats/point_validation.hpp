// SPDX-License-Identifier: MIT OR Apache-2.0
// What every point decoder checks, and how it words a failure.
//
// Decoders (snarkjs binary and JSON, ZCash) differ in layout but not in what makes a point
// valid: each coordinate canonical (< q), the point on the curve, and, where the format or the
// caller asks for it, in the subgroup of order r. The helpers here do those checks and build
// messages that name the curve, the group, the coordinate, the expected and the found value, e.g.
//   "bls12-381 G2 x.c1: coordinate not below the modulus q (found 0x1a01..., q = 0x1a01...)".
#pragma once

#include <string>

#include "base/result.hpp"
#include "ec/group.hpp"

namespace cuzk::formats {

// Whether a decoder also proves membership in the order-r subgroup (the on-curve check is always
// done). Checking costs a scalar multiplication or an endomorphism evaluation per point: skip it
// only for points that come from a trusted source, such as a proving key whose hash was checked.
enum class subgroup_check { skip, check };

// True for G2's coordinate field Fq2, false for Fq.
template <class F>
inline constexpr bool is_fp2 = requires { typename F::base; };

// "bn254 G1", "bls12-381 G2".
template <class G>
std::string group_label() {
  return std::string(G::curve::name) + " " + G::name;
}

// "x", "y" for G1; "x.c0", "x.c1", ... for G2. `component` is 0 or 1.
template <class G>
std::string coordinate_label(char xy, int component) {
  std::string s(1, xy);
  if constexpr (is_fp2<typename G::field>) s += component == 0 ? ".c0" : ".c1";
  return s;
}

// "y^2 = x^3 + 4", "y^2 = x^3 + (4 + 4*u)".
template <class G>
std::string curve_equation() {
  if constexpr (is_fp2<typename G::field>) {
    return "y^2 = x^3 + (" + G::b.c0.to_decimal() + " + " + G::b.c1.to_decimal() + "*u)";
  } else {
    return "y^2 = x^3 + " + G::b.to_decimal();
  }
}

// The base field of G's coordinate field (Fq for both G1 and G2).
template <class F>
struct base_field_of {
  using type = F;
};
template <class F>
  requires is_fp2<F>
struct base_field_of<F> {
  using type = typename F::base;
};
template <class G>
using base_field = typename base_field_of<typename G::field>::type;

// Canonical integer -> Fq, or out_of_range: "<group> <coord>: coordinate not below the modulus q
// (found ..., q = ...)". `what` says how the integer was read ("coordinate", "Montgomery
// coordinate").
template <class G>
result<base_field<G>> checked_coordinate(const typename base_field<G>::repr& v, const std::string& label,
                                         const char* what = "coordinate") {
  using Fq = base_field<G>;
  if (v >= Fq::modulus) {
    return status(errc::out_of_range, group_label<G>() + " " + label + ": " + what +
                                          " not below the modulus q (found " + v.to_hex() +
                                          ", q = " + Fq::modulus.to_hex() + ")");
  }
  return Fq::from_canonical_unchecked(v);
}

// On the curve, and in the subgroup when asked. Infinity passes both.
template <class G>
status check_point(const typename G::affine& p, subgroup_check check) {
  if (!ec::is_on_curve<G>(p)) {
    return {errc::not_on_curve, group_label<G>() + " point: not on the curve " + curve_equation<G>()};
  }
  if (check == subgroup_check::check && !G::in_subgroup_given_on_curve(p)) {
    return {errc::not_in_subgroup, group_label<G>() + " point: on the curve but not in the subgroup of order r"};
  }
  return status::ok();
}

}  // namespace cuzk::formats
