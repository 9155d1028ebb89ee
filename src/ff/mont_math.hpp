// SPDX-License-Identifier: MIT OR Apache-2.0
// Limb-level Montgomery kernels for the CPU field (fp.hpp), and the constexpr helpers that derive
// a field's constants from its modulus.
//
// The portable kernels are written over `unsigned __int128` with compile-time trip counts. They
// are constexpr so that constants (Frobenius coefficients, roots of unity) are computed by the
// compiler. At run time, on x86-64 with BMI2/ADX, the 4- and 6-limb cases dispatch to the
// generated assembly in mont_x86_64.hpp: measured on the 2-core AMD EPYC dev machine, a
// BLS12-381 Fq multiply took 108 ns as __int128 C++ (g++ 12 spills the two carry chains) against
// the assembly's figure in docs/BENCHMARKS.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ff/bigint.hpp"
#include "ff/mont_x86_64.hpp"

namespace cuzk::ff::mont {

using u128 = unsigned __int128;

// ---- constant derivation (compile time) ------------------------------------------------------

// -p0^-1 mod 2^64 by Newton iteration (each step doubles the correct low bits).
constexpr uint64_t neg_inverse_mod_2_64(uint64_t p0) {
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - p0 * x;
  return 0 - x;
}

// 2^k mod p by repeated doubling.
template <std::size_t N>
constexpr bigint<N> pow2_mod(const bigint<N>& p, std::size_t k) {
  bigint<N> r = bigint<N>::from_u64(1);
  for (std::size_t i = 0; i < k; ++i) {
    const uint64_t top = r.shl1();
    if (top != 0 || r >= p) r.sub_in_place(p);
  }
  return r;
}

template <std::size_t N>
constexpr bigint<N> shr1(bigint<N> a) {
  a.shr1();
  return a;
}
template <std::size_t N>
constexpr bigint<N> sub_small(bigint<N> a, uint64_t s) {
  a.sub_in_place(bigint<N>::from_u64(s));
  return a;
}
template <std::size_t N>
constexpr bigint<N> sub_one(const bigint<N>& a) {
  return sub_small(a, 1);
}
template <std::size_t N>
constexpr bigint<N> add_one(bigint<N> a) {
  a.add_in_place(bigint<N>::from_u64(1));
  return a;
}
template <std::size_t N>
constexpr std::size_t two_adicity(const bigint<N>& p) {
  bigint<N> t = sub_one(p);
  std::size_t s = 0;
  while (!t.is_odd()) {
    t.shr1();
    ++s;
  }
  return s;
}
template <std::size_t N>
constexpr bigint<N> odd_part(const bigint<N>& p) {
  bigint<N> t = sub_one(p);
  while (!t.is_odd()) t.shr1();
  return t;
}

// ---- run-time kernels ------------------------------------------------------------------------

// r = a + b mod p, inputs < p. The spare top bit of p means a + b cannot carry out of N limbs.
template <std::size_t N>
constexpr void add_mod_portable(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {
  uint64_t s[N];
  uint64_t carry = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 t = static_cast<u128>(a[i]) + b[i] + carry;
    s[i] = static_cast<uint64_t>(t);
    carry = static_cast<uint64_t>(t >> 64);
  }
  uint64_t d[N];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 t = static_cast<u128>(s[i]) - p[i] - borrow;
    d[i] = static_cast<uint64_t>(t);
    borrow = static_cast<uint64_t>(t >> 64) & 1;
  }
  // borrow set: s < p, keep s.
  const uint64_t keep_s = 0 - borrow;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) r[i] = (s[i] & keep_s) | (d[i] & ~keep_s);
}

// r = a - b mod p, inputs < p.
template <std::size_t N>
constexpr void sub_mod_portable(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {
  uint64_t d[N];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 t = static_cast<u128>(a[i]) - b[i] - borrow;
    d[i] = static_cast<uint64_t>(t);
    borrow = static_cast<uint64_t>(t >> 64) & 1;
  }
  const uint64_t mask = 0 - borrow;  // add p back when the subtraction wrapped
  uint64_t carry = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 t = static_cast<u128>(d[i]) + (p[i] & mask) + carry;
    r[i] = static_cast<uint64_t>(t);
    carry = static_cast<uint64_t>(t >> 64);
  }
}

// Final step of a Montgomery product: t < 2p, so one conditional subtraction reduces it.
template <std::size_t N>
constexpr void reduce_once(uint64_t* r, const uint64_t* t, const uint64_t* p) {
  uint64_t d[N];
  uint64_t borrow = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 x = static_cast<u128>(t[i]) - p[i] - borrow;
    d[i] = static_cast<uint64_t>(x);
    borrow = static_cast<uint64_t>(x >> 64) & 1;
  }
  const uint64_t keep_t = 0 - borrow;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) r[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

// r = a * b * R^-1 mod p (CIOS, no-carry variant). r may alias a or b.
template <std::size_t N>
constexpr void mul_portable(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p,
                            uint64_t inv) {
  uint64_t t[N] = {};
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    u128 x = static_cast<u128>(a[0]) * b[i] + t[0];
    uint64_t c = static_cast<uint64_t>(x >> 64);
    const uint64_t t0 = static_cast<uint64_t>(x);
    const uint64_t m = t0 * inv;
    u128 y = static_cast<u128>(m) * p[0] + t0;
    uint64_t c2 = static_cast<uint64_t>(y >> 64);
#pragma GCC unroll 8
    for (std::size_t j = 1; j < N; ++j) {
      x = static_cast<u128>(a[j]) * b[i] + t[j] + c;
      c = static_cast<uint64_t>(x >> 64);
      y = static_cast<u128>(m) * p[j] + static_cast<uint64_t>(x) + c2;
      c2 = static_cast<uint64_t>(y >> 64);
      t[j - 1] = static_cast<uint64_t>(y);
    }
    t[N - 1] = c + c2;
  }
  reduce_once<N>(r, t, p);
}

