// Explicit instantiation of the H scalars kernel for BN254's scalar field (h_scalars.cuh).
#include "gpu/h_scalars.cuh"

namespace cuzk::gpu {
template status h_scalars<bn254::fr>(const bn254::fr*, const bn254::fr*, const bn254::fr*, bn254::fr::repr*,
                                     std::size_t, cudaStream_t);
}  // namespace cuzk::gpu
