// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of the GPU NTT for BLS12-381's scalar field (ntt.cuh).
#include "gpu/ntt.cuh"

template class cuzk::gpu::ntt_plan<cuzk::bls12_381::fr>;
template cuzk::status cuzk::gpu::ntt_lazy_batch<cuzk::bls12_381::fr>(int, cuzk::gpu::ntt_lazy_op,
                                                                     const cuzk::bls12_381::fr*,
                                                                     const cuzk::bls12_381::fr*,
                                                                     cuzk::bls12_381::fr*, std::size_t);
