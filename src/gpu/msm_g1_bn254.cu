// Explicit instantiation of the GPU G1 MSM for BN254 (msm.cuh).
#include "gpu/msm.cuh"

template class cuzk::gpu::msm_g1<cuzk::bn254>;
