// SPDX-License-Identifier: MIT OR Apache-2.0
// Roots of unity in a scalar field, defined exactly as snarkjs/ffjavascript define them:
// omega_{2^k} = g^((r - 1) / 2^k) for the curve's fixed generator g (5 on both curves). Any other
// primitive root would give a valid NTT but different evaluation points, and then proofs would
// not match the proving keys snarkjs writes.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>

namespace cuzk::ff {

// A primitive 2^k-th root of unity in Fr, for 0 <= k <= Fr::two_adicity.
template <class Fr>
constexpr Fr root_of_unity(std::size_t k, uint64_t generator) {
  assert(k <= Fr::two_adicity);
  // g^((r-1)/2^k) = (g^odd)^(2^(s-k)), where r - 1 = 2^s * odd.
  Fr w = Fr::from_uint(generator).pow(Fr::odd_part);
  for (std::size_t i = k; i < Fr::two_adicity; ++i) w = w.sqr();
  return w;
}

}  // namespace cuzk::ff
