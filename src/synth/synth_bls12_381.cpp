// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis compiled for BLS12-381's scalar field.
#include "curves/bls12_381.hpp"
#include "synth/instantiate.hpp"

CUZK_SYNTH_INSTANTIATE(cuzk::bls12_381::fr)
