// SPDX-License-Identifier: MIT OR Apache-2.0
// Test-only: a deliberately naive affine double-and-add with one inversion per step. Slow, but
// too simple to share a bug with the projective formulas the pairing tests check, so the tests
// make their points with it.
#pragma once

#include <cstddef>

#include "ec/affine.hpp"
#include "ff/bigint.hpp"

namespace cuzk::pairing::test_util {

template <class F>
ec::affine<F> affine_dbl(const ec::affine<F>& p) {
  if (p.is_infinity() || p.y.is_zero()) return ec::affine<F>::infinity();
  const F x2 = p.x.sqr();
  const F lambda = (x2.dbl() + x2) * p.y.dbl().inverse();
  const F x3 = lambda.sqr() - p.x.dbl();
  return {x3, lambda * (p.x - x3) - p.y};
}

template <class F>
ec::affine<F> affine_add(const ec::affine<F>& p, const ec::affine<F>& q) {
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  if (p.x == q.x) return p.y == q.y ? affine_dbl(p) : ec::affine<F>::infinity();
  const F lambda = (q.y - p.y) * (q.x - p.x).inverse();
  const F x3 = lambda.sqr() - p.x - q.x;
  return {x3, lambda * (p.x - x3) - p.y};
}

template <class F, std::size_t N>
ec::affine<F> affine_mul(const ec::affine<F>& p, const ff::bigint<N>& k) {
  ec::affine<F> acc = ec::affine<F>::infinity();
  for (std::size_t i = k.bit_length(); i-- > 0;) {
    acc = affine_dbl(acc);
    if (k.bit(i)) acc = affine_add(acc, p);
  }
  return acc;
}

}  // namespace cuzk::pairing::test_util
