// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiation of synthesis on the device for BN254's scalar field (abc_device.cuh).
#include "gpu/abc_device.cuh"

namespace cuzk::gpu {
template class device_constraint_matrices<bn254::fr>;
}  // namespace cuzk::gpu
