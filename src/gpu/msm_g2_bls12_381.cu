// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the GPU G2 MSM for BLS12-381 (msm.cuh). One file per group and curve,
// so that the four compile in parallel.
#include "gpu/msm_impl.cuh"

template class cuzk::gpu::device_msm<cuzk::bls12_381_g2>;
