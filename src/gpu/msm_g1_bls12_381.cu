// Explicit instantiation of the GPU G1 MSM for BLS12-381 (msm.cuh).
#include "gpu/msm.cuh"

template class cuzk::gpu::msm_g1<cuzk::bls12_381>;
