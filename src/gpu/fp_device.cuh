// SPDX-License-Identifier: MIT OR Apache-2.0
// fp_device<P>: a prime field in Montgomery form on the GPU, 2N 32-bit limbs.
//
// The device twin of ff::fp<P> (ff/fp.hpp), fed by the same parameter struct: the modulus and every
// derived constant (-p^-1 mod 2^32, R mod p, R^2 mod p) come from ff::fp<P>'s constexpr members,
// split into 32-bit words at compile time. The memory layout is the CPU's (little-endian limbs,
// same size and alignment), and R = 2^(64N) = 2^(32*2N) on both sides, so an array of ff::fp<P>
// copied to the device *is* an array of fp_device<P> holding the same field elements; no
// conversion pass is needed in either direction. Values are kept fully reduced (< p), so equality
// is limb equality, as on the CPU.
//
// Why 32-bit limbs: NVIDIA GPUs multiply 32x32 bits natively (IMAD, IMAD.HI, IMAD.WIDE); a 64-bit
// multiply is emulated from several of them. PTX exposes the carry flag (ptx.cuh), so additions
// and the Montgomery product run as carry chains.
//
// Multiplication is word-serial Montgomery (CIOS, Koc-Acar-Kaliski 1996) with the partial products
// of each row split by the parity of the limb index of `a`. A row a*b[i] adds lo(a_j b_i) at word
// j and hi(a_j b_i) at word j+1; for even j these pairs never overlap, so the even-indexed products
// go into one accumulator X (word offset 0) in a single madc.lo/madc.hi chain, and the odd-indexed
// ones into a second accumulator Y (word offset 1) in another. The running value is X + w*Y
// (w = 2^32). After the reduction step (m = X[0] * -p^-1, T += m*p, T /= w) the offsets rotate:
// T/w = X[1] + w*X[2..n] + Y, so Y becomes the next row's offset-0 accumulator, X[2..n] its
// offset-1 accumulator, and X[1] is folded in by one add whose carry enters the next odd chain.
// Per row that is 4n + 4 instructions with no separate carry-propagation passes (for BLS12-381
// Fr, whose low words are 1 and 2^32 - 1, five of them are additions instead; see reduce_row).
//
// Bounds (why no chain overflows): with a, b < p the running value stays below 2p (standard CIOS
// argument) and below 2p*w before each shift. Since 2p < w^n (static_assert: top limb < 2^31),
// w*Y < w^(n+1) gives Y < w^n, so the odd chains never carry out of their n words, and X needs
// one extra word X[n]. One conditional subtraction at the end brings 0 <= T < 2p below p.
//
// Add/sub are add.cc/sub.cc chains with a conditional correction by p chosen by the final
// carry/borrow (a select, no branch: the 32 lanes of a warp take the same path).
//
// The operators are __host__ __device__ so that the point templates in ec/ (CUZK_HD) instantiate
// with this type; compiled for the host they defer to ff::fp<P> through the shared layout, which
// keeps one definition of the arithmetic per side and makes host calls correct, not fast.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "base/hd.hpp"
#include "ff/bigint.hpp"
#include "ff/binary_inverse.hpp"
#include "ff/fp.hpp"
#include "gpu/ptx.cuh"

namespace cuzk::gpu {

// A fixed array of 32-bit words usable in constant expressions on host and device.
template <std::size_t M>
struct limbs32 {
  uint32_t w[M];
};

namespace detail {

// Little-endian split of 64-bit limbs into 32-bit words (low half first), matching the memory
// order of the 64-bit limbs on a little-endian machine.
template <std::size_t N>
constexpr limbs32<2 * N> split32(const ff::bigint<N>& a) {
  limbs32<2 * N> r{};
  for (std::size_t i = 0; i < N; ++i) {
    r.w[2 * i] = static_cast<uint32_t>(a.limb[i]);
    r.w[2 * i + 1] = static_cast<uint32_t>(a.limb[i] >> 32);
  }
  return r;
}

}  // namespace detail

template <class P>
class alignas(8) fp_device {
 public:
  using params = P;
  using host_type = ff::fp<P>;
  static constexpr std::size_t n = 2 * host_type::N;  // 32-bit limbs

  static constexpr limbs32<n> modulus = detail::split32(host_type::modulus);
  static constexpr uint32_t inv = static_cast<uint32_t>(host_type::inv);  // -p^-1 mod 2^32
  static constexpr limbs32<n> r1 = detail::split32(host_type::r1);        // R mod p (one)
  static constexpr limbs32<n> r2 = detail::split32(host_type::r2);        // R^2 mod p

