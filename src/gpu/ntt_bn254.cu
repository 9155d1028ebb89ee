// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the GPU NTT for BN254's scalar field (ntt.cuh).
#include "gpu/ntt.cuh"

template class cuzk::gpu::ntt_plan<cuzk::bn254::fr>;
template cuzk::status cuzk::gpu::ntt_lazy_batch<cuzk::bn254::fr>(int, cuzk::gpu::ntt_lazy_op,
                                                                 const cuzk::bn254::fr*,
                                                                 const cuzk::bn254::fr*, cuzk::bn254::fr*,
                                                                 std::size_t);
