// Explicit instantiation of the GPU NTT for BN254's scalar field (ntt.cuh).
#include "gpu/ntt.cuh"

template class cuzk::gpu::ntt_plan<cuzk::bn254::fr>;
