// Explicit instantiation of the GPU NTT for BLS12-381's scalar field (ntt.cuh).
#include "gpu/ntt.cuh"

template class cuzk::gpu::ntt_plan<cuzk::bls12_381::fr>;