  static_assert(n % 2 == 0);
  static_assert(static_cast<uint32_t>(modulus.w[0] * inv) == 0xffffffffu, "inv must be -p^-1 mod 2^32");
  static_assert(modulus.w[n - 1] < 0x80000000u, "the split Montgomery product needs 2p < 2^(32n)");

  // Little-endian 32-bit words of the Montgomery form a*R mod p. Public and uninitialised by
  // default (so arrays in shared memory need no constructor); `fp_device{}` is zero.
  uint32_t limb[n];

  fp_device() = default;

  CUZK_HD_INLINE constexpr static fp_device zero() {
    fp_device r;
    for (std::size_t k = 0; k < n; ++k) r.limb[k] = 0;
    return r;
  }
  CUZK_HD_INLINE constexpr static fp_device one() {
    constexpr limbs32<n> one_m = r1;
    fp_device r;
    for (std::size_t k = 0; k < n; ++k) r.limb[k] = one_m.w[k];
    return r;
  }

  CUZK_HD_INLINE constexpr bool is_zero() const {
    uint32_t acc = 0;
    for (std::size_t k = 0; k < n; ++k) acc |= limb[k];
    return acc == 0;
  }
  CUZK_HD_INLINE constexpr friend bool operator==(const fp_device& a, const fp_device& b) {
    uint32_t acc = 0;
    for (std::size_t k = 0; k < n; ++k) acc |= a.limb[k] ^ b.limb[k];
    return acc == 0;
  }
  CUZK_HD_INLINE constexpr friend bool operator!=(const fp_device& a, const fp_device& b) { return !(a == b); }

  // The same value as a CPU field element, and back (host only): the layouts are identical.
  static host_type to_host(const fp_device& a) { return std::bit_cast<host_type>(a); }
  static fp_device from_host(const host_type& a) { return std::bit_cast<fp_device>(a); }

  // ---- arithmetic ------------------------------------------------------------------------------
  // Host and device, so that the point formulas (CUZK_HD templates in ec/) instantiate with this
  // type. On the device these are the carry-chain kernels below; a host caller (tests, constant
  // set-up) gets the CPU field's result through the shared layout.
  CUZK_HD_INLINE friend fp_device operator+(const fp_device& a, const fp_device& b) {
#ifdef __CUDA_ARCH__
    fp_device r;
    add_mod(r.limb, a.limb, b.limb);
    return r;
#else
    return from_host(to_host(a) + to_host(b));
#endif
  }
  CUZK_HD_INLINE friend fp_device operator-(const fp_device& a, const fp_device& b) {
#ifdef __CUDA_ARCH__
    fp_device r;
    sub_mod(r.limb, a.limb, b.limb);
    return r;
#else
    return from_host(to_host(a) - to_host(b));
#endif
  }
  CUZK_HD_INLINE friend fp_device operator*(const fp_device& a, const fp_device& b) {
#ifdef __CUDA_ARCH__
    fp_device r;
    mont_mul(r.limb, a.limb, b.limb);
    return r;
#else
    return from_host(to_host(a) * to_host(b));
#endif
  }
  CUZK_HD_INLINE fp_device operator-() const {
#ifdef __CUDA_ARCH__
    fp_device r;
    neg_mod(r.limb, limb);
    return r;
#else
    return from_host(-to_host(*this));
#endif
  }
  CUZK_HD_INLINE fp_device& operator+=(const fp_device& o) { return *this = *this + o; }
  CUZK_HD_INLINE fp_device& operator-=(const fp_device& o) { return *this = *this - o; }
  CUZK_HD_INLINE fp_device& operator*=(const fp_device& o) { return *this = *this * o; }

  CUZK_HD_INLINE fp_device dbl() const { return *this + *this; }
  CUZK_HD_INLINE fp_device sqr() const { return *this * *this; }

  // a^-1, and 0 for 0 as on the CPU. On the device: the binary extended Euclidean algorithm
  // (ff/binary_inverse.hpp) on the Montgomery words aR, which gives (aR)^-1 = a^-1 R^-1, then two
  // products by R^2 (a^-1 R^-1 -> a^-1 -> a^-1 R). At most 2 log2(p) steps of word-wise
  // subtractions and shifts (~530 on average for BLS12-381 Fq) instead of Fermat's ~490 dependent
  // products: several times less latency, which is what a batched inversion waits on
  // (docs/gpu/msm.md, 'Binary inversion').
  // Callers still batch it (Montgomery's trick) so that one inversion serves many elements.
  CUZK_HD fp_device inverse() const {
#ifdef __CUDA_ARCH__
    constexpr limbs32<n> p = modulus;
    constexpr limbs32<n> rr = r2;
    fp_device t, r2m;
    ff::binary_inverse(t.limb, limb, p.w);
    for (std::size_t k = 0; k < n; ++k) r2m.limb[k] = rr.w[k];
    return (t * r2m) * r2m;
#else
    return from_host(to_host(*this).inverse());
#endif
  }

