// SPDX-License-Identifier: MIT OR Apache-2.0
// The quadratic extension Fq12 = Fq6[w] / (w^2 - v), the target group's field.
//
// Elements are c0 + c1 w with ci in Fq6; as a polynomial in w over Fq2 the six coefficients of
// w^0..w^5 are c0.c0, c1.c0, c0.c1, c1.c1, c0.c2, c1.c2 (w^2 = v). The layout is the one snarkjs
// prints vk_alphabeta_12 in: [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]].
//
// Besides the field operations this file holds what the pairing needs on top of them:
//  - products with a Miller-loop line, which has only three non-zero Fq2 coefficients
//    (13 Fq2 multiplications instead of 18);
//  - Granger-Scott squaring for elements of the cyclotomic subgroup (norm 1 over Fq6 and over
//    Fq4), the subgroup every value lives in after the easy part of the final exponentiation:
//    "Faster Squaring in the Cyclotomic Subgroup of Sixth Degree Extensions", PKC 2010,
//    ePrint 2009/565. There inversion is conjugation, so the negative digits of a signed
//    exponent recoding cost nothing extra.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fp6.hpp"

namespace cuzk::ff {

template <tower_params P>
class fp12 {
 public:
  using fq6 = fp6<P>;
  using fq2 = typename P::fq2;
  using fq = typename fq2::base;
  using tw = tower<P>;

  fq6 c0{}, c1{};

  constexpr fp12() = default;
  constexpr fp12(const fq6& a0, const fq6& a1) : c0(a0), c1(a1) {}

