// SPDX-License-Identifier: MIT OR Apache-2.0
// The NTT butterflies' product by a fixed twiddle in Shoup's form: fewer multiplies than CIOS.
//
// Why. The transform is bound by the integer multiply pipe (docs/gpu/ntt.md, "What bounds
// the kernel"). fp_device's Montgomery product spends 2 n^2 + n = 136 32x32-bit multiplies (lo and
// hi halves counted apart: 264) on one 256-bit product, because its reduction multiplies by p
// word by word. A twiddle is known in advance, so its quotient can be too (Shoup 2008, here for
// 256-bit operands): with w' = floor(w 2^256 / p) stored beside w,
//   q = floor(a w' / 2^256) (up to -1)     r = a w - q p (mod 2^256)
// and only triangles of the three products are needed: the upper half of a w' (words 7-15: 79
// half-products) and the lower halves of a w and q p (64 each, summed as a w + q (2^256 - p)). 207
// half-products instead of 264, -22% on the multiply pipe, with the same additions (each partial
// product is a multiply-add in a carry chain, as in fp_device).
//
// What the table holds. r = a w mod p for the integer w, so with w the *plain* twiddle (not its
// Montgomery form) and a in Montgomery form a = A R, r = A w R is the Montgomery form of A w, the
// same value as fp_device's Montgomery product (wR) * a, up to a multiple of p. Both halves come
// from the Montgomery table entry M = w R mod p: w = M R^-1 mod p (a Montgomery product by the
// integer 1) and, since w 2^256 = w' p + M, w' = (w 2^256 - M) / p = M (-p^-1) mod 2^256 exactly
// (w' < 2^256), a lower-half product.
//
// Bounds. Let Q = a w' / 2^256 and d = a w / p - Q = a (w 2^256 / p - w') / 2^256 in [0, a / 2^256).
// The upper triangle leaves out the products below word 7 and the low halves of word 6, less than
// 2^-27 of a unit of Q, so q = floor(Q), or floor(Q) - 1 when frac(Q) < 2^-27. Then r / p = a w / p
// - q is below 1 + a / 2^256 + 2^-27, and r < 2p whenever a < 2^256 (1 - 2^-27) - which every
// butterfly operand is: values below 2p < 0.91 * 2^256 (BLS12-381 Fr; BN254 Fr 2p < 2^255).
// r >= 0 since q <= floor(Q) <= a w / p. So
// r, computed mod 2^256, is exact and below 2p, as the lazy butterflies need (ntt_lazy.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/fp_device.cuh"
#include "gpu/ptx.cuh"