 private:
  // r = p - a, and 0 for a = 0 (not p).
  __device__ __forceinline__ static void neg_mod(uint32_t (&r)[n], const uint32_t (&a)[n]) {
    constexpr limbs32<n> p = modulus;
    uint32_t nz = 0;
#pragma unroll
    for (std::size_t k = 0; k < n; ++k) nz |= a[k];
    const uint32_t mask = nz != 0 ? 0xffffffffu : 0u;
    r[0] = ptx::sub_cc(p.w[0], a[0]);
#pragma unroll
    for (std::size_t k = 1; k < n - 1; ++k) r[k] = ptx::subc_cc(p.w[k], a[k]);
    r[n - 1] = ptx::subc(p.w[n - 1], a[n - 1]);
#pragma unroll
    for (std::size_t k = 0; k < n; ++k) r[k] &= mask;
  }

  // r = a + b mod p for a, b < p. a + b < 2p < 2^(32n), so the sum has no carry out.
  __device__ __forceinline__ static void add_mod(uint32_t (&r)[n], const uint32_t (&a)[n], const uint32_t (&b)[n]) {
    r[0] = ptx::add_cc(a[0], b[0]);
#pragma unroll
    for (std::size_t k = 1; k < n - 1; ++k) r[k] = ptx::addc_cc(a[k], b[k]);
    r[n - 1] = ptx::addc(a[n - 1], b[n - 1]);
    reduce_once(r);
  }

  // r = a - b mod p for a, b < p: subtract, then add p back where it borrowed.
  __device__ __forceinline__ static void sub_mod(uint32_t (&r)[n], const uint32_t (&a)[n], const uint32_t (&b)[n]) {
    constexpr limbs32<n> p = modulus;
    r[0] = ptx::sub_cc(a[0], b[0]);
#pragma unroll
    for (std::size_t k = 1; k < n; ++k) r[k] = ptx::subc_cc(a[k], b[k]);
    const uint32_t mask = ptx::subc(0u, 0u);  // all ones when a < b
    r[0] = ptx::add_cc(r[0], p.w[0] & mask);
#pragma unroll
    for (std::size_t k = 1; k < n - 1; ++k) r[k] = ptx::addc_cc(r[k], p.w[k] & mask);
    r[n - 1] = ptx::addc(r[n - 1], p.w[n - 1] & mask);
  }

  // r = r - p if r >= p; requires r < 2p.
  __device__ __forceinline__ static void reduce_once(uint32_t (&r)[n]) {
    constexpr limbs32<n> p = modulus;
    uint32_t t[n];
    t[0] = ptx::sub_cc(r[0], p.w[0]);
#pragma unroll
    for (std::size_t k = 1; k < n; ++k) t[k] = ptx::subc_cc(r[k], p.w[k]);
    const uint32_t borrow = ptx::subc(0u, 0u);  // all ones when r < p
#pragma unroll
    for (std::size_t k = 0; k < n; ++k) r[k] = borrow != 0 ? r[k] : t[k];
  }

  // Moduli whose low word is 1 and next word 2^32 - 1 (BLS12-381 Fr: p = ...ffffffff00000001):
  // -p^-1 = -1 mod 2^32, so a row's m is -x[0], m * p[0] = m and m * p[1] = m 2^32 - m; its four
  // products by p[0] and p[1] and the one for m become additions (5 of 33 multiply-adds per row).
  // Measured: BLS12-381 Fr 5.06e10 -> 5.49e10 products/s (docs/gpu/field.md). The same trick for BN254 Fr
  // (low word 2^32 - 2^28 + 1: m and hi(m p[0]) by shifts) measured 1% slower and was dropped.
  static constexpr bool low_words_one_minus_one = modulus.w[0] == 1u && modulus.w[1] == 0xffffffffu;

