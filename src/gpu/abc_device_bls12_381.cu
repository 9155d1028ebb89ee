// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of synthesis on the device for BLS12-381's scalar field (abc_device.cuh).
#include "gpu/abc_device.cuh"

namespace cuzk::gpu {
template class device_constraint_matrices<bls12_381::fr>;
}  // namespace cuzk::gpu
