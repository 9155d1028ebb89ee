// SPDX-License-Identifier: MIT OR Apache-2.0
// Signed-digit recoding of MSM scalars: s = sum_w d_w 2^(c w) with every d_w in [-2^(c-1), 2^(c-1)).
//
// With digits of both signs a window of c bits needs only 2^(c-1) buckets (a negative digit adds
// the negated point, and negating an affine point is one field subtraction), which halves the
// bucket memory and the bucket-reduction work of the plain unsigned method.
//
// The recoding has no carry chain. Add the offset K = sum_{w<W} 2^(c-1) 2^(c w) once: s + K
// written in base 2^c has digits e_w in [0, 2^c), and d_w = e_w - 2^(c-1) gives
// sum_w d_w 2^(cw) = s + K - K = s. So the digit of any window is a bit-field extraction from
// s + K, computed on the fly for each (point, window) pair with no digit array in memory. W is
// the smallest window count for which the largest scalar (r - 1) plus K still fits in c W bits.
// (The same identity appears as "offset binary" recoding; the only condition is that s + K
// does not overflow the top window, which `make` ensures.)
//
// A scalar above the bound passed to `make` gives a wrong digit in the top window, but never a
// digit outside [-2^(c-1), 2^(c-1)): extraction masks to c bits, so bucket indices stay in range
// whatever the input.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"

namespace cuzk::msm {

// Windows of 2..max_window bits. One bit has no balanced digit set of this form, and 2^(20-1)
// buckets of a BLS12-381 G2 point are already 192 MiB per thread.
inline constexpr unsigned min_window = 2;
inline constexpr unsigned max_window = 20;

template <std::size_t N>
struct signed_digits {
  // Two extra limbs: s + K may need c W > 64 N bits, and digit extraction reads the limb above
  // the one a window starts in.
  using wide = ff::bigint<N + 2>;

  unsigned c = 0;        // window width in bits
  unsigned windows = 0;  // W
  wide offset;           // K

  static constexpr wide offset_for(unsigned c, unsigned windows) {
    wide k;
    for (unsigned w = 0; w < windows; ++w) {
      const unsigned bit = c * w + c - 1;
      k.limb[bit / 64] |= uint64_t{1} << (bit % 64);
    }
    return k;
  }

  // Window count for scalars up to `max` (r - 1 for a scalar field).
  static constexpr signed_digits make(unsigned c, const ff::bigint<N>& max) {
    signed_digits d;
    d.c = c;
    for (unsigned w = 1;; ++w) {
      wide t;
      for (std::size_t i = 0; i < N; ++i) t.limb[i] = max.limb[i];
      t.add_in_place(offset_for(c, w));
      if (t.bit_length() <= std::size_t{c} * w) {
        d.windows = w;
        d.offset = offset_for(c, w);
        return d;
      }
    }
  }

  constexpr wide shifted(const ff::bigint<N>& s) const {
    wide t;
    for (std::size_t i = 0; i < N; ++i) t.limb[i] = s.limb[i];
    t.add_in_place(offset);
    return t;
  }

  // Reads window `w` of a shifted scalar: its digit in [-2^(c-1), 2^(c-1)).
  struct reader {
    unsigned limb, shift;
    uint64_t mask;
    int64_t half;
    constexpr int64_t operator()(const wide& t) const {
      // (hi << 1) << (63 - shift) is hi << (64 - shift) without the undefined shift by 64.
      const uint64_t v = (t.limb[limb] >> shift) | ((t.limb[limb + 1] << 1) << (63 - shift));
      return static_cast<int64_t>(v & mask) - half;
    }
  };
  constexpr reader window(unsigned w) const {
    const unsigned pos = c * w;
    return {pos / 64, pos % 64, (uint64_t{1} << c) - 1, int64_t{1} << (c - 1)};
  }
};

}  // namespace cuzk::msm