namespace cuzk::gpu::ntt_shoup {

// A twiddle and its quotient. The plan keeps its four 16-byte quarters in four planes (ntt.cuh).
template <class D>
struct alignas(16) twiddle {
  D w;       // the plain value w < p
  D w_quot;  // floor(w 2^256 / p)
};

namespace detail {

constexpr unsigned n = 8;

// 2^256 - a (0 for 0).
constexpr limbs32<n> negate(const limbs32<n>& a) {
  limbs32<n> r{};
  uint64_t borrow = 0;
  for (unsigned k = 0; k < n; ++k) {
    const uint64_t d = uint64_t{0} - a.w[k] - borrow;
    r.w[k] = static_cast<uint32_t>(d);
    borrow = (d >> 32) != 0 ? 1 : 0;
  }
  return r;
}

// -p^-1 mod 2^256, by Newton's iteration x <- x (2 - p x) on 256-bit words (each step doubles the
// number of correct low bits; 1 is correct to one bit since p is odd).
template <class D>
constexpr limbs32<n> neg_inverse() {
  auto mul = [](const limbs32<n>& a, const limbs32<n>& b) {
    limbs32<n> r{};
    for (unsigned i = 0; i < n; ++i) {
      uint64_t carry = 0;
      for (unsigned j = 0; i + j < n; ++j) {
        const uint64_t t = static_cast<uint64_t>(a.w[i]) * b.w[j] + r.w[i + j] + carry;
        r.w[i + j] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
    }
    return r;
  };
  limbs32<n> x{};
  x.w[0] = 1;
  for (int i = 0; i < 8; ++i) {
    limbs32<n> t = negate(mul(D::modulus, x));  // 2 - p x mod 2^256 = (2^256 - p x) + 2
    uint64_t carry = 2;
    for (unsigned k = 0; k < n && carry != 0; ++k) {
      const uint64_t v = uint64_t{t.w[k]} + carry;
      t.w[k] = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    x = mul(x, t);
  }
  return negate(x);
}

// A + B += the lower half (words 0-7) of a b, carries out of word 7 dropped. Row i adds a_i b_j
// for i + j <= 7 as two chains of multiply-adds (j even, j odd), each writing the word pairs
// (i + j, i + j + 1) that do not overlap, so no separate carry words are needed; a chain goes into A
// when its pairs start at even words and into B when they start at odd ones, so a word is always the
// same half of a register pair (IMAD.WIDE's 64-bit operands) and no row needs moves. Every chain
// ends exactly at word 7 (a row's last product is lo at word 7 or hi at word 7): nothing that
// leaves it counts.
__device__ __forceinline__ void add_low_product(uint32_t (&acc_a)[n], uint32_t (&acc_b)[n], const uint32_t (&a)[n],
                                                const uint32_t (&b)[n]) {
#pragma unroll
  for (unsigned i = 0; i < n; ++i) {
#pragma unroll
    for (unsigned parity = 0; parity < 2; ++parity) {
      uint32_t(&acc)[n] = (i + parity) % 2 == 0 ? acc_a : acc_b;
      bool first = true;
#pragma unroll
      for (unsigned j = parity; i + j < n; j += 2) {
        const unsigned lo = i + j;
        acc[lo] = first ? ptx::mad_lo_cc(a[i], b[j], acc[lo]) : ptx::madc_lo_cc(a[i], b[j], acc[lo]);
        first = false;
        if (lo + 1 < n) acc[lo + 1] = ptx::madc_hi_cc(a[i], b[j], acc[lo + 1]);
      }
    }
  }
}

// r = A + B mod 2^256 (B has no word 0: its chains start at word 1).
__device__ __forceinline__ void sum_low(uint32_t (&r)[n], const uint32_t (&acc_a)[n], const uint32_t (&acc_b)[n]) {
  r[0] = acc_a[0];
  r[1] = ptx::add_cc(acc_a[1], acc_b[1]);
#pragma unroll
  for (unsigned k = 2; k + 1 < n; ++k) r[k] = ptx::addc_cc(acc_a[k], acc_b[k]);
  r[n - 1] = ptx::addc(acc_a[n - 1], acc_b[n - 1]);
}

// floor(T / 2^256) where T is the part of a b at words >= 7: every a_i b_j with i + j >= 7 and the
// high halves of those with i + j = 6 (see the file comment for why that is close enough). The
// same chains and A/B split by the parity of the pairs' first word; a row's chain ends at word i + 7
// or i + 8 and its carry starts the next word, which no earlier row of that accumulator has reached.
__device__ __forceinline__ void upper_product(uint32_t (&q)[n], const uint32_t (&a)[n], const uint32_t (&b)[n]) {
  constexpr unsigned words = 2 * n;  // absolute word indices; 7 .. 15 are used
  constexpr unsigned low = n - 1;
  uint32_t acc_a[words], acc_b[words];
#pragma unroll
  for (unsigned k = low; k < words; ++k) acc_a[k] = acc_b[k] = 0;
#pragma unroll
  for (unsigned i = 0; i < n; ++i) {
#pragma unroll
    for (unsigned parity = 0; parity < 2; ++parity) {
      uint32_t(&acc)[words] = (i + parity) % 2 == 0 ? acc_a : acc_b;
      bool first = true;
      unsigned end = 0;  // one past the last word written
#pragma unroll
      for (unsigned j = parity; j < n; j += 2) {
        if (i + j + 1 < low) continue;  // below word 6: left out
        if (i + j + 1 == low) {         // i + j = 6: the high half only, at word 7
          acc[low] = first ? ptx::mad_hi_cc(a[i], b[j], acc[low]) : ptx::madc_hi_cc(a[i], b[j], acc[low]);
        } else {
          const unsigned lo = i + j;
          acc[lo] = first ? ptx::mad_lo_cc(a[i], b[j], acc[lo]) : ptx::madc_lo_cc(a[i], b[j], acc[lo]);
          acc[lo + 1] = ptx::madc_hi_cc(a[i], b[j], acc[lo + 1]);
        }
        first = false;
        end = i + j + 2;
      }
      if (!first && end < words) acc[end] = ptx::addc(0u, 0u);
    }
  }
  // A + B; word 7 only carries into word 8.
  (void)ptx::add_cc(acc_a[low], acc_b[low]);
#pragma unroll
  for (unsigned k = low + 1; k + 1 < words; ++k) q[k - n] = ptx::addc_cc(acc_a[k], acc_b[k]);
  q[n - 1] = ptx::addc(acc_a[words - 1], acc_b[words - 1]);
}

}  // namespace detail

// a w mod p, below 2p, for the table pair (w, w') and any a < 2^256 (1 - 2^-27) (file comment).
template <class D>
__device__ __forceinline__ D mul(const twiddle<D>& t, const D& a) {
  using namespace detail;
  static_assert(D::n == n, "256-bit fields");
  constexpr limbs32<n> p_neg = negate(D::modulus);
  uint32_t q[n];
  upper_product(q, a.limb, t.w_quot.limb);
  uint32_t acc_a[n], acc_b[n];
#pragma unroll
  for (unsigned k = 0; k < n; ++k) acc_a[k] = acc_b[k] = 0;
  add_low_product(acc_a, acc_b, a.limb, t.w.limb);
  add_low_product(acc_a, acc_b, q, p_neg.w);
  D r;
  sum_low(r.limb, acc_a, acc_b);
  return r;
}

// The pair for the twiddle whose Montgomery form is m (canonical): w = m R^-1 mod p, by a
// Montgomery product with the integer 1, and w' = m (-p^-1) mod 2^256 (file comment).
template <class D>
__device__ __forceinline__ twiddle<D> make_twiddle(const D& m) {
  using namespace detail;
  constexpr limbs32<n> p_inv = neg_inverse<D>();
  D one_raw = D::zero();
  one_raw.limb[0] = 1;
  twiddle<D> t;
  t.w = m * one_raw;
  uint32_t acc_a[n], acc_b[n];
#pragma unroll
  for (unsigned k = 0; k < n; ++k) acc_a[k] = acc_b[k] = 0;
  add_low_product(acc_a, acc_b, m.limb, p_inv.w);
  sum_low(t.w_quot.limb, acc_a, acc_b);
  return t;
}

}  // namespace cuzk::gpu::ntt_shoup
