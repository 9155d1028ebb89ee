// SPDX-License-Identifier: MIT OR Apache-2.0
// The last step of the Groth16 H computation on the device: h_j = a_j b_j - c_j, taken out of
// Montgomery form, as the scalars of the H MSM.
//
// a, b and c are the three vectors after the odd-coset evaluation (Montgomery form, as the NTT
// leaves them); the H MSM wants canonical integers (msm.hpp), so the conversion is fused into the
// same pass: one read of each input and one write, with no trip through host memory. The output
// may be `a` itself (same element size, each thread reads its three inputs before it writes).
//
// In two steps, for a device that holds only two of the three vectors at once (the prover's
// abc_on_device::two): a b first, into a (ab_product), then h from that product and c, which has
// taken b's place meanwhile (h_scalars_from_product). Same values, one more pass over a.
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

// a[i] = a[i] * b[i] for i < n (Montgomery form kept), queued on `stream`; device memory.
template <class Fr>
status ab_product(Fr* a, const Fr* b, std::size_t n, cudaStream_t stream);

// h[i] = canonical(ab[i] - c[i]) for i < n, queued on `stream`; h may be ab. With ab from
// ab_product, the same h as h_scalars(a, b, c).
template <class Fr>
status h_scalars_from_product(const Fr* ab, const Fr* c, typename Fr::repr* h, std::size_t n,
                              cudaStream_t stream);

#define CUZK_H_SCALARS_EXTERN(Fr)                                                                     \
  extern template status h_scalars<Fr>(const Fr*, const Fr*, const Fr*, Fr::repr*, std::size_t,       \
                                       cudaStream_t);                                                 \
  extern template status ab_product<Fr>(Fr*, const Fr*, std::size_t, cudaStream_t);                   \
  extern template status h_scalars_from_product<Fr>(const Fr*, const Fr*, Fr::repr*, std::size_t,     \
                                                    cudaStream_t);
CUZK_H_SCALARS_EXTERN(bn254::fr)
CUZK_H_SCALARS_EXTERN(bls12_381::fr)
#undef CUZK_H_SCALARS_EXTERN

}  // namespace cuzk::gpu
