// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernels and host wrappers behind field_batch.hpp, as templates over the CPU field type.
//
// Included only by the per-curve translation units (field_bn254.cu, field_bls12_381.cu), which
// hold nothing but explicit instantiations; the header declares them `extern template`, so the
// two curves compile in parallel and a change to one recompiles one file.
#pragma once

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/fp_device.cuh"

namespace cuzk::gpu {

namespace detail {

template <class F>
using device_field_t = fp_device<typename F::params>;

// An array of ff::fp<P> in memory is an array of fp_device<P>: same bytes, same meaning.
template <class F>
constexpr bool same_layout = sizeof(device_field_t<F>) == sizeof(F) && alignof(device_field_t<F>) == alignof(F);

template <field_op Op, class D>
__global__ void field_op_kernel(const D* __restrict__ a, const D* __restrict__ b, D* __restrict__ out,
                                std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const D x = a[i];
    D r;
    if constexpr (Op == field_op::mul) r = x * b[i];
    else if constexpr (Op == field_op::add) r = x + b[i];
    else if constexpr (Op == field_op::sub) r = x - b[i];
    else if constexpr (Op == field_op::sqr) r = x.sqr();
    else if constexpr (Op == field_op::neg) r = -x;
    else if constexpr (Op == field_op::inv) r = x.inverse();
    else r = x.dbl();
    out[i] = r;
  }
}

template <class D>
__global__ void field_mul_chain_kernel(const D* __restrict__ a, const D* __restrict__ b, D* __restrict__ out,
                                       std::size_t n, unsigned rounds) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  D x = a[i];
  const D y = b[i];
#pragma unroll 1
  for (unsigned r = 0; r < rounds; ++r) x = x * y;
  out[i] = x;
}

constexpr unsigned block_size = 256;

inline unsigned grid_for(std::size_t n) {
  // The batch kernels stride over the array, so the grid need not cover n; 2^16 blocks of 256
  // threads fill any current GPU many times over.
  return static_cast<unsigned>(std::min<std::size_t>((n + block_size - 1) / block_size, std::size_t{1} << 16));
}

template <field_op Op, class D>
status launch_op(const D* a, const D* b, D* out, std::size_t n) {
  field_op_kernel<Op, D><<<grid_for(n), block_size>>>(a, b, out, n);
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

}  // namespace detail

template <class F>
status field_batch(int device, field_op op, const F* a, const F* b, F* out, std::size_t n) {
  using D = detail::device_field_t<F>;
  static_assert(detail::same_layout<F>, "fp_device must have the CPU field's layout");
  if (n == 0) return status::ok();
  const bool unary = op == field_op::sqr || op == field_op::neg || op == field_op::dbl || op == field_op::inv;
  if (a == nullptr || out == nullptr || (!unary && b == nullptr))
    return status(errc::invalid_argument, "gpu::field_batch: null input or output array");
  CUZK_CUDA_TRY(cudaSetDevice(device));

  auto da = device_buffer<D>::create(n);
  if (!da) return da.error();
  auto dout = device_buffer<D>::create(n);
  if (!dout) return dout.error();
  device_buffer<D> db_owner;
  if (!unary) {
    auto db = device_buffer<D>::create(n);
    if (!db) return db.error();
    db_owner = std::move(*db);
    CUZK_TRY(db_owner.copy_from_host(reinterpret_cast<const D*>(b), n));
  }
  CUZK_TRY(da->copy_from_host(reinterpret_cast<const D*>(a), n));
  const D* pa = da->data();
  const D* pb = db_owner.data();
  D* po = dout->data();

  switch (op) {
    case field_op::mul: CUZK_TRY((detail::launch_op<field_op::mul>(pa, pb, po, n))); break;
    case field_op::add: CUZK_TRY((detail::launch_op<field_op::add>(pa, pb, po, n))); break;
    case field_op::sub: CUZK_TRY((detail::launch_op<field_op::sub>(pa, pb, po, n))); break;
    case field_op::sqr: CUZK_TRY((detail::launch_op<field_op::sqr>(pa, pb, po, n))); break;
    case field_op::neg: CUZK_TRY((detail::launch_op<field_op::neg>(pa, pb, po, n))); break;
    case field_op::dbl: CUZK_TRY((detail::launch_op<field_op::dbl>(pa, pb, po, n))); break;
    case field_op::inv: CUZK_TRY((detail::launch_op<field_op::inv>(pa, pb, po, n))); break;
  }
  CUZK_TRY(dout->copy_to_host(reinterpret_cast<D*>(out), n));
  return status::ok();
}

template <class F>
result<double> field_mul_rate(int device, const F* a, const F* b, F* out, std::size_t n, unsigned rounds,
                              unsigned repeats) {
  using D = detail::device_field_t<F>;
  static_assert(detail::same_layout<F>, "fp_device must have the CPU field's layout");
  if (n == 0 || rounds == 0 || repeats == 0 || a == nullptr || b == nullptr)
    return status(errc::invalid_argument, "gpu::field_mul_rate: empty problem or null input");
  CUZK_CUDA_TRY(cudaSetDevice(device));

  auto da = device_buffer<D>::create(n);
  if (!da) return da.error();
  auto db = device_buffer<D>::create(n);
  if (!db) return db.error();
  auto dout = device_buffer<D>::create(n);
  if (!dout) return dout.error();
  CUZK_TRY(da->copy_from_host(reinterpret_cast<const D*>(a), n));
  CUZK_TRY(db->copy_from_host(reinterpret_cast<const D*>(b), n));

  auto start = cuda_event::create();
  if (!start) return start.error();
  auto stop = cuda_event::create();
  if (!stop) return stop.error();

  const unsigned grid = static_cast<unsigned>((n + detail::block_size - 1) / detail::block_size);
  std::vector<float> ms;
  for (unsigned rep = 0; rep <= repeats; ++rep) {  // rep 0 is the warm-up
    CUZK_TRY(start->record());
    detail::field_mul_chain_kernel<D><<<grid, detail::block_size>>>(da->data(), db->data(), dout->data(), n, rounds);
    CUZK_CUDA_TRY(cudaGetLastError());
    CUZK_TRY(stop->record());
    auto t = cuda_event::elapsed_ms(*start, *stop);
    if (!t) return t.error();
    if (rep > 0) ms.push_back(*t);
  }
  if (out != nullptr) CUZK_TRY(dout->copy_to_host(reinterpret_cast<D*>(out), n));

  std::sort(ms.begin(), ms.end());
  const double median_s = ms[ms.size() / 2] * 1e-3;
  if (!(median_s > 0)) return status(errc::internal, "gpu::field_mul_rate: zero elapsed time");
  return static_cast<double>(n) * rounds / median_s;
}

}  // namespace cuzk::gpu

#define CUZK_GPU_FIELD_BATCH_INSTANTIATE(F)                                                                  \
  template ::cuzk::status cuzk::gpu::field_batch<F>(int, field_op, const F*, const F*, F*, std::size_t);   \
  template ::cuzk::result<double> cuzk::gpu::field_mul_rate<F>(int, const F*, const F*, F*, std::size_t, \
                                                               unsigned, unsigned);
