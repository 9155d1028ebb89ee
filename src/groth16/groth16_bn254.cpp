// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prover, verifier and setup compiled for BN254.
#include "curves/bn254_groups.hpp"
#include "groth16/instantiate.hpp"

CUZK_GROTH16_INSTANTIATE(bn254)
