// Lazy reduction for the NTT butterflies: values in [0, 2p) between stages, canonical at the end.
//
// Why. The NTT kernels are bound by the instructions each butterfly issues and by the length of
// its dependent carry chains, not by the multiply pipe alone (NOTES.md, NTT change 4: a Karatsuba
// product with 12% fewer multiplies and ~110 more additions made the transform 9-13% slower). A
// canonical butterfly ends its product with a conditional subtraction (a 2n-instruction borrow
// chain and n selects, on the critical path) and corrects its difference by a masked add of p.
// Keeping values in [0, 2p) removes the product's subtraction; the sum and difference then
// correct by 2p instead of p at the same cost, and where 4p < 2^(32n) (BN254 Fr) the frequency
// butterfly's difference needs no correction at all. The outputs are made canonical once, as the
// last pass stores them.
//
// Where 4p > 2^(32n) (BLS12-381 Fr) the frequency butterflies work on canonical values instead:
// their lazy difference would need its masked correction before the product could start, and the
// transform is bound by such dependent chains. With x, y < p the difference (p - y) + x < 2p needs
// none; the sum and the product's result are brought below p afterwards, off the product's input
// path (NOTES.md, NTT change 8: 2^24 forward 3.83 -> 3.66 ms with the same kernel otherwise).
//
// The product by a twiddle is ntt_shoup::mul (ntt_shoup.cuh): below 2p for every operand these
// functions produce, with no final subtraction either.
//
// Bounds (x, y < 2p):
// - add(x, y): x + y < 4p, minus 2p when >= 2p, so < 2p. For BLS12-381 Fr (p > 2^254) x + y may
//   exceed 2^256: the carry out of the top word is kept and forces the subtraction.
// - sub(x, y): x - y, plus 2p when it borrows: (-2p, 2p) -> [0, 2p).
// - diff(x, y) (the frequency butterfly's difference, which only feeds the product): x - y + 2p in
//   (0, 4p) where 4p < 2^(32n), else sub(x, y). Either way < 2^(32n) and congruent to x - y.
// - canonical(x): x - p when x >= p, for x < 2p.
// Canonical (x, y < p): add_canonical < p, sub_canonical < p, diff_canonical = (p - y) + x in (0, 2p).
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

// 4p < 2^(32n): BN254 Fr (p < 2^254); not BLS12-381 Fr.
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

// a + b, minus m when the sum reaches m: for a, b < m and m = p or 2p. Where 2m > 2^(32n) (BLS12-381
// Fr with m = 2p) the carry out of the top word is kept and forces the subtraction.
template <class D>
__device__ __forceinline__ D add_mod(const D& a, const D& b, const limbs32<D::n>& m, bool may_carry) {
  constexpr std::size_t n = D::n;
  D r;
  r.limb[0] = ptx::add_cc(a.limb[0], b.limb[0]);
#pragma unroll
  for (std::size_t k = 1; k < n - 1; ++k) r.limb[k] = ptx::addc_cc(a.limb[k], b.limb[k]);
  uint32_t carry = 0;
  if (!may_carry) {
    r.limb[n - 1] = ptx::addc(a.limb[n - 1], b.limb[n - 1]);
  } else {
    r.limb[n - 1] = ptx::addc_cc(a.limb[n - 1], b.limb[n - 1]);
    carry = 0u - ptx::addc(0u, 0u);  // all ones on overflow
  }
  subtract_if_above(r, m, carry);
  return r;
}

// a - b, plus m when it borrows: for a, b < m.
template <class D>
__device__ __forceinline__ D sub_mod(const D& a, const D& b, const limbs32<D::n>& m) {
  constexpr std::size_t n = D::n;
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

// (m - b) + a: congruent to a - b, in (0, 2m) for a, b < m; no borrow and no carry where 2m <= 2^(32n).
template <class D>
__device__ __forceinline__ D diff_mod(const D& a, const D& b, const limbs32<D::n>& m) {
  constexpr std::size_t n = D::n;
  D r;
  r.limb[0] = ptx::sub_cc(m.w[0], b.limb[0]);
#pragma unroll
  for (std::size_t k = 1; k < n - 1; ++k) r.limb[k] = ptx::subc_cc(m.w[k], b.limb[k]);
  r.limb[n - 1] = ptx::subc(m.w[n - 1], b.limb[n - 1]);
  r.limb[0] = ptx::add_cc(r.limb[0], a.limb[0]);
#pragma unroll
  for (std::size_t k = 1; k < n - 1; ++k) r.limb[k] = ptx::addc_cc(r.limb[k], a.limb[k]);
  r.limb[n - 1] = ptx::addc(r.limb[n - 1], a.limb[n - 1]);
  return r;
}

template <class D>
__device__ __forceinline__ D add(const D& a, const D& b) {
  return add_mod(a, b, twice_modulus<D>(), !four_p_fits<D>);
}

template <class D>
__device__ __forceinline__ D sub(const D& a, const D& b) {
  return sub_mod(a, b, twice_modulus<D>());
}

template <class D>
__device__ __forceinline__ D diff(const D& a, const D& b) {
  if constexpr (four_p_fits<D>)
    return diff_mod(a, b, twice_modulus<D>());  // in (0, 4p) < 2^(32n)
  else
    return sub(a, b);
}

// Canonical butterflies (values < p; file comment).
template <class D>
__device__ __forceinline__ D add_canonical(const D& a, const D& b) {
  constexpr limbs32<D::n> p = D::modulus;
  return add_mod(a, b, p, false);
}

template <class D>
__device__ __forceinline__ D sub_canonical(const D& a, const D& b) {
  constexpr limbs32<D::n> p = D::modulus;
  return sub_mod(a, b, p);
}

template <class D>
__device__ __forceinline__ D diff_canonical(const D& a, const D& b) {
  constexpr limbs32<D::n> p = D::modulus;
  return diff_mod(a, b, p);
}

template <class D>
__device__ __forceinline__ D canonical(const D& a) {
  constexpr limbs32<D::n> p = D::modulus;
  D r = a;
  subtract_if_above(r, p, 0u);
  return r;
}

}  // namespace cuzk::gpu::ntt_lazy
