// The last step of the Groth16 H computation on the device: h_j = a_j b_j - c_j, taken out of
// Montgomery form, as the scalars of the H MSM.
//
// a, b and c are the three vectors after the odd-coset evaluation (Montgomery form, as the NTT
// leaves them); the H MSM wants canonical integers (msm.hpp), so the conversion is fused into the
// same pass: one read of each input and one write, with no trip through host memory. The output
// may be `a` itself (same element size, each thread reads its three inputs before it writes).
//
// Thread: the thread that owns the device; the device must be current.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::gpu {

// h[i] = canonical(a[i] * b[i] - c[i]) for i < n, queued on `stream`; all four are device memory.
template <class Fr>
status h_scalars(const Fr* a, const Fr* b, const Fr* c, typename Fr::repr* h, std::size_t n,
                 cudaStream_t stream);

extern template status h_scalars<bn254::fr>(const bn254::fr*, const bn254::fr*, const bn254::fr*,
                                            bn254::fr::repr*, std::size_t, cudaStream_t);
extern template status h_scalars<bls12_381::fr>(const bls12_381::fr*, const bls12_381::fr*,
                                                const bls12_381::fr*, bls12_381::fr::repr*, std::size_t,
                                                cudaStream_t);

}  // namespace cuzk::gpu