  static constexpr fp12 zero() { return {}; }
  static constexpr fp12 one() { return {fq6::one(), fq6::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  constexpr bool operator==(const fp12&) const = default;

  friend constexpr fp12 operator+(const fp12& a, const fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp12 operator-(const fp12& a, const fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp12 operator-() const { return {-c0, -c1}; }
  constexpr fp12& operator+=(const fp12& o) { return *this = *this + o; }
  constexpr fp12& operator-=(const fp12& o) { return *this = *this - o; }
  constexpr fp12& operator*=(const fp12& o) { return *this = *this * o; }

  // Karatsuba: 3 Fq6 multiplications.
  friend constexpr fp12 operator*(const fp12& a, const fp12& b) {
    const fq6 v0 = a.c0 * b.c0;
    const fq6 v1 = a.c1 * b.c1;
    return {v0 + v1.mul_by_v(), (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }

  // Complex squaring: (c0 + c1 w)^2 = (c0 + c1)(c0 + v c1) - (1 + v) c0 c1 + 2 c0 c1 w,
  // 2 Fq6 multiplications.
  constexpr fp12 sqr() const {
    const fq6 ab = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_v()) - ab - ab.mul_by_v(), ab.dbl()};
  }

  // x^(q^6): w -> -w, since w^(q^6 - 1) = xi^((q^6 - 1)/6) = -1. On the cyclotomic subgroup this
  // is the inverse.
  constexpr fp12 conjugate() const { return {c0, -c1}; }

  // (c0 + c1 w)(c0 - c1 w) = c0^2 - v c1^2 lies in Fq6.
  constexpr fp12 inverse() const {
    const fq6 t = (c0.sqr() - c1.sqr().mul_by_v()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // x -> x^(q^k): coefficient j of the w-basis picks up gamma[k][j] (ff/tower.hpp). For even k
  // the coefficients lie in Fq, so they cost two base multiplications rather than three.
  constexpr fp12 frobenius_map(std::size_t k) const {
    k %= 12;
    const auto& g = tw::gamma[k];
    const auto u = static_cast<unsigned>(k);
    const auto scale = [&](const fq2& a, const fq2& gamma) {
      const fq2 f = a.frobenius(u);
      return gamma.c1.is_zero() ? f.mul_by_base(gamma.c0) : f * gamma;
    };
    return {fq6{c0.c0.frobenius(u), scale(c0.c1, g[2]), scale(c0.c2, g[4])},
            fq6{scale(c1.c0, g[1]), scale(c1.c1, g[3]), scale(c1.c2, g[5])}};
  }

  // x * (a + b w + c w^3): the shape of a line on a D-type twist (BN254).
  constexpr fp12 mul_by_w013(const fq2& a, const fq2& b, const fq2& c) const {
    const fq6 t0 = c0.mul_by_fq2(a);
    const fq6 t1 = c1.mul_by_01(b, c);
    return {t0 + t1.mul_by_v(), (c0 + c1).mul_by_01(a + b, c) - t0 - t1};
  }
  // x * (a + b w^2 + c w^3): the shape of a line on an M-type twist (BLS12-381).
  constexpr fp12 mul_by_w023(const fq2& a, const fq2& b, const fq2& c) const {
    const fq6 t0 = c0.mul_by_01(a, b);
    const fq6 t1 = c1.mul_by_1(c);
    return {t0 + t1.mul_by_v(), (c0 + c1).mul_by_01(a, b + c) - t0 - t1};
  }

  // Granger-Scott squaring, valid only in the cyclotomic subgroup. View Fq12 as Fq4[W]/(W^3 - t)
  // with Fq4 = Fq2[t]/(t^2 - xi), t = w^3, W = w; then x = z0 + z1 W + z2 W^2 with
  // z0 = (c0.c0, c1.c1), z1 = (c1.c0, c0.c2), z2 = (c0.c1, c1.c2), and
  //   x^2 = (3 z0^2 - 2 conj(z0)) + (3 t z2^2 + 2 conj(z1)) W + (3 z1^2 - 2 conj(z2)) W^2,
  // where conj negates the t-part. Three Fq4 squarings = 6 Fq2 squarings.
  constexpr fp12 cyclotomic_sqr() const {
    const auto fq4_sqr = [](const fq2& x0, const fq2& x1, fq2& r0, fq2& r1) {
      const fq2 t0 = x0.sqr();
      const fq2 t1 = x1.sqr();
      r0 = t0 + tw::mul_by_xi(t1);
      r1 = (x0 + x1).sqr() - t0 - t1;
    };
    fq2 a0, a1, b0, b1, d0, d1;
    fq4_sqr(c0.c0, c1.c1, a0, a1);  // z0^2
    fq4_sqr(c1.c0, c0.c2, b0, b1);  // z1^2
    fq4_sqr(c0.c1, c1.c2, d0, d1);  // z2^2
    // 3s - 2c and 3s + 2c as 2(s -+ c) + s.
    const auto minus = [](const fq2& s, const fq2& cc) { return (s - cc).dbl() + s; };
    const auto plus = [](const fq2& s, const fq2& cc) { return (s + cc).dbl() + s; };
    fp12 r;
    r.c0.c0 = minus(a0, c0.c0);
    r.c1.c1 = plus(a1, c1.c1);
    r.c1.c0 = plus(tw::mul_by_xi(d1), c1.c0);
    r.c0.c2 = minus(d0, c0.c2);
    r.c0.c1 = minus(b0, c0.c1);
    r.c1.c2 = plus(b1, c1.c2);
    return r;
  }

  // x^e for x in the cyclotomic subgroup by a signed sliding window: e is recoded into digits
  // that are zero or odd with |d| < 2^(w-1) (w = 1: plain binary; w = 2: NAF), x^-d is the
  // conjugate of x^d, and the odd powers x, x^3, .., x^(2^(w-1) - 1) are computed first. The
  // window is chosen per exponent by counting operations, a cyclotomic squaring weighing 4 and a
  // product 9 (measured: 1.7 us and 3.8 us on BN254). BN254's x (63 bits) then needs 16 products
  // at w = 4 instead of 23 at w = 2; BLS12-381's x, with 6 set bits, stays plain binary.
  constexpr fp12 cyclotomic_pow(uint64_t e) const {
    if (e == 0) return one();
    window_digits best = recode(e, 1);
    for (unsigned w = 2; w <= max_window; ++w) {
      const window_digits c = recode(e, w);
      if (c.cost() < best.cost()) best = c;
    }
    fp12 odd[std::size_t{1} << (max_window - 2)];  // x^1, x^3, x^5, ...
    odd[0] = *this;
    if (best.w > 2) {
      const fp12 x2 = cyclotomic_sqr();
      for (std::size_t i = 1; i < (std::size_t{1} << (best.w - 2)); ++i) odd[i] = odd[i - 1] * x2;
    }
    const auto power = [&](int d) { return d > 0 ? odd[d / 2] : odd[-d / 2].conjugate(); };
    fp12 acc = power(best.d[best.n - 1]);
    for (std::size_t i = best.n - 1; i-- > 0;) {
      acc = acc.cyclotomic_sqr();
      if (best.d[i] != 0) acc *= power(best.d[i]);
    }
    return acc;
  }

  // Plain square-and-multiply; for tests and constants, not for the hot path.
  template <std::size_t M>
  constexpr fp12 pow(const bigint<M>& e) const {
    fp12 acc = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      acc = acc.sqr();
      if (e.bit(i)) acc *= *this;
    }
    return acc;
  }

  template <class Rng>
  static fp12 random(Rng& rng) {
    const fq6 a = fq6::random(rng);
    return {a, fq6::random(rng)};
  }

 private:
  static constexpr unsigned max_window = 5;
  struct window_digits {
    int8_t d[66] = {};  // least significant first; the top digit is positive
    std::size_t n = 0, nonzero = 0;
    unsigned w = 1;
    constexpr std::size_t cost() const {
      const std::size_t table = w > 2 ? (std::size_t{1} << (w - 2)) - 1 : 0;
      return 4 * (n - 1 + (w > 2 ? 1 : 0)) + 9 * (nonzero - 1 + table);
    }
  };
  static constexpr window_digits recode(uint64_t e, unsigned w) {
    window_digits r;
    r.w = w;
    for (unsigned __int128 k = e; k != 0; k >>= 1) {
      int d = 0;
      if (k & 1) {
        d = 1;
        if (w > 1) {
          d = static_cast<int>(k & ((1u << w) - 1));
          if (d >= (1 << (w - 1))) d -= 1 << w;
        }
        k -= static_cast<unsigned __int128>(static_cast<__int128>(d));  // k becomes 0 mod 2^w
        ++r.nonzero;
      }
      r.d[r.n++] = static_cast<int8_t>(d);
    }
    return r;
  }
};

}  // namespace cuzk::ff
