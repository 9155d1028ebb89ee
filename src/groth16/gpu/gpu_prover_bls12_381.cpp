// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiations of the GPU prover for BLS12-381.
#include "groth16/gpu/gpu_prover_impl.hpp"

CUZK_GPU_PROVER_INSTANTIATE(bls12_381)
