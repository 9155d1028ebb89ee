// SPDX-License-Identifier: MIT OR Apache-2.0
// Scalar multiplication [k]P by a plain integer k (any number of limbs) or by a scalar-field
// element (through its canonical integer).
//
// Fixed 4-bit windows, most significant first: 15 additions to fill the table, then per window
// four doublings and at most one addition, about bits + bits/4 group operations against
// bits + bits/2 for double-and-add. Not constant time: this is for public values (setup, tests,
// subgroup checks, the verifier), never for a secret like the prover's r or s.
//
// Works for any point type with dbl(), + and infinity() (jacobian, xyzz) and is CUZK_HD; the
// table is a plain array so that nothing here needs the heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ff/bigint.hpp"

namespace cuzk::ec {

inline constexpr unsigned scalar_mul_window = 4;

template <class P, std::size_t M>
CUZK_HD constexpr P scalar_mul(const P& p, const ff::bigint<M>& k) {
  constexpr unsigned w = scalar_mul_window;
  constexpr unsigned table_size = 1u << w;
  P table[table_size];
  table[0] = P::infinity();
  table[1] = p;
  for (unsigned i = 2; i < table_size; ++i) table[i] = (i % 2 == 0) ? table[i / 2].dbl() : table[i - 1] + p;

  const std::size_t windows = (k.bit_length() + w - 1) / w;
  P acc = P::infinity();
  for (std::size_t win = windows; win-- > 0;) {
    for (unsigned d = 0; d < w; ++d) acc = acc.dbl();
    unsigned digit = 0;
    for (unsigned b = 0; b < w; ++b) digit |= static_cast<unsigned>(k.bit(win * w + b)) << b;
    if (digit != 0) acc += table[digit];
  }
  return acc;
}

// An affine base gives a Jacobian result.
template <class F, std::size_t M>
CUZK_HD constexpr jacobian<F> scalar_mul(const affine<F>& p, const ff::bigint<M>& k) {
  return scalar_mul(jacobian<F>::from_affine(p), k);
}

// By a field element s (e.g. Fr): [s]P with s taken as its canonical integer in [0, r).
template <class P, class S>
  requires requires(const S& s) { s.to_canonical(); }
CUZK_HD constexpr auto scalar_mul(const P& p, const S& s) {
  return scalar_mul(p, s.to_canonical());
}

// By a small integer.
template <class P>
CUZK_HD constexpr auto scalar_mul(const P& p, uint64_t k) {
  return scalar_mul(p, ff::bigint<1>::from_u64(k));
}

}  // namespace cuzk::ec
