// SPDX-License-Identifier: MIT OR Apache-2.0
// The cubic extension Fq6 = Fq2[v] / (v^3 - xi), the middle floor of the pairing tower.
//
// Elements are c0 + c1 v + c2 v^2 with ci in Fq2, the order snarkjs prints them in. Formulas
// follow Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and Squaring on Pairing-Friendly
// Fields" (ePrint 2006/471): Karatsuba multiplication (6 Fq2 multiplications instead of 9) and
// the Chung-Hasan "SQR2" squaring (2 multiplications + 3 squarings). The sparse products
// mul_by_01 / mul_by_1 exist because a Miller-loop line, written in Fq12 = Fq6[w], has Fq6
// halves with only one or two non-zero coefficients; skipping the zeros is most of what makes
// the loop fast.
#pragma once

#include <cstddef>

#include "ff/tower.hpp"

namespace cuzk::ff {

template <tower_params P>
class fp6 {
 public:
  using fq2 = typename P::fq2;
  using fq = typename fq2::base;
  using tw = tower<P>;

  fq2 c0{}, c1{}, c2{};

  constexpr fp6() = default;
  constexpr fp6(const fq2& a0, const fq2& a1, const fq2& a2) : c0(a0), c1(a1), c2(a2) {}
  explicit constexpr fp6(const fq2& a0) : c0(a0) {}

  static constexpr fp6 zero() { return {}; }
  static constexpr fp6 one() { return fp6(fq2::one()); }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
  constexpr bool operator==(const fp6&) const = default;

  friend constexpr fp6 operator+(const fp6& a, const fp6& b) {
    return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
  }
  friend constexpr fp6 operator-(const fp6& a, const fp6& b) {
    return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
  }
  constexpr fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  constexpr fp6& operator+=(const fp6& o) { return *this = *this + o; }
  constexpr fp6& operator-=(const fp6& o) { return *this = *this - o; }
  constexpr fp6& operator*=(const fp6& o) { return *this = *this * o; }

  // Karatsuba over three coefficients.
  friend constexpr fp6 operator*(const fp6& a, const fp6& b) {
    const fq2 v0 = a.c0 * b.c0;
    const fq2 v1 = a.c1 * b.c1;
    const fq2 v2 = a.c2 * b.c2;
    return {v0 + tw::mul_by_xi((a.c1 + a.c2) * (b.c1 + b.c2) - v1 - v2),
            (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1 + tw::mul_by_xi(v2),
            (a.c0 + a.c2) * (b.c0 + b.c2) - v0 - v2 + v1};
  }

  // Chung-Hasan SQR2: s2 = (c0 - c1 + c2)^2 carries the cross terms that are not computed
  // directly.
  constexpr fp6 sqr() const {
    const fq2 s0 = c0.sqr();
    const fq2 s1 = (c0 * c1).dbl();
    const fq2 s2 = (c0 - c1 + c2).sqr();
    const fq2 s3 = (c1 * c2).dbl();
    const fq2 s4 = c2.sqr();
    return {s0 + tw::mul_by_xi(s3), s1 + tw::mul_by_xi(s4), s1 + s2 + s3 - s0 - s4};
  }

  // x * v: the coefficients shift up and v^3 wraps around to xi.
  constexpr fp6 mul_by_v() const { return {tw::mul_by_xi(c2), c0, c1}; }
  constexpr fp6 mul_by_fq2(const fq2& s) const { return {c0 * s, c1 * s, c2 * s}; }

  // x * (b0 + b1 v): Karatsuba with b2 = 0, 5 Fq2 multiplications.
  constexpr fp6 mul_by_01(const fq2& b0, const fq2& b1) const {
    const fq2 v0 = c0 * b0;
    const fq2 v1 = c1 * b1;
    return {v0 + tw::mul_by_xi(c2 * b1), (c0 + c1) * (b0 + b1) - v0 - v1, (c0 + c2) * b0 - v0 + v1};
  }
  // x * (b1 v), 3 Fq2 multiplications.
  constexpr fp6 mul_by_1(const fq2& b1) const { return {tw::mul_by_xi(c2 * b1), c0 * b1, c1 * b1}; }

  // The inverse via the adjugate: with t0 = c0^2 - xi c1 c2, t1 = xi c2^2 - c0 c1,
  // t2 = c1^2 - c0 c2, x (t0 + t1 v + t2 v^2) = c0 t0 + xi (c2 t1 + c1 t2), an Fq2 element.
  // The inverse of zero is zero.
  constexpr fp6 inverse() const {
    const fq2 t0 = c0.sqr() - tw::mul_by_xi(c1 * c2);
    const fq2 t1 = tw::mul_by_xi(c2.sqr()) - c0 * c1;
    const fq2 t2 = c1.sqr() - c0 * c2;
    const fq2 d = (c0 * t0 + tw::mul_by_xi(c2 * t1 + c1 * t2)).inverse();
    return {t0 * d, t1 * d, t2 * d};
  }

  // x -> x^(q^k): each coefficient is raised to q^k (conjugated for odd k) and v^i picks up
  // v^(i (q^k - 1)) = w^(2i (q^k - 1)) = gamma[k][2i].
  constexpr fp6 frobenius_map(std::size_t k) const {
    k %= 12;
    const auto& g = tw::gamma[k];
    return {c0.frobenius(static_cast<unsigned>(k)), c1.frobenius(static_cast<unsigned>(k)) * g[2],
            c2.frobenius(static_cast<unsigned>(k)) * g[4]};
  }

  template <class Rng>
  static fp6 random(Rng& rng) {
    const fq2 a = fq2::random(rng);
    const fq2 b = fq2::random(rng);
    return {a, b, fq2::random(rng)};
  }
};

}  // namespace cuzk::ff
