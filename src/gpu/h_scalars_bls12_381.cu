// Explicit instantiation of the H scalars kernel for BLS12-381's scalar field (h_scalars.cuh).
#include "gpu/h_scalars.cuh"

namespace cuzk::gpu {
template status h_scalars<bls12_381::fr>(const bls12_381::fr*, const bls12_381::fr*, const bls12_381::fr*,
                                         bls12_381::fr::repr*, std::size_t, cudaStream_t);
}  // namespace cuzk::gpu
