// SPDX-License-Identifier: MIT OR Apache-2.0
// Lazy reduction for the NTT butterflies: values in [0, 2p) between stages, canonical at the end.
//
// Why. The NTT kernels are bound by the instructions each butterfly issues and by the length of
// its dependent carry chains, not by the multiply pipe alone (docs/gpu/ntt.md, 'A Karatsuba product':
// a Karatsuba product with 12% fewer multiplies and ~110 more additions made the transform 9-13% slower). A
// canonical butterfly ends its product with a conditional subtraction (a 2n-instruction borrow
// chain and n selects, on the critical path) and corrects its sum and difference by p. Keeping
// values in [0, 2p) removes the product's subtraction; the sum and difference then correct by 2p
// instead of p at the same cost. The outputs are made canonical once, as the last pass stores
// them.
//
// Every butterfly is (lo, hi) -> (lo + t, lo - t) with t = w hi, the product by a twiddle
// ntt_shoup::mul (ntt_shoup.cuh), below 2p for every operand below 2p, with no final subtraction
// either. (The other butterfly, (lo + hi, (lo - hi) w), would need the difference below 2^256
// before its product; where 4p > 2^256, as for BLS12-381 Fr, that takes a correction on the
// product's input path: docs/gpu/ntt.md, 'Cooley-Tukey butterflies from natural order too'.)
//
// Bounds (x, y < 2p):
// - add(x, y): x + y < 4p, minus 2p when >= 2p, so < 2p. For BLS12-381 Fr (p > 2^254) x + y may
//   exceed 2^256: the carry out of the top word is kept and forces the subtraction.
// - sub(x, y): x - y, plus 2p when it borrows: (-2p, 2p) -> [0, 2p).
// - canonical(x): x - p when x >= p, for x < 2p.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/fp_device.cuh"
#include "gpu/ptx.cuh"

namespace cuzk::gpu::ntt_lazy {

template <class D>
constexpr limbs32<D::n> twice_modulus() {
  limbs32<D::n> r{};
  uint32_t carry = 0;
  for (std::size_t k = 0; k < D::n; ++k) {
    r.w[k] = (D::modulus.w[k] << 1) | carry;
    carry = D::modulus.w[k] >> 31;
  }
  return r;
}

// 4p < 2^(32n), so the sum of two values below 2p cannot overflow: BN254 Fr (p < 2^254); not
// BLS12-381 Fr.
template <class D>
constexpr bool four_p_fits = D::modulus.w[D::n - 1] < 0x40000000u;

// r = a - m if a >= m (as a 32n-bit number, or when `carry` says a overflowed), else a.
template <class D>
__device__ __forceinline__ void subtract_if_above(D& a, const limbs32<D::n>& m, uint32_t carry) {
  constexpr std::size_t n = D::n;
  uint32_t t[n];
  t[0] = ptx::sub_cc(a.limb[0], m.w[0]);
#pragma unroll
  for (std::size_t k = 1; k < n; ++k) t[k] = ptx::subc_cc(a.limb[k], m.w[k]);
  const uint32_t below = ptx::subc(0u, 0u) & ~carry;  // all ones when a < m and no overflow
#pragma unroll
  for (std::size_t k = 0; k < n; ++k) a.limb[k] = below != 0 ? a.limb[k] : t[k];
}

// a + b, minus 2p when the sum reaches 2p (a, b < 2p). Where 4p > 2^(32n) (BLS12-381 Fr) the
// carry out of the top word is kept and forces the subtraction.
template <class D>
__device__ __forceinline__ D add(const D& a, const D& b) {
  constexpr std::size_t n = D::n;
  D r;
  r.limb[0] = ptx::add_cc(a.limb[0], b.limb[0]);
#pragma unroll
  for (std::size_t k = 1; k < n - 1; ++k) r.limb[k] = ptx::addc_cc(a.limb[k], b.limb[k]);
  uint32_t carry = 0;
  if constexpr (four_p_fits<D>) {
    r.limb[n - 1] = ptx::addc(a.limb[n - 1], b.limb[n - 1]);
  } else {
    r.limb[n - 1] = ptx::addc_cc(a.limb[n - 1], b.limb[n - 1]);
    carry = 0u - ptx::addc(0u, 0u);  // all ones on overflow
  }
  subtract_if_above(r, twice_modulus<D>(), carry);
  return r;
}

// a - b, plus 2p when it borrows (a, b < 2p).
template <class D>
__device__ __forceinline__ D sub(const D& a, const D& b) {
  constexpr std::size_t n = D::n;
  constexpr limbs32<n> m = twice_modulus<D>();
  D r;
  r.limb[0] = ptx::sub_cc(a.limb[0], b.limb[0]);
#pragma unroll
  for (std::size_t k = 1; k < n; ++k) r.limb[k] = ptx::subc_cc(a.limb[k], b.limb[k]);
  const uint32_t mask = ptx::subc(0u, 0u);  // all ones when a < b
  r.limb[0] = ptx::add_cc(r.limb[0], m.w[0] & mask);
#pragma unroll
  for (std::size_t k = 1; k < n - 1; ++k) r.limb[k] = ptx::addc_cc(r.limb[k], m.w[k] & mask);
  r.limb[n - 1] = ptx::addc(r.limb[n - 1], m.w[n - 1] & mask);
  return r;
}

template <class D>
__device__ __forceinline__ D canonical(const D& a) {
  constexpr limbs32<D::n> p = D::modulus;
  D r = a;
  subtract_if_above(r, p, 0u);
  return r;
}

}  // namespace cuzk::gpu::ntt_lazy
