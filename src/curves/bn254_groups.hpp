// BN254's groups G1 (over Fq) and G2 (over Fq2, on the D-type twist).
//
// G1 has cofactor 1: every point of y^2 = x^3 + 3 over Fq has order r, so being on the curve is
// the whole subgroup check. The twist has order r * (2q - r), so G2 needs a real check.
//
// The cofactor is derived from the BN parameter x through the family polynomials
//   q(x) = 36x^4 + 36x^3 + 24x^2 + 6x + 1,  r(x) = 36x^4 + 36x^3 + 18x^2 + 6x + 1,
// and q and r are checked against the moduli in bn254.hpp.
#pragma once

#include "curves/bn254.hpp"
#include "curves/family_polynomial.hpp"
#include "curves/groups.hpp"
#include "ec/affine.hpp"
#include "ec/group.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "ff/bigint.hpp"

namespace cuzk {

namespace bn254_family {
inline constexpr uint64_t x = bn254::bn_x;
static_assert(!bn254::bn_x_is_negative);
inline constexpr auto q = curves::poly_at<4>(x, {36, 36, 24, 6, 1});
inline constexpr auto r = curves::poly_at<4>(x, {36, 36, 18, 6, 1});
static_assert(q == bn254::fq::modulus, "bn_x does not give the base field modulus");
static_assert(r == bn254::fr::modulus, "bn_x does not give the scalar field modulus");
}  // namespace bn254_family

struct bn254_g1 {
  using curve = bn254;
  using field = bn254::fq;
  using scalar = bn254::fr;
  using affine = ec::affine<field>;
  using jacobian = ec::jacobian<field>;
  using xyzz = ec::xyzz<field>;
  static constexpr const char* name = "G1";

  static constexpr field b = bn254::g1_b;
  static constexpr affine generator{bn254::g1_gen_x, bn254::g1_gen_y};
  static constexpr auto cofactor = ff::bigint<1>::from_u64(1);

  CUZK_HD static constexpr bool in_subgroup_given_on_curve(const affine&) { return true; }
};

struct bn254_g2 {
  using curve = bn254;
  using field = bn254::fq2;
  using scalar = bn254::fr;
  using affine = ec::affine<field>;
  using jacobian = ec::jacobian<field>;
  using xyzz = ec::xyzz<field>;
  static constexpr const char* name = "G2";

  static constexpr field b = bn254::g2_b;
  static constexpr affine generator{bn254::g2_gen_x, bn254::g2_gen_y};
  // #E'(Fq2) = r * (2q - r).
  static constexpr auto cofactor = curves::poly_at<4>(bn254_family::x, {36, 36, 30, 6, 1});

  static constexpr bool in_subgroup_given_on_curve(const affine& p) { return ec::in_subgroup_by_order<bn254_g2>(p); }
};

template <>
struct groups<bn254> {
  using g1_group = bn254_g1;
  using g2_group = bn254_g2;
};

}  // namespace cuzk
