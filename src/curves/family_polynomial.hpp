// SPDX-License-Identifier: MIT OR Apache-2.0
// Evaluating a pairing-friendly family's polynomials at its parameter, at compile time.
//
// BN and BLS12 curves are families: q, r and the cofactors are fixed polynomials in one 64-bit
// parameter x. Each curve header writes its moduli out in full, and the groups headers derive
// the cofactors from x with these polynomials and check q and r against them, so the parameter,
// the moduli and the cofactors cannot disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "ff/bigint.hpp"

namespace cuzk::curves {

// sum c_i u^i for a positive u, by Horner's rule, coefficients from the highest degree down.
// Coefficients may be negative as long as every Horner partial value stays non-negative (true for
// these families: the leading term dominates); anything else is a compile error.
template <std::size_t N>
consteval ff::bigint<N> poly_at(uint64_t u, std::initializer_list<int64_t> coeffs) {
  ff::bigint<N> v;
  for (const int64_t c : coeffs) {
    if (v.mul_add_small(u, c >= 0 ? static_cast<uint64_t>(c) : 0) != 0) throw "poly_at: overflow";
    if (c < 0 && v.sub_in_place(ff::bigint<N>::from_u64(static_cast<uint64_t>(-c))) != 0)
      throw "poly_at: negative partial value";
  }
  return v;
}

// a / d for a small d that must divide a exactly.
template <std::size_t N>
consteval ff::bigint<N> exact_div(ff::bigint<N> a, uint64_t d) {
  if (a.div_small(d) != 0) throw "exact_div: not divisible";
  return a;
}

// The low M limbs of a, which must hold all of it.
template <std::size_t M, std::size_t N>
consteval ff::bigint<M> narrow(const ff::bigint<N>& a) {
  ff::bigint<M> r;
  for (std::size_t i = 0; i < N; ++i) {
    if (i < M) r.limb[i] = a.limb[i];
    else if (a.limb[i] != 0) throw "narrow: value does not fit";
  }
  return r;
}

}  // namespace cuzk::curves
