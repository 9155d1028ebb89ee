// SPDX-License-Identifier: MIT OR Apache-2.0
// Naming the groups of a curve from generic code: groups<C>::g1_group is the description of G1
// (field, b, generator, cofactor, subgroup check; see ec/group.hpp) and g1<C>, g1_affine<C>,
// g1_xyzz<C> are its point types; likewise for G2.
//
// Generic code takes the curve as a template parameter (msm<C>, prove<C>), so the curve structs
// in bn254.hpp and bls12_381.hpp stay constants-only and each curve's <curve>_groups.hpp
// specialises groups<C>.
#pragma once

namespace cuzk {

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
