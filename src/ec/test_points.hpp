// SPDX-License-Identifier: MIT OR Apache-2.0
// Test-only helpers shared by the point and encoding tests: random points on the curve (in the
// subgroup or, when the cofactor is not 1, usually not), and the textbook affine chord-and-tangent
// addition as an oracle that shares no code with the projective formulas.
#pragma once

#include <cstdint>
#include <random>

#include "ec/affine.hpp"
#include "ec/group.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::ec::testing {

// A uniformly random point of E (not only of the subgroup): draw x until x^3 + b is a square,
// then take either root. No cofactor clearing, so for h > 1 the result is almost never in G.
template <class G, class Rng>
typename G::affine random_curve_point(Rng& rng) {
  using F = typename G::field;
  for (;;) {
    const F x = F::random(rng);
    const auto y = (x.sqr() * x + G::b).sqrt();
    if (!y) continue;
    return {x, (rng() & 1) ? *y : -*y};
  }
}

// [k]G for a random k: uniform in the subgroup.
template <class G, class Rng>
typename G::jacobian random_subgroup_point(Rng& rng) {
  return scalar_mul(G::jacobian::from_affine(G::generator), G::scalar::random(rng));
}

// P + Q by the affine group law, one inversion per addition.
template <class F>
affine<F> affine_add(const affine<F>& p, const affine<F>& q) {
  if (p.is_infinity()) return q;
  if (q.is_infinity()) return p;
  F lambda;
  if (p.x == q.x) {
    if (p.y != q.y || p.y.is_zero()) return affine<F>::infinity();
    const F x2 = p.x.sqr();
    lambda = (x2.dbl() + x2) * p.y.dbl().inverse();  // 3x^2 / 2y
  } else {
    lambda = (q.y - p.y) * (q.x - p.x).inverse();
  }
  const F x3 = lambda.sqr() - p.x - q.x;
  return {x3, lambda * (p.x - x3) - p.y};
}

}  // namespace cuzk::ec::testing
