// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiations of the GPU batch prover for BLS12-381.
#include "groth16/gpu/gpu_batch_prover_impl.hpp"

CUZK_GPU_BATCH_PROVER_INSTANTIATE(bls12_381)
