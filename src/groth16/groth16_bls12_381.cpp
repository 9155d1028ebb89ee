// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prover, verifier and setup compiled for BLS12-381.
#include "curves/bls12_381_groups.hpp"
#include "groth16/instantiate.hpp"

CUZK_GROTH16_INSTANTIATE(bls12_381)
