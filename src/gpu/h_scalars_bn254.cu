// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the H scalars kernels for BN254's scalar field (h_scalars.cuh).
#include "gpu/h_scalars.cuh"

namespace cuzk::gpu {
CUZK_H_SCALARS_INSTANTIATE(bn254::fr)
}  // namespace cuzk::gpu
