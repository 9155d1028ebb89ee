// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the GPU fixed-base products for BN254's G1 and G2 (fixed_base.cuh).
#include "gpu/fixed_base.cuh"

template class cuzk::gpu::device_fixed_base<cuzk::bn254_g1>;
template class cuzk::gpu::device_fixed_base<cuzk::bn254_g2>;