// r = a^2 * R^-1 mod p. Computes the 2N-limb square with the off-diagonal products once, then a
// separate Montgomery reduction (cheaper than mul by ~N(N-1)/2 multiplications).
template <std::size_t N>
constexpr void sqr_portable(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  uint64_t w[2 * N] = {};
  // Off-diagonal products a[i]*a[j], i < j.
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    uint64_t c = 0;
#pragma GCC unroll 8
    for (std::size_t j = i + 1; j < N; ++j) {
      const u128 x = static_cast<u128>(a[i]) * a[j] + w[i + j] + c;
      w[i + j] = static_cast<uint64_t>(x);
      c = static_cast<uint64_t>(x >> 64);
    }
    w[i + N] = c;
  }
  // Double them, then add the squares on the diagonal.
  uint64_t top = 0;
#pragma GCC unroll 16
  for (std::size_t k = 0; k < 2 * N; ++k) {
    const uint64_t nt = w[k] >> 63;
    w[k] = (w[k] << 1) | top;
    top = nt;
  }
  uint64_t c = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const u128 sq = static_cast<u128>(a[i]) * a[i];
    u128 x = static_cast<u128>(w[2 * i]) + static_cast<uint64_t>(sq) + c;
    w[2 * i] = static_cast<uint64_t>(x);
    x = static_cast<u128>(w[2 * i + 1]) + static_cast<uint64_t>(sq >> 64) + static_cast<uint64_t>(x >> 64);
    w[2 * i + 1] = static_cast<uint64_t>(x);
    c = static_cast<uint64_t>(x >> 64);
  }
  // Montgomery reduction of the 2N-limb value, one limb at a time. With the spare bit, a^2 < p*R
  // and the result is < 2p.
  uint64_t carry_hi = 0;
#pragma GCC unroll 8
  for (std::size_t i = 0; i < N; ++i) {
    const uint64_t m = w[i] * inv;
    uint64_t c2 = 0;
#pragma GCC unroll 8
    for (std::size_t j = 0; j < N; ++j) {
      const u128 x = static_cast<u128>(m) * p[j] + w[i + j] + c2;
      w[i + j] = static_cast<uint64_t>(x);
      c2 = static_cast<uint64_t>(x >> 64);
    }
    const u128 x = static_cast<u128>(w[i + N]) + c2 + carry_hi;
    w[i + N] = static_cast<uint64_t>(x);
    carry_hi = static_cast<uint64_t>(x >> 64);
  }
  reduce_once<N>(r, w + N, p);
}

// ---- dispatch: assembly at run time where available, portable code otherwise ----------------

template <std::size_t N>
constexpr bool has_asm = CUZK_HAVE_MONT_X86_64 && (N == 4 || N == 6);

template <std::size_t N>
constexpr void add_mod(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {
#if CUZK_HAVE_MONT_X86_64
  if constexpr (N == 4) if (!std::is_constant_evaluated()) return x86_64::add_asm_4(r, a, b, p);
  if constexpr (N == 6) if (!std::is_constant_evaluated()) return x86_64::add_asm_6(r, a, b, p);
#endif
  add_mod_portable<N>(r, a, b, p);
}

template <std::size_t N>
constexpr void sub_mod(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p) {
#if CUZK_HAVE_MONT_X86_64
  if constexpr (N == 4) if (!std::is_constant_evaluated()) return x86_64::sub_asm_4(r, a, b, p);
  if constexpr (N == 6) if (!std::is_constant_evaluated()) return x86_64::sub_asm_6(r, a, b, p);
#endif
  sub_mod_portable<N>(r, a, b, p);
}

template <std::size_t N>
constexpr void mul(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p, uint64_t inv) {
#if CUZK_HAVE_MONT_X86_64
  if constexpr (N == 4 || N == 6) {
    if (!std::is_constant_evaluated()) {
      if constexpr (N == 4) return x86_64::mul_asm_4(r, a, b, p, inv);
      if constexpr (N == 6) return x86_64::mul_asm_6(r, a, b, p, inv);
    }
  }
#endif
  mul_portable<N>(r, a, b, p, inv);
}

// With the assembly multiplier, squaring through it beats the separated portable square
// (measured: docs/BENCHMARKS.md); without it, the portable square saves ~N(N-1)/2 products.
template <std::size_t N>
constexpr void sqr(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  if constexpr (has_asm<N>) {
    if (!std::is_constant_evaluated()) return mul<N>(r, a, a, p, inv);
  }
  sqr_portable<N>(r, a, p, inv);
}

}  // namespace cuzk::ff::mont
