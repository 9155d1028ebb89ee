// SPDX-License-Identifier: MIT OR Apache-2.0
// A prime field in Montgomery form on the CPU: N 64-bit limbs, value stored as a*R mod p with
// R = 2^(64N).
//
// One template serves all four fields of the two curves (BN254 Fq/Fr, BLS12-381 Fq/Fr). A field
// is declared by a parameter struct holding only its modulus (see curves/); every other constant
// (R mod p, R^2 mod p, -p^-1 mod 2^64, (p-1)/2, the 2-adic split of p-1) is derived here at
// compile time, so nothing derived is ever pasted by hand.
//
// Multiplication is CIOS Montgomery with the "no carry" shortcut (Koc, Acar, Kaliski 1996, with
// the refinement used by gnark-crypto): when the top limb of p is below 2^63 - 1 the running sum
// never needs an extra limb. All four moduli of the two curves satisfy this (static_assert'd).
// Values are kept fully reduced (< p), so equality is limb equality.
//
// The device twin (gpu/fp_device.cuh) uses 32-bit limbs and reads the same parameter struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "ff/bigint.hpp"
#include "ff/mont_math.hpp"

namespace cuzk::ff {

template <class P>
class fp {
 public:
  using params = P;
  using repr = std::remove_cv_t<decltype(P::modulus)>;
  static constexpr std::size_t N = repr::num_limbs;
  static constexpr std::size_t num_bytes = 8 * N;

  static constexpr repr modulus = P::modulus;
  static constexpr std::size_t bits = modulus.bit_length();
  static constexpr uint64_t inv = mont::neg_inverse_mod_2_64(modulus.limb[0]);  // -p^-1 mod 2^64
  static constexpr repr r1 = mont::pow2_mod(modulus, 64 * N);      // R mod p (Montgomery 1)
  static constexpr repr r2 = mont::pow2_mod(modulus, 2 * 64 * N);  // R^2 mod p
  static constexpr repr half_minus = mont::shr1(mont::sub_one(modulus));  // (p - 1) / 2
  // p - 1 = 2^two_adicity * odd_part
  static constexpr std::size_t two_adicity = mont::two_adicity(modulus);
  static constexpr repr odd_part = mont::odd_part(modulus);

  static_assert(modulus.is_odd(), "Montgomery form needs an odd modulus");
  static_assert(modulus.limb[N - 1] < 0x7fffffffffffffffULL,
                "the no-carry Montgomery multiplication needs a spare bit at the top");
  static_assert(static_cast<uint64_t>(modulus.limb[0] * (0 - inv)) == 1, "inv must be -p^-1 mod 2^64");

  constexpr fp() = default;  // zero

  static constexpr fp zero() { return fp{}; }
  static constexpr fp one() { return from_montgomery(r1); }
  // Wraps limbs that are already a*R mod p (e.g. read from a .zkey). The caller guarantees < p.
  static constexpr fp from_montgomery(const repr& raw) {
    fp r;
    r.v_ = raw;
    return r;
  }
  static constexpr fp from_uint(uint64_t v) { return from_canonical_unchecked(repr::from_u64(v)); }
  // a -> a*R. The caller guarantees a < p.
  static constexpr fp from_canonical_unchecked(const repr& a) { return from_montgomery(a) * from_montgomery(r2); }
  static constexpr std::optional<fp> from_canonical(const repr& a) {
    if (a >= modulus) return std::nullopt;
    return from_canonical_unchecked(a);
  }
  // Decimal or 0x-hex text, canonical (< p) only.
  static std::optional<fp> from_string(std::string_view s) {
    const auto a = repr::parse(s);
    if (!a) return std::nullopt;
    return from_canonical(*a);
  }
  // For constants in headers. repr::literal's result is passed on, not kept in a local: clang 14
  // refuses a local initialized by a consteval call inside a consteval member of a class template
  // ("not a constant expression"), which the standard allows and GCC accepts.
  static consteval fp literal(std::string_view s) { return literal_below_modulus(repr::literal(s)); }

  constexpr repr to_canonical() const { return (*this * from_montgomery(repr::from_u64(1))).v_; }
  constexpr const repr& montgomery() const { return v_; }

  constexpr bool is_zero() const { return v_.is_zero(); }
  constexpr bool is_one() const { return v_ == r1; }
  constexpr bool operator==(const fp&) const = default;

