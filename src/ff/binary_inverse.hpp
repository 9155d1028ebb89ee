// SPDX-License-Identifier: MIT OR Apache-2.0
// Modular inverse by the binary extended Euclidean algorithm, on little-endian 32-bit words, for
// the host and the GPU (CUZK_HD).
//
// Why not Fermat: a^(p-2) is ~1.3 log2(p) dependent Montgomery products, ~490 for BLS12-381 Fq,
// each hundreds of dependent multiply-adds; on the GPU one such chain is pure latency (~0.57 ms
// for one thread, docs/gpu/msm.md, 'Affine rounds with batched inversions'), and the MSM's batched
// inversions pay it once per round. The binary algorithm takes at most 2 log2(p) steps of word-wise
// subtractions and shifts (no products), so one inversion is several times shorter. It is
// variable-time: for public or already variable-time uses (the bucket method is) only.
//
// The steps (Guide to Elliptic Curve Cryptography, Algorithm 2.22, with its inner halving loops
// and the subtraction folded into one step so that each step is the same straight-line code):
// u = a, v = p, x1 = 1, x2 = 0, keeping x1 a = u and x2 a = v (mod p). Each step picks a target t
// in {u, v}: an even one, else the larger; if both are odd the other is subtracted from t (the
// difference is even); then t is halved, and its coefficient gets the same subtraction (mod p)
// and halving (mod p: add p first when odd). Every step takes at least one bit off
// bits(u) + bits(v), so there are at most 2 log2(p) of them; the loop stops when u or v is 1
// (gcd(u, v) = gcd(a, p) = 1 throughout, so u = v > 1 never happens), and that one's coefficient
// is a^-1. The selections are masks, not branches, so the lanes of a GPU warp stay together.
//
// Requirements: p odd, p < 2^(32n - 1) (so x + p never carries out), 0 <= a < p. The inverse of
// 0 is 0, as ff::fp defines it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"

// Fixed-count word loops, unrolled on the device so that the words stay in registers.
#if defined(__CUDA_ARCH__)
#define CUZK_BINV_UNROLL _Pragma("unroll")
#else
#define CUZK_BINV_UNROLL
#endif

namespace cuzk::ff {

namespace binary_inverse_detail {

// r = a - (b & m), returning the borrow (0 or 1).
template <std::size_t n>
CUZK_HD_INLINE uint32_t sub_masked(uint32_t (&r)[n], const uint32_t (&a)[n], const uint32_t (&b)[n],
                                   uint32_t m) {
  uint32_t borrow = 0;
  CUZK_BINV_UNROLL
  for (std::size_t k = 0; k < n; ++k) {
    const uint64_t d = static_cast<uint64_t>(a[k]) - (b[k] & m) - borrow;
    r[k] = static_cast<uint32_t>(d);
    borrow = static_cast<uint32_t>(d >> 63);
  }
  return borrow;
}

// r = r + (p & m); the caller guarantees no carry out.
template <std::size_t n>
CUZK_HD_INLINE void add_masked(uint32_t (&r)[n], const uint32_t (&p)[n], uint32_t m) {
  uint32_t carry = 0;
  CUZK_BINV_UNROLL
  for (std::size_t k = 0; k < n; ++k) {
    const uint64_t s = static_cast<uint64_t>(r[k]) + (p[k] & m) + carry;
    r[k] = static_cast<uint32_t>(s);
    carry = static_cast<uint32_t>(s >> 32);
  }
}

template <std::size_t n>
CUZK_HD_INLINE void shr1(uint32_t (&r)[n]) {
  CUZK_BINV_UNROLL
  for (std::size_t k = 0; k + 1 < n; ++k) r[k] = (r[k] >> 1) | (r[k + 1] << 31);
  r[n - 1] >>= 1;
}

template <std::size_t n>
CUZK_HD_INLINE bool is_one(const uint32_t (&a)[n]) {
  uint32_t acc = a[0] ^ 1u;
  CUZK_BINV_UNROLL
  for (std::size_t k = 1; k < n; ++k) acc |= a[k];
  return acc == 0;
}

}  // namespace binary_inverse_detail

// out = a^-1 mod p (plain integers, not Montgomery forms); out = 0 for a = 0.
template <std::size_t n>
CUZK_HD_INLINE void binary_inverse(uint32_t (&out)[n], const uint32_t (&a)[n], const uint32_t (&p)[n]) {
  using namespace binary_inverse_detail;
  uint32_t u[n], v[n], x1[n], x2[n];
  uint32_t nz = 0;
  CUZK_BINV_UNROLL
  for (std::size_t k = 0; k < n; ++k) {
    u[k] = a[k];
    v[k] = p[k];
    x1[k] = k == 0 ? 1u : 0u;
    x2[k] = 0;
    nz |= a[k];
  }
  if (nz == 0) {
    CUZK_BINV_UNROLL
    for (std::size_t k = 0; k < n; ++k) out[k] = 0;
    return;
  }
  while (!is_one(u) && !is_one(v)) {
    const bool u_even = (u[0] & 1u) == 0;
    const bool v_even = (v[0] & 1u) == 0;
    const bool both_odd = !u_even && !v_even;
    uint32_t diff[n];
    const bool u_ge_v = sub_masked(diff, u, v, 0xffffffffu) == 0;
    const uint32_t on_u = (u_even || (both_odd && u_ge_v)) ? 0xffffffffu : 0u;  // the target is u
    const uint32_t sub = both_odd ? 0xffffffffu : 0u;
    uint32_t t[n], o[n], xt[n], xo[n];
    CUZK_BINV_UNROLL
    for (std::size_t k = 0; k < n; ++k) {
      t[k] = (u[k] & on_u) | (v[k] & ~on_u);
      o[k] = (v[k] & on_u) | (u[k] & ~on_u);
      xt[k] = (x1[k] & on_u) | (x2[k] & ~on_u);
      xo[k] = (x2[k] & on_u) | (x1[k] & ~on_u);
    }
    (void)sub_masked(t, t, o, sub);  // t >= o when both are odd
    shr1(t);
    const uint32_t borrow = sub_masked(xt, xt, xo, sub);
    add_masked(xt, p, 0u - borrow);        // back into [0, p)
    add_masked(xt, p, 0u - (xt[0] & 1u));  // even, < 2p < 2^(32n)
    shr1(xt);
    CUZK_BINV_UNROLL
    for (std::size_t k = 0; k < n; ++k) {
      u[k] = (t[k] & on_u) | (u[k] & ~on_u);
      v[k] = (v[k] & on_u) | (t[k] & ~on_u);
      x1[k] = (xt[k] & on_u) | (x1[k] & ~on_u);
      x2[k] = (x2[k] & on_u) | (xt[k] & ~on_u);
    }
  }
  const uint32_t pick_u = is_one(u) ? 0xffffffffu : 0u;
  CUZK_BINV_UNROLL
  for (std::size_t k = 0; k < n; ++k) out[k] = (x1[k] & pick_u) | (x2[k] & ~pick_u);
}

}  // namespace cuzk::ff

#undef CUZK_BINV_UNROLL
