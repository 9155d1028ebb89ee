// SPDX-License-Identifier: MIT OR Apache-2.0
// How much of a scalar vector is 0 or 1, from an even sample of it: what an MSM over a witness
// asks before it chooses how to fill its buckets.
//
// Why it matters. A witness of bits (a PoRep circuit's SHA-256 and Merkle paths) puts nearly every
// point of an MSM into one bucket of the first window. The GPU's affine rounds halve a bucket per
// round, with a step on the host between rounds, so one bucket of 2^20 points costs 20 such steps
// in every range of streamed points, while the XYZZ runs split it into work items and merge them
// on the device (docs/gpu/msm.md, 'The witness decides G2's accumulation').
//
// Why a sample. The choice is one per MSM and the vector is 2^26 scalars of 32 bytes; 4096 of them,
// spread evenly, read 128 KiB and give the share within about +-0.016 (two standard deviations at
// a share of one half), well inside the margins the choice is made with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

namespace cuzk::msm {

// The default number of scalars zero_one_share reads.
inline constexpr std::size_t zero_one_samples = 4096;

// The share of `scalars` (canonical little-endian limbs: ff::bigint) equal to 0 or 1, counted over
// min(samples, size) of them at even strides; every one of them where the vector is that short.
// 0 for an empty vector.
template <class Repr>
double zero_one_share(std::span<const Repr> scalars, std::size_t samples = zero_one_samples) {
  const std::size_t n = scalars.size();
  if (n == 0 || samples == 0) return 0;
  const std::size_t taken = std::min(samples, n);
  std::size_t hits = 0;
  for (std::size_t j = 0; j < taken; ++j) {
    // The j-th of `taken` evenly spaced positions; exact in 128 bits for any n below 2^64.
    const std::size_t i = static_cast<std::size_t>(static_cast<unsigned __int128>(j) * n / taken);
    const Repr& s = scalars[i];
    bool high_zero = true;
    for (std::size_t l = 1; l < Repr::num_limbs; ++l) high_zero = high_zero && s.limb[l] == 0;
    if (high_zero && s.limb[0] <= 1) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(taken);
}

}  // namespace cuzk::msm