  // ---- arithmetic --------------------------------------------------------------------------
  friend constexpr fp operator+(const fp& a, const fp& b) {
    fp r;
    mont::add_mod<N>(r.v_.limb, a.v_.limb, b.v_.limb, modulus.limb);
    return r;
  }
  friend constexpr fp operator-(const fp& a, const fp& b) {
    fp r;
    mont::sub_mod<N>(r.v_.limb, a.v_.limb, b.v_.limb, modulus.limb);
    return r;
  }
  friend constexpr fp operator*(const fp& a, const fp& b) {
    fp r;
    mont::mul<N>(r.v_.limb, a.v_.limb, b.v_.limb, modulus.limb, inv);
    return r;
  }
  constexpr fp operator-() const {
    fp r;
    mont::sub_mod<N>(r.v_.limb, repr{}.limb, v_.limb, modulus.limb);
    return r;
  }
  constexpr fp& operator+=(const fp& o) { return *this = *this + o; }
  constexpr fp& operator-=(const fp& o) { return *this = *this - o; }
  constexpr fp& operator*=(const fp& o) { return *this = *this * o; }

  constexpr fp dbl() const { return *this + *this; }
  constexpr fp sqr() const {
    fp r;
    mont::sqr<N>(r.v_.limb, v_.limb, modulus.limb, inv);
    return r;
  }
  // a / 2 (used by tower and point formulas that halve).
  constexpr fp half() const {
    fp r = *this;
    uint64_t carry = 0;
    if (r.v_.is_odd()) carry = r.v_.add_in_place(modulus);
    r.v_.shr1();
    r.v_.limb[N - 1] |= carry << 63;
    return r;
  }

  template <std::size_t M>
  constexpr fp pow(const bigint<M>& e) const {
    fp acc = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      acc = acc.sqr();
      if (e.bit(i)) acc *= *this;
    }
    return acc;
  }
  constexpr fp pow(uint64_t e) const { return pow(bigint<1>::from_u64(e)); }

  // Multiplicative inverse; the inverse of zero is defined as zero (callers that care check).
  constexpr fp inverse() const { return pow(mont::sub_small(modulus, 2)); }

  // Legendre symbol: 0 for zero, 1 for a non-zero square, -1 otherwise.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    return pow(half_minus).is_one() ? 1 : -1;
  }

  // A square root, or nullopt for a non-square. Tonelli-Shanks, with the (p+1)/4 shortcut when
  // p = 3 mod 4 (both base fields). Which of the two roots is returned is unspecified.
  std::optional<fp> sqrt() const;

  // ---- encodings ---------------------------------------------------------------------------
  void to_bytes_le(uint8_t* out) const { to_canonical().to_bytes_le(out); }
  void to_bytes_be(uint8_t* out) const { to_canonical().to_bytes_be(out); }
  static std::optional<fp> from_bytes_le(const uint8_t* in) { return from_canonical(repr::from_bytes_le(in)); }
  static std::optional<fp> from_bytes_be(const uint8_t* in) { return from_canonical(repr::from_bytes_be(in)); }
  std::string to_decimal() const { return to_canonical().to_decimal(); }
  std::string to_hex() const { return to_canonical().to_hex(); }

  // Uniform in [0, p) by rejection from the top `bits` bits of fresh 64-bit draws.
  template <class Rng>
  static fp random(Rng& rng) {
    static_assert(sizeof(typename Rng::result_type) == 8, "random() draws 64-bit words");
    for (;;) {
      repr a;
      for (std::size_t i = 0; i < N; ++i) a.limb[i] = rng();
      if (bits % 64 != 0) a.limb[N - 1] &= (uint64_t{1} << (bits % 64)) - 1;
      if (a < modulus) return from_canonical_unchecked(a);
    }
  }

 private:
  static consteval fp literal_below_modulus(const repr& a) {
    if (a >= modulus) throw "fp::literal: constant not below the modulus";
    return from_canonical_unchecked(a);
  }

  repr v_{};
};

template <class P>
std::optional<fp<P>> fp<P>::sqrt() const {
  if (is_zero()) return *this;
  if (legendre() != 1) return std::nullopt;
  if ((modulus.limb[0] & 3) == 3) {
    constexpr repr e = mont::shr1(mont::shr1(mont::add_one(modulus)));  // (p + 1) / 4
    return pow(e);
  }
  // Tonelli-Shanks with z = the least quadratic non-residue.
  static const fp c_init = [] {
    fp z = fp::from_uint(2);
    while (z.legendre() != -1) z += one();
    return z.pow(odd_part);
  }();
  fp c = c_init;
  std::size_t m = two_adicity;
  fp t = pow(odd_part);
  fp x = pow(mont::shr1(mont::add_one(odd_part)));  // a^((t+1)/2)
  while (!t.is_one()) {
    std::size_t i = 0;
    fp t2 = t;
    while (!t2.is_one()) {
      t2 = t2.sqr();
      ++i;
    }
    fp b = c;
    for (std::size_t j = 0; j + i + 1 < m; ++j) b = b.sqr();
    m = i;
    c = b.sqr();
    t *= c;
    x *= b;
  }
  return x;
}

}  // namespace cuzk::ff
