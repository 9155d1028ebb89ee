// SPDX-License-Identifier: MIT OR Apache-2.0
// Naming the groups of a curve from generic code: groups<C>::g1_group is the description of G1
// (field, b, generator, cofactor, subgroup check; see ec/group.hpp) and g1<C>, g1_affine<C>,
// g1_xyzz<C> are its point types; likewise for G2.
//
// Generic code takes the curve as a template parameter (msm<C>, prove<C>), so the curve structs
// in bn254.hpp and bls12_381.hpp stay constants-only and each curve's <curve>_groups.hpp
// specialises groups<C>.
//
// What G1 and G2 declare alike on every curve is read here from the curve's constants (g1_base,
// g2_base): the fields, the point types, b and the generator. A curve's groups derive from these
// and add only what differs between curves: the cofactor and the subgroup check.
#pragma once

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"

namespace cuzk {

// A group of `Curve` whose points have coordinates in `Field`: the types every description names.
template <class Curve, class Field>
struct group_types {
  using curve = Curve;
  using field = Field;
  using scalar = typename Curve::fr;
  using affine = ec::affine<field>;
  using jacobian = ec::jacobian<field>;
  using xyzz = ec::xyzz<field>;
};

// G1: y^2 = x^3 + g1_b over Fq.
template <class Curve>
struct g1_base : group_types<Curve, typename Curve::fq> {
  static constexpr const char* name = "G1";
  static constexpr typename Curve::fq b = Curve::g1_b;
  static constexpr ec::affine<typename Curve::fq> generator{Curve::g1_gen_x, Curve::g1_gen_y};
};

// G2: y^2 = x^3 + g2_b over Fq2, on the curve's sextic twist.
template <class Curve>
struct g2_base : group_types<Curve, typename Curve::fq2> {
  static constexpr const char* name = "G2";
  static constexpr typename Curve::fq2 b = Curve::g2_b;
  static constexpr ec::affine<typename Curve::fq2> generator{Curve::g2_gen_x, Curve::g2_gen_y};
};

template <class Curve>
struct groups;  // specialised in curves/<curve>_groups.hpp

template <class C> using g1_group = typename groups<C>::g1_group;
template <class C> using g2_group = typename groups<C>::g2_group;

template <class C> using g1_affine = typename g1_group<C>::affine;
template <class C> using g1 = typename g1_group<C>::jacobian;
template <class C> using g1_xyzz = typename g1_group<C>::xyzz;
template <class C> using g2_affine = typename g2_group<C>::affine;
template <class C> using g2 = typename g2_group<C>::jacobian;
template <class C> using g2_xyzz = typename g2_group<C>::xyzz;

}  // namespace cuzk
