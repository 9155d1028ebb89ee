// SPDX-License-Identifier: MIT OR Apache-2.0
// Affine points (x, y) on a short-Weierstrass curve y^2 = x^3 + b over a field F.
//
// The point at infinity is encoded as (0, 0), exactly as snarkjs writes it in .zkey files. That
// is unambiguous because b != 0 on every curve here, so (0, 0) is never on the curve. Keeping the
// encoding in the type (rather than a separate flag) means a proving key's points can be used in
// place, in the file's own layout.
#pragma once

#include "base/hd.hpp"

namespace cuzk::ec {

template <class F>
struct affine {
  using field = F;
  F x{}, y{};

  CUZK_HD static constexpr affine infinity() { return {}; }
  CUZK_HD constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  // nvcc treats a defaulted member as __host__ __device__ already (an annotation would be a warning).
  constexpr bool operator==(const affine&) const = default;
  CUZK_HD constexpr affine operator-() const { return is_infinity() ? *this : affine{x, -y}; }
};

}  // namespace cuzk::ec
