// SPDX-License-Identifier: MIT OR Apache-2.0
// Many multiples [k_i]P of one fixed point P on the GPU: a development setup's fixed-base products.
//
// The comb of groth16/fixed_base.hpp on the device: its table T[t][d] = [d 2^(w t)]P is made on the
// host once and uploaded, and each thread sums the entries of its scalars' non-zero w-bit digits in
// XYZZ coordinates (one mixed addition per digit, no doublings), then makes its points affine with
// one inversion for all of them (ec/batch_to_affine.hpp). Why: a setup makes ~3 nVars + n G1 and
// nVars G2 points; on 16 CPU cores that took ~6 minutes at 2^25, which left keys of that size out
// of reach of a test run (docs/BENCHMARKS.md, 'Setup on the GPU').
//
// Not constant time: the scalars are a development setup's, whose toxic waste is discarded.
//
// Thread: any; the calls make the object's device current. Device memory: the table (2^w entries
// per window) and one range of scalars and points.
#pragma once

#include <cstddef>
#include <span>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

template <class Group>
class device_fixed_base {
 public:
  using affine = typename Group::affine;
  using scalar = typename Group::scalar;

  // Scalars per kernel launch, with their points (2^22: 128 MiB of scalars, 384 MiB of BLS12-381
  // G1 points or 768 MiB of G2 ones on the device).
  static constexpr std::size_t range = std::size_t{1} << 22;

  // `table` in groth16::fixed_base_table's layout: entry t (2^w - 1) + d - 1 is [d 2^(w t)]P, for
  // t < ceil(scalar bits / w) and 1 <= d < 2^w; uploaded to `device`. Errors: a table of another
  // length, w outside 1..16, CUDA failures.
  static result<device_fixed_base> create(int device, std::span<const affine> table, unsigned window_bits);

  // out[i] = [scalars[i]]P, affine (the point at infinity for a zero scalar). Errors: lengths that
  // differ, CUDA failures.
  status mul(std::span<const scalar> scalars, std::span<affine> out) const;

 private:
  int device_ = 0;
  unsigned window_bits_ = 0;
  unsigned windows_ = 0;
  device_buffer<affine> table_;
};

extern template class device_fixed_base<bn254_g1>;
extern template class device_fixed_base<bn254_g2>;
extern template class device_fixed_base<bls12_381_g1>;
extern template class device_fixed_base<bls12_381_g2>;

}  // namespace cuzk::gpu
