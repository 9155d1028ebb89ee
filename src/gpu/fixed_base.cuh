// SPDX-License-Identifier: MIT OR Apache-2.0
// The kernel and host code behind fixed_base.hpp, as templates over the host group; included only by
// fixed_base_<curve>.cu, which hold the explicit instantiations.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "ec/affine.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/xyzz.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device.hpp"
#include "gpu/fixed_base.hpp"
#include "gpu/fp2_device.cuh"

namespace cuzk::gpu {

namespace fixed_base_detail {

// Points per thread: they share one inversion. 8 makes the inversion's share small (an inversion
// costs about as much as the 16-32 additions of one point) and keeps the thread's XYZZ sums, which
// live in local memory, within what L1 holds for a block.
constexpr unsigned points_per_thread = 8;
constexpr unsigned block_threads = 128;

// Digit t of a 256-bit integer of four little-endian 64-bit limbs: bits [t w, t w + w).
__device__ __forceinline__ unsigned digit(const uint64_t* s, unsigned t, unsigned w) {
  const unsigned bit = t * w;
  const unsigned limb = bit / 64, off = bit % 64;
  uint64_t d = s[limb] >> off;
  if (off + w > 64 && limb + 1 < 4) d |= s[limb + 1] << (64 - off);
  return static_cast<unsigned>(d & ((uint64_t{1} << w) - 1));
}

// out[i] = sum over t of table[t (2^w - 1) + d_t - 1] for the non-zero digits d_t of scalar i
// (canonical, four 64-bit limbs each), for i < n; each thread takes points_per_thread consecutive
// scalars and makes their sums affine together.
template <class F>
__global__ void __launch_bounds__(block_threads) fixed_base_kernel(const ec::affine<F>* __restrict__ table, unsigned w,
                                                                   unsigned windows, const uint64_t* __restrict__ scalars,
                                                                   ec::affine<F>* __restrict__ out, std::size_t n) {
  constexpr unsigned K = points_per_thread;
  const std::size_t first = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * K;
  if (first >= n) return;
  const auto count = static_cast<unsigned>(n - first < K ? n - first : K);
  const std::size_t per = (std::size_t{1} << w) - 1;
  ec::xyzz<F> sums[K];
  for (unsigned k = 0; k < count; ++k) {
    const uint64_t* s = scalars + 4 * (first + k);
    ec::xyzz<F> acc = ec::xyzz<F>::infinity();
    for (unsigned t = 0; t < windows; ++t) {
      const unsigned d = digit(s, t, w);
      if (d != 0) acc += table[t * per + d - 1];
    }
    sums[k] = acc;
  }
  ec::batch_to_affine(sums, out + first, count);
}

}  // namespace fixed_base_detail

template <class Group>
result<device_fixed_base<Group>> device_fixed_base<Group>::create(int device, std::span<const affine> table,
                                                                  unsigned window_bits) {
  if (window_bits < 1 || window_bits > 16)
    return status(errc::invalid_argument, "gpu::device_fixed_base: window: expected 1..16 bits, found " +
                                              std::to_string(window_bits));
  const unsigned windows = (scalar::bits + window_bits - 1) / window_bits;
  const std::size_t want = std::size_t{windows} * ((std::size_t{1} << window_bits) - 1);
  if (table.size() != want)
    return status(errc::invalid_argument, "gpu::device_fixed_base: table: expected " + std::to_string(want) +
                                              " points for " + std::to_string(windows) + " windows of " +
                                              std::to_string(window_bits) + " bits, found " +
                                              std::to_string(table.size()));
  CUZK_TRY(use_device(device));
  device_fixed_base f;
  f.device_ = device;
  f.window_bits_ = window_bits;
  f.windows_ = windows;
  auto t = device_buffer<affine>::create(table.size());
  if (!t) return t.error();
  f.table_ = std::move(*t);
  CUZK_TRY(f.table_.copy_from_host(table.data(), table.size()));
  return result<device_fixed_base>(std::move(f));
}

template <class Group>
status device_fixed_base<Group>::mul(std::span<const scalar> scalars, std::span<affine> out) const {
  using F = device_field_t<typename Group::field>;
  using D = ec::affine<F>;
  using repr = typename scalar::repr;
  static_assert(sizeof(D) == sizeof(affine), "device and host affine points must share a layout");
  static_assert(sizeof(repr) == 32, "a canonical scalar is four 64-bit limbs");
  if (scalars.size() != out.size())
    return status(errc::invalid_argument, "gpu::device_fixed_base::mul: " + std::to_string(scalars.size()) +
                                              " scalars for " + std::to_string(out.size()) + " points");
  if (scalars.empty()) return status::ok();
  CUZK_TRY(use_device(device_));
  const std::size_t r = std::min(range, scalars.size());
  auto dev_scalars = device_buffer<repr>::create(r);
  if (!dev_scalars) return dev_scalars.error();
  auto dev_points = device_buffer<affine>::create(r);
  if (!dev_points) return dev_points.error();
  std::vector<repr> canonical(r);
  for (std::size_t at = 0; at < scalars.size(); at += r) {
    const std::size_t m = std::min(r, scalars.size() - at);
    thread_pool::global().parallel_for(m, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) canonical[i] = scalars[at + i].to_canonical();
    });
    CUZK_TRY(dev_scalars->copy_from_host(canonical.data(), m));
    const std::size_t per_block = std::size_t{fixed_base_detail::points_per_thread} * fixed_base_detail::block_threads;
    const auto blocks = static_cast<unsigned>((m + per_block - 1) / per_block);
    fixed_base_detail::fixed_base_kernel<F><<<blocks, fixed_base_detail::block_threads>>>(
        reinterpret_cast<const D*>(table_.data()), window_bits_, windows_,
        reinterpret_cast<const uint64_t*>(dev_scalars->data()), reinterpret_cast<D*>(dev_points->data()), m);
    CUZK_CUDA_TRY(cudaGetLastError());
    CUZK_TRY(dev_points->copy_to_host(out.data() + at, m));
  }
  return status::ok();
}

}  // namespace cuzk::gpu
