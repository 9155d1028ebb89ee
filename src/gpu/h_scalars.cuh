// SPDX-License-Identifier: MIT OR Apache-2.0
// The kernels behind h_scalars.hpp, a template over the CPU field type; included only by
// h_scalars_<curve>.cu, which hold the explicit instantiations.
//
// Cost: one product and one subtraction, then a Montgomery product by the raw integer 1
// (x R * 1 * R^-1 = x), which leaves the canonical value fully reduced (< r) exactly as the CPU's
// to_canonical(). 128 bytes of traffic per element: 0.5 ms at 2^24 on the H200, far below the
// NTTs around it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/fp_device.cuh"
#include "gpu/h_scalars.hpp"

namespace cuzk::gpu {

namespace h_detail {

// No __restrict__: h may be a.
template <class D>
__global__ void h_kernel(const D* a, const D* b, const D* c, D* h, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  D raw_one = D::zero();
  raw_one.limb[0] = 1;
  const D x = a[i] * b[i] - c[i];
  h[i] = x * raw_one;
}

template <class D>
__global__ void ab_kernel(D* a, const D* b, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = a[i] * b[i];
}

// No __restrict__: h may be ab.
template <class D>
__global__ void h_from_product_kernel(const D* ab, const D* c, D* h, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  D raw_one = D::zero();
  raw_one.limb[0] = 1;
  const D x = ab[i] - c[i];
  h[i] = x * raw_one;
}

constexpr unsigned threads = 256;

inline unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace h_detail

template <class Fr>
status h_scalars(const Fr* a, const Fr* b, const Fr* c, typename Fr::repr* h, std::size_t n,
                 cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  static_assert(sizeof(D) == sizeof(Fr) && sizeof(typename Fr::repr) == sizeof(Fr),
                "a canonical integer and a Montgomery element must share a layout");
  if (n == 0) return status::ok();
  if (a == nullptr || b == nullptr || c == nullptr || h == nullptr)
    return status(errc::invalid_argument, "gpu::h_scalars: null device pointer");
  h_detail::h_kernel<D>
      <<<h_detail::blocks_for(n), h_detail::threads, 0, stream>>>(reinterpret_cast<const D*>(a), reinterpret_cast<const D*>(b),
                                       reinterpret_cast<const D*>(c), reinterpret_cast<D*>(h), n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

template <class Fr>
status ab_product(Fr* a, const Fr* b, std::size_t n, cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  static_assert(sizeof(D) == sizeof(Fr), "a device element and a host one must share a layout");
  if (n == 0) return status::ok();
  if (a == nullptr || b == nullptr) return status(errc::invalid_argument, "gpu::ab_product: null device pointer");
  h_detail::ab_kernel<D><<<h_detail::blocks_for(n), h_detail::threads, 0, stream>>>(
      reinterpret_cast<D*>(a), reinterpret_cast<const D*>(b), n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

template <class Fr>
status h_scalars_from_product(const Fr* ab, const Fr* c, typename Fr::repr* h, std::size_t n,
                              cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  static_assert(sizeof(D) == sizeof(Fr) && sizeof(typename Fr::repr) == sizeof(Fr),
                "a canonical integer and a Montgomery element must share a layout");
  if (n == 0) return status::ok();
  if (ab == nullptr || c == nullptr || h == nullptr)
    return status(errc::invalid_argument, "gpu::h_scalars_from_product: null device pointer");
  h_detail::h_from_product_kernel<D><<<h_detail::blocks_for(n), h_detail::threads, 0, stream>>>(
      reinterpret_cast<const D*>(ab), reinterpret_cast<const D*>(c), reinterpret_cast<D*>(h), n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

// The explicit instantiations for one scalar field, written once (h_scalars_<curve>.cu expand it).
#define CUZK_H_SCALARS_INSTANTIATE(Fr)                                                                       \
  template status h_scalars<Fr>(const Fr*, const Fr*, const Fr*, Fr::repr*, std::size_t, cudaStream_t);     \
  template status ab_product<Fr>(Fr*, const Fr*, std::size_t, cudaStream_t);                                 \
  template status h_scalars_from_product<Fr>(const Fr*, const Fr*, Fr::repr*, std::size_t, cudaStream_t);

}  // namespace cuzk::gpu
