// SPDX-License-Identifier: MIT OR Apache-2.0
// The quadratic extension Fq2 = Fq[u] / (u^2 + 1), the G2 coordinate field of both curves.
//
// Both BN254 and BLS12-381 have q = 3 mod 4, so -1 is a non-residue and u^2 = -1 on each; the
// template is therefore over the base field alone. Element order is (c0, c1) = c0 + c1*u, the
// order snarkjs writes G2 coordinates in.
#pragma once

#include <optional>

#include "ff/fp.hpp"

namespace cuzk::ff {

template <class Fq>
class fp2 {
 public:
  using base = Fq;
  static_assert((Fq::modulus.limb[0] & 3) == 3, "u^2 = -1 needs q = 3 mod 4");

  Fq c0{}, c1{};

  constexpr fp2() = default;
  constexpr fp2(const Fq& a0, const Fq& a1) : c0(a0), c1(a1) {}
  explicit constexpr fp2(const Fq& a0) : c0(a0) {}

  static constexpr fp2 zero() { return {}; }
  static constexpr fp2 one() { return fp2(Fq::one()); }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const fp2&) const = default;

  friend constexpr fp2 operator+(const fp2& a, const fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp2 operator-(const fp2& a, const fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 base multiplications.
  friend constexpr fp2 operator*(const fp2& a, const fp2& b) {
    const Fq v0 = a.c0 * b.c0;
    const Fq v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  constexpr fp2& operator+=(const fp2& o) { return *this = *this + o; }
  constexpr fp2& operator-=(const fp2& o) { return *this = *this - o; }
  constexpr fp2& operator*=(const fp2& o) { return *this = *this * o; }

  constexpr fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 base multiplications.
  constexpr fp2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  constexpr fp2 mul_by_base(const Fq& s) const { return {c0 * s, c1 * s}; }
  constexpr fp2 conjugate() const { return {c0, -c1}; }
  // x^q is the conjugate (u^q = -u since q = 3 mod 4); odd powers of Frobenius conjugate.
  constexpr fp2 frobenius(unsigned power) const { return (power & 1) ? conjugate() : *this; }
  constexpr Fq norm() const { return c0.sqr() + c1.sqr(); }
  constexpr fp2 inverse() const {
    const Fq t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <std::size_t M>
  constexpr fp2 pow(const bigint<M>& e) const {
    fp2 acc = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      acc = acc.sqr();
      if (e.bit(i)) acc *= *this;
    }
    return acc;
  }

  // Legendre symbol of the norm: x is a square in Fq2 iff its norm is a square in Fq.
  constexpr int legendre() const { return norm().legendre(); }

  // A square root, or nullopt. Algorithm 9 of Adj and Rodriguez-Henriquez, "Square root
  // computation over even extension fields" (ePrint 2012/685), valid for q = 3 mod 4.
  std::optional<fp2> sqrt() const {
    if (is_zero()) return *this;
    constexpr auto q_minus_3_over_4 = mont::shr1(mont::shr1(mont::sub_small(Fq::modulus, 3)));
    const fp2 a1 = pow(q_minus_3_over_4);
    const fp2 alpha = a1 * (a1 * *this);
    const fp2 x0 = a1 * *this;
    fp2 x;
    if (alpha == -one()) {
      x = {-x0.c1, x0.c0};  // u * x0
    } else {
      x = (alpha + one()).pow(Fq::half_minus) * x0;
    }
    if (x.sqr() != *this) return std::nullopt;
    return x;
  }

  template <class Rng>
  static fp2 random(Rng& rng) {
    const Fq a = Fq::random(rng);
    return {a, Fq::random(rng)};
  }
};

}  // namespace cuzk::ff
