// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiations of the batch field operations for BN254 (field_batch.cuh).
#include "gpu/field_batch.cuh"

CUZK_GPU_FIELD_BATCH_INSTANTIATE(cuzk::bn254::fq)
CUZK_GPU_FIELD_BATCH_INSTANTIATE(cuzk::bn254::fr)
