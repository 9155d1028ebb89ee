// SPDX-License-Identifier: MIT OR Apache-2.0
// fp2_device<F>: the quadratic extension F[u] / (u^2 + 1) on the GPU, the G2 coordinate field.
//
// The device twin of ff::fp2 (ff/fp2.hpp): the same element order (c0, c1) = c0 + c1 u, the same
// memory layout (two base elements, no padding), so an array of ff::fp2<ff::fp<P>> copied to the
// device *is* an array of fp2_device<fp_device<P>>. Both curves have q = 3 mod 4, so u^2 = -1 on
// each and the template needs only the base field.
//
// The arithmetic is written on the base field's operators, so it runs on host and device alike
// (on the host, fp_device defers to ff::fp): multiplication by Karatsuba, 3 base products and 5
// additions instead of 4 products; squaring by (c0 + c1)(c0 - c1) + 2 c0 c1 u, 2 products;
// inversion through the norm, c0^2 + c1^2, one base inversion and 2 products.
//
// device_field_t<H> names the device type of a CPU field H (ff::fp or ff::fp2 of one), which is
// how the MSM picks its coordinate field from a group description.
#pragma once

#include <bit>

#include "base/hd.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"
#include "gpu/fp_device.cuh"

namespace cuzk::gpu {

template <class F>
struct alignas(8) fp2_device {
  using base = F;
  using host_type = ff::fp2<typename F::host_type>;

  F c0, c1;

  fp2_device() = default;
  CUZK_HD_INLINE constexpr fp2_device(const F& a0, const F& a1) : c0(a0), c1(a1) {}

  CUZK_HD_INLINE constexpr static fp2_device zero() { return {F::zero(), F::zero()}; }
  CUZK_HD_INLINE constexpr static fp2_device one() { return {F::one(), F::zero()}; }

  CUZK_HD_INLINE constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD_INLINE constexpr friend bool operator==(const fp2_device& a, const fp2_device& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }
  CUZK_HD_INLINE constexpr friend bool operator!=(const fp2_device& a, const fp2_device& b) { return !(a == b); }

  static host_type to_host(const fp2_device& a) { return std::bit_cast<host_type>(a); }
  static fp2_device from_host(const host_type& a) { return std::bit_cast<fp2_device>(a); }

  CUZK_HD_INLINE friend fp2_device operator+(const fp2_device& a, const fp2_device& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  CUZK_HD_INLINE friend fp2_device operator-(const fp2_device& a, const fp2_device& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  CUZK_HD_INLINE fp2_device operator-() const { return {-c0, -c1}; }
  // Karatsuba: v0 = a0 b0, v1 = a1 b1, c1 = (a0 + a1)(b0 + b1) - v0 - v1, c0 = v0 - v1 (u^2 = -1).
  CUZK_HD_INLINE friend fp2_device operator*(const fp2_device& a, const fp2_device& b) {
    const F v0 = a.c0 * b.c0;
    const F v1 = a.c1 * b.c1;
    const F m = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {v0 - v1, m - v0 - v1};
  }
  CUZK_HD_INLINE fp2_device& operator+=(const fp2_device& o) { return *this = *this + o; }
  CUZK_HD_INLINE fp2_device& operator-=(const fp2_device& o) { return *this = *this - o; }
  CUZK_HD_INLINE fp2_device& operator*=(const fp2_device& o) { return *this = *this * o; }

  CUZK_HD_INLINE fp2_device dbl() const { return {c0.dbl(), c1.dbl()}; }
  CUZK_HD_INLINE fp2_device sqr() const {
    const F t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
  // 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2); zero maps to zero as on the CPU.
  CUZK_HD_INLINE fp2_device inverse() const {
    const F t = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * t, -(c1 * t)};
  }
};

template <class H>
struct device_field;
template <class P>
struct device_field<ff::fp<P>> {
  using type = fp_device<P>;
};
template <class B>
struct device_field<ff::fp2<B>> {
  using type = fp2_device<typename device_field<B>::type>;
};
template <class H>
using device_field_t = typename device_field<H>::type;

}  // namespace cuzk::gpu
