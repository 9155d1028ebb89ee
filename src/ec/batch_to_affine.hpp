// SPDX-License-Identifier: MIT OR Apache-2.0
// Converting many projective points (jacobian or xyzz) to affine with a single field inversion.
//
// Montgomery's trick: with prefix products a_i = d_0 d_1 ... d_{i-1} of the denominators and
// one inverse t = (d_0 ... d_{n-1})^-1, walking backwards gives 1/d_i = t a_i and then t <- t d_i.
// Cost 3(n-1) multiplications plus one inversion instead of n inversions (an inversion is a
// ~380-bit exponentiation, hundreds of multiplications).
//
// The prefix products are kept in the x coordinates of the output array itself, so no scratch
// memory is needed (the same code can run on the device, one block per chunk). Points at
// infinity are skipped (they would make the product zero) and come out as (0, 0).
#pragma once

#include <cstddef>

#include "base/hd.hpp"
#include "ec/affine.hpp"

namespace cuzk::ec {

// `in` and `out` must not overlap. P is jacobian<F> or xyzz<F>.
template <class P>
CUZK_HD constexpr void batch_to_affine(const P* in, affine<typename P::field>* out, std::size_t n) {
  using F = typename P::field;
  F acc = F::one();
  for (std::size_t i = 0; i < n; ++i) {
    if (in[i].is_infinity()) continue;
    out[i].x = acc;
    acc *= in[i].denominator();
  }
  F inv = acc.inverse();
  for (std::size_t i = n; i-- > 0;) {
    if (in[i].is_infinity()) {
      out[i] = affine<F>::infinity();
      continue;
    }
    const F d_inv = inv * out[i].x;
    inv *= in[i].denominator();
    out[i] = in[i].to_affine_given_inverse(d_inv);
  }
}

}  // namespace cuzk::ec
