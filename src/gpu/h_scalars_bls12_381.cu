// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the H scalars kernels for BLS12-381's scalar field (h_scalars.cuh).
#include "gpu/h_scalars.cuh"

namespace cuzk::gpu {
CUZK_H_SCALARS_INSTANTIATE(bls12_381::fr)
}  // namespace cuzk::gpu