  // The reduction half of one row: m = x[0] * -p^-1, then X += (even limbs of p) * m and
  // Y += (odd limbs of p) * m. Afterwards x[0] == 0 and the value X + w*Y is divisible by w.
  __device__ __forceinline__ static void reduce_row(uint32_t (&x)[n + 1], uint32_t (&y)[n]) {
    constexpr limbs32<n> p = modulus;
    const uint32_t x0 = x[0];
    const uint32_t m = low_words_one_minus_one ? 0u - x0 : x0 * inv;
    if constexpr (low_words_one_minus_one) {
      x[0] = ptx::add_cc(x0, m);      // x[0] + m * 1 = 0, carry x[0] != 0
      x[1] = ptx::addc_cc(x[1], 0u);  // hi(m * 1) = 0
    } else {
      x[0] = ptx::mad_lo_cc(p.w[0], m, x0);
      x[1] = ptx::madc_hi_cc(p.w[0], m, x[1]);
    }
#pragma unroll
    for (std::size_t j = 2; j < n; j += 2) {
      x[j] = ptx::madc_lo_cc(p.w[j], m, x[j]);
      x[j + 1] = ptx::madc_hi_cc(p.w[j], m, x[j + 1]);
    }
    x[n] = ptx::addc(x[n], 0u);

    if constexpr (low_words_one_minus_one) {
      static_assert(n > 2);
      y[0] = ptx::add_cc(y[0], x0);                        // lo(m * (2^32 - 1)) = -m = x[0]
      y[1] = ptx::addc_cc(y[1], m - (m != 0u ? 1u : 0u));  // hi(m * (2^32 - 1))
    } else {
      y[0] = ptx::mad_lo_cc(p.w[1], m, y[0]);
      y[1] = n > 2 ? ptx::madc_hi_cc(p.w[1], m, y[1]) : ptx::madc_hi(p.w[1], m, y[1]);
    }
#pragma unroll
    for (std::size_t j = 3; j < n; j += 2) {
      y[j - 1] = ptx::madc_lo_cc(p.w[j], m, y[j - 1]);
      y[j] = j + 1 < n ? ptx::madc_hi_cc(p.w[j], m, y[j]) : ptx::madc_hi(p.w[j], m, y[j]);
    }
  }

  // r = a * b * R^-1 mod p (see the file comment for the even/odd split).
  __device__ __forceinline__ static void mont_mul(uint32_t (&r)[n], const uint32_t (&a)[n], const uint32_t (&b)[n]) {
    uint32_t x[n + 1];  // offset-0 accumulator (+ one carry word)
    uint32_t y[n];      // offset-1 accumulator

    // Row 0: plain products, the pairs of each parity do not overlap.
#pragma unroll
    for (std::size_t j = 0; j < n; j += 2) {
      x[j] = ptx::mul_lo(a[j], b[0]);
      x[j + 1] = ptx::mul_hi(a[j], b[0]);
      y[j] = ptx::mul_lo(a[j + 1], b[0]);
      y[j + 1] = ptx::mul_hi(a[j + 1], b[0]);
    }
    x[n] = 0;
    reduce_row(x, y);

#pragma unroll
    for (std::size_t i = 1; i < n; ++i) {
      // Divide by w and rotate: the new offset-0 words are Y (plus the pending word x[1]), the new
      // offset-1 words are x[2..n].
      uint32_t nx[n + 1];
      uint32_t ny[n];
#pragma unroll
      for (std::size_t k = 0; k < n; ++k) nx[k] = y[k];
      nx[n] = 0;
#pragma unroll
      for (std::size_t k = 0; k + 2 <= n; ++k) ny[k] = x[k + 2];
      ny[n - 1] = 0;

      const uint32_t bi = b[i];
      // Fold in x[1]; its carry belongs to word 1, the first word of the odd chain.
      nx[0] = ptx::add_cc(nx[0], x[1]);
#pragma unroll
      for (std::size_t j = 1; j < n; j += 2) {
        ny[j - 1] = ptx::madc_lo_cc(a[j], bi, ny[j - 1]);
        ny[j] = j + 1 < n ? ptx::madc_hi_cc(a[j], bi, ny[j]) : ptx::madc_hi(a[j], bi, ny[j]);
      }
      nx[0] = ptx::mad_lo_cc(a[0], bi, nx[0]);
      nx[1] = ptx::madc_hi_cc(a[0], bi, nx[1]);
#pragma unroll
      for (std::size_t j = 2; j < n; j += 2) {
        nx[j] = ptx::madc_lo_cc(a[j], bi, nx[j]);
        nx[j + 1] = ptx::madc_hi_cc(a[j], bi, nx[j + 1]);
      }
      nx[n] = ptx::addc(0u, 0u);
      reduce_row(nx, ny);

#pragma unroll
      for (std::size_t k = 0; k <= n; ++k) x[k] = nx[k];
#pragma unroll
      for (std::size_t k = 0; k < n; ++k) y[k] = ny[k];
    }

    // T = X/w + Y < 2p, then one conditional subtraction.
    r[0] = ptx::add_cc(y[0], x[1]);
#pragma unroll
    for (std::size_t k = 1; k < n - 1; ++k) r[k] = ptx::addc_cc(y[k], x[k + 1]);
    r[n - 1] = ptx::addc(y[n - 1], x[n]);
    reduce_once(r);
  }
};

}  // namespace cuzk::gpu
