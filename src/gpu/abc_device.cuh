// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for abc_device.hpp, included only by abc_device_<curve>.cu (the explicit
// instantiations).
#pragma once

#include "gpu/abc_device.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/fp_device.cuh"

namespace cuzk::gpu {

namespace abc_detail {

template <class D>
struct device_csr {
  const uint64_t* row_start;
  const uint32_t* col;
  const D* value;
  std::size_t rows;
};

template <class D>
__device__ __forceinline__ D row_times_witness(const device_csr<D>& m, std::size_t r, const D* w) {
  D acc = D::zero();
  if (r >= m.rows) return acc;
  const uint64_t hi = m.row_start[r + 1];
  for (uint64_t k = m.row_start[r]; k < hi; ++k) {
    const D wk = w[m.col[k]];
    if (wk.is_zero()) continue;
    acc += m.value[k] * wk;
  }
  return acc;
}

template <class D>
__global__ void abc_kernel(device_csr<D> ma, device_csr<D> mb, const D* w, D* a, D* b, D* c, std::size_t n) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const D ar = row_times_witness(ma, r, w);
  const D br = row_times_witness(mb, r, w);
  a[r] = ar;
  b[r] = br;
  c[r] = ar * br;
}

}  // namespace abc_detail

template <class Fr>
auto device_constraint_matrices<Fr>::upload(const synth::csr_matrix<Fr>& m, counting_arena* arena)
    -> result<matrix> {
  matrix out;
  out.rows = m.rows;
  auto rs = allocate_in<uint64_t>(arena, m.row_start.size());
  if (!rs) return rs.error();
  out.row_start = std::move(rs).value();
  CUZK_TRY(out.row_start.copy_from_host(m.row_start.data(), m.row_start.size()));
  auto col = allocate_in<uint32_t>(arena, m.nnz());
  if (!col) return col.error();
  out.col = std::move(col).value();
  CUZK_TRY(out.col.copy_from_host(m.col.data(), m.nnz()));
  auto value = allocate_in<Fr>(arena, m.nnz());
  if (!value) return value.error();
  out.value = std::move(value).value();
  CUZK_TRY(out.value.copy_from_host(m.value.data(), m.nnz()));
  return result<matrix>(std::move(out));
}

template <class Fr>
result<device_constraint_matrices<Fr>> device_constraint_matrices<Fr>::create(
    const synth::constraint_matrices<Fr>& m, counting_arena* arena) {
  device_constraint_matrices out;
  out.n_vars_ = m.n_vars;
  auto a = upload(m.a, arena);
  if (!a) return a.error();
  out.a_ = std::move(a).value();
  auto b = upload(m.b, arena);
  if (!b) return b.error();
  out.b_ = std::move(b).value();
  return result<device_constraint_matrices>(std::move(out));
}

template <class Fr>
status device_constraint_matrices<Fr>::evaluate(const typename Fr::repr* w, Fr* a, Fr* b, Fr* c, std::size_t n,
                                                cudaStream_t stream) const {
  using D = fp_device<typename Fr::params>;
  static_assert(sizeof(D) == sizeof(Fr) && sizeof(typename Fr::repr) == sizeof(Fr),
                "a canonical integer and a Montgomery element must share a layout");
  if (n < rows())
    return status(errc::invalid_argument, "gpu synthesis: buffers of " + std::to_string(n) +
                                              " elements: expected at least the matrices' " +
                                              std::to_string(rows()) + " rows");
  if (n == 0) return status::ok();
  if (w == nullptr || a == nullptr || b == nullptr || c == nullptr)
    return status(errc::invalid_argument, "gpu synthesis: null device pointer");
  auto view = [](const matrix& m) {
    return abc_detail::device_csr<D>{m.row_start.data(), m.col.data(), reinterpret_cast<const D*>(m.value.data()),
                                     m.rows};
  };
  constexpr unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  abc_detail::abc_kernel<D><<<blocks, threads, 0, stream>>>(view(a_), view(b_), reinterpret_cast<const D*>(w),
                                                            reinterpret_cast<D*>(a), reinterpret_cast<D*>(b),
                                                            reinterpret_cast<D*>(c), n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

}  // namespace cuzk::gpu
