// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis compiled for BN254's scalar field.
#include "curves/bn254.hpp"
#include "synth/instantiate.hpp"

CUZK_SYNTH_INSTANTIATE(cuzk::bn254::fr)
