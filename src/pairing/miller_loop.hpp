// SPDX-License-Identifier: MIT OR Apache-2.0
// The Miller loop of the optimal ate pairing, for any number of (P, Q) pairs at once.
//
// Every pair keeps its own running point T on the twist, but all pairs share one accumulator f:
// each step squares f once and multiplies in one line per pair. Pairs with a point at infinity
// are dropped up front (their Miller function is 1).
//
// BN (Vercauteren, "Optimal Pairings", ePrint 2008/096): after the loop over 6x + 2, two more lines:
// through T and Q1 = pi(Q), then through T + Q1 and Q2 = -pi^2(Q), where pi is the q-power
// Frobenius carried to the twist. For a D-type twist, untwisting multiplies x by w^2 and y by w^3,
// so pi(x, y) = (conj(x) w^(2(q-1)), conj(y) w^(3(q-1))) with w^(q-1) = xi^((q-1)/6), the tower's
// gamma[1][1]; two applications give gamma[2][2] and gamma[2][3] without conjugation.
// BLS12: the loop runs over |x|; f_{x,Q} for x < 0 is 1/f_{|x|,Q} times a vertical line, which
// the final exponentiation turns into the conjugate of f.
//
// Include this only where the templates are instantiated (pairing_<curve>.cpp) or tested.
#pragma once

#include <cstddef>
#include <vector>

#include "pairing/line_steps.hpp"
#include "pairing/pairing.hpp"
#include "pairing/pairing_params.hpp"

namespace cuzk::pairing {

template <class Curve>
fq12<Curve> miller_loop(std::span<const g1g2_pair<Curve>> pairs) {
  using params = pairing_params<Curve>;
  using fq = typename Curve::fq;
  using fq2 = typename Curve::fq2;
  using f12 = fq12<Curve>;
  constexpr twist_type twist = params::twist;
  constexpr auto digits = params::loop_digits;
  static constexpr fq2 three_b = Curve::g2_b.dbl() + Curve::g2_b;

  struct lane {
    fq xp, yp;
    fq2 qx, qy;
    g2_homogeneous<fq2> t;
  };
  std::vector<lane> lanes;
  lanes.reserve(pairs.size());
  for (const auto& pq : pairs) {
    if (pq.p.is_infinity() || pq.q.is_infinity()) continue;
    lanes.push_back({pq.p.x, pq.p.y, pq.q.x, pq.q.y, {pq.q.x, pq.q.y, fq2::one()}});
  }

  f12 f = f12::one();
  if (lanes.empty()) return f;

  // The top digit is 1: T starts at Q.
  for (std::size_t i = digits.length - 1; i-- > 0;) {
    if (i != digits.length - 2) f = f.sqr();  // f is still 1 on the first step
    for (auto& s : lanes) f = mul_by_line<twist>(f, double_step(s.t, three_b), s.xp, s.yp);
    if (digits.d[i] > 0) {
      for (auto& s : lanes) f = mul_by_line<twist>(f, add_step(s.t, s.qx, s.qy), s.xp, s.yp);
    } else if (digits.d[i] < 0) {
      for (auto& s : lanes) f = mul_by_line<twist>(f, add_step(s.t, s.qx, -s.qy), s.xp, s.yp);
    }
  }

  if constexpr (params::family == curve_family::bn) {
    const auto& g1 = ff::tower<Curve>::gamma[1];
    const auto& g2 = ff::tower<Curve>::gamma[2];
    for (auto& s : lanes) {
      const fq2 q1x = s.qx.conjugate() * g1[2], q1y = s.qy.conjugate() * g1[3];
      const fq2 q2x = s.qx * g2[2], q2y = -(s.qy * g2[3]);
      f = mul_by_line<twist>(f, add_step(s.t, q1x, q1y), s.xp, s.yp);
      f = mul_by_line<twist>(f, add_step(s.t, q2x, q2y), s.xp, s.yp);
    }
  }
  if constexpr (params::x_is_negative) f = f.conjugate();
  return f;
}

}  // namespace cuzk::pairing
