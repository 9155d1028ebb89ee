// SPDX-License-Identifier: MIT OR Apache-2.0
// The reference multi-scalar multiplication: sum_i [s_i] P_i, one scalar multiplication at a time.
//
// Deliberately the obviously-correct version, with no bucket or window logic shared with the real
// MSMs (msm/ on the CPU, gpu/ on the device), so that it can serve as their oracle. It is
// O(n * bits) group operations: fine for the few thousand points tests use, far too slow for a
// proving key.
#pragma once

#include <cstddef>

#include "base/hd.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::ec {

// Scalars are anything scalar_mul takes: Fr elements, bigints or uint64_t. Infinity points and
// zero scalars are allowed and contribute nothing.
template <class F, class S>
CUZK_HD constexpr jacobian<F> naive_msm(const affine<F>* points, const S* scalars, std::size_t n) {
  jacobian<F> acc = jacobian<F>::infinity();
  for (std::size_t i = 0; i < n; ++i) acc += scalar_mul(points[i], scalars[i]);
  return acc;
}

}  // namespace cuzk::ec
