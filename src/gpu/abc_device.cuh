// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for abc_device.hpp, included only by abc_device_<curve>.cu (the explicit
// instantiations).
#pragma once

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <vector>

#include "base/thread_pool.hpp"
#include "gpu/abc_device.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/fp_device.cuh"

namespace cuzk::gpu {

namespace abc_detail {

// A matrix as the kernel reads it: an entry's value is value[index[k]] with a dictionary, value[k]
// without (index null; the branch is the same for every thread).
template <class D, class Offset>
struct device_csr {
  const Offset* row_start;
  const uint32_t* col;
  const D* value;
  const uint16_t* index;
  std::size_t rows;
};

template <class D, class Offset>
__device__ __forceinline__ D row_times_witness(const device_csr<D, Offset>& m, std::size_t r, const D* w) {
  D acc = D::zero();
  if (r >= m.rows) return acc;
  const uint64_t hi = m.row_start[r + 1];
  for (uint64_t k = m.row_start[r]; k < hi; ++k) {
    const D wk = w[m.col[k]];
    if (wk.is_zero()) continue;
    acc += (m.index != nullptr ? m.value[m.index[k]] : m.value[k]) * wk;
  }
  return acc;
}

// n elements made on the host by fill(lo, hi, to) (a status: ok, or why not) into `device`, a
// piece at a time through one host buffer: the indexes and narrowed offsets of a 2^26 circuit's
// matrices, made whole, were ~0.27 GiB of host memory outside the host budget for the moment of
// the upload; a piece is 16 Mi elements (32-64 MiB).
template <class T, class Fill>
status upload_in_pieces(T* device, std::size_t n, Fill&& fill) {
  constexpr std::size_t piece = std::size_t{1} << 24;
  std::vector<T> host(std::min(n, piece));
  for (std::size_t lo = 0; lo < n; lo += piece) {
    const std::size_t hi = std::min(n, lo + piece);
    CUZK_TRY(fill(lo, hi, host.data()));
    CUZK_CUDA_TRY(cudaMemcpy(device + lo, host.data(), (hi - lo) * sizeof(T), cudaMemcpyHostToDevice));
  }
  return status::ok();
}

template <class D, class Offset>
__global__ void abc_kernel(device_csr<D, Offset> ma, device_csr<D, Offset> mb, const D* w, D* a, D* b, D* c,
                           std::size_t n) {
  const std::size_t r = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const D ar = row_times_witness(ma, r, w);
  const D br = row_times_witness(mb, r, w);
  if (a != nullptr) a[r] = ar;  // null for every thread alike, as b and c
  if (b != nullptr) b[r] = br;
  if (c != nullptr) c[r] = ar * br;
}

}  // namespace abc_detail

template <class Fr>
auto device_constraint_matrices<Fr>::upload(const synth::csr_matrix<Fr>& m, const device_matrix_layout& form,
                                            counting_arena* arena) -> result<matrix> {
  matrix out;
  out.rows = m.rows;
  out.indexed = form.indexed;
  if (m.row_start.size() != m.rows + 1)
    return status(errc::invalid_argument, "gpu synthesis: matrix of " + std::to_string(m.rows) +
                                              " rows: expected " + std::to_string(m.rows + 1) +
                                              " row offsets, found " + std::to_string(m.row_start.size()));
  if (form.wide_offsets) {
    auto rs = allocate_in<uint64_t>(arena, m.row_start.size());
    if (!rs) return rs.error();
    out.row_start_wide = std::move(rs).value();
    CUZK_TRY(out.row_start_wide.copy_from_host(m.row_start.data(), m.row_start.size()));
  } else {
    auto rs = allocate_in<uint32_t>(arena, m.row_start.size());
    if (!rs) return rs.error();
    out.row_start = std::move(rs).value();
    CUZK_TRY(abc_detail::upload_in_pieces<uint32_t>(
        out.row_start.data(), m.row_start.size(), [&](std::size_t lo, std::size_t hi, uint32_t* to) {
          std::copy(m.row_start.begin() + static_cast<std::ptrdiff_t>(lo),
                    m.row_start.begin() + static_cast<std::ptrdiff_t>(hi), to);  // every offset < 2^32
          return status::ok();
        }));
  }
  auto col = allocate_in<uint32_t>(arena, m.nnz());
  if (!col) return col.error();
  out.col = std::move(col).value();
  CUZK_TRY(out.col.copy_from_host(m.col.data(), m.nnz()));
  if (!form.indexed) {
    auto value = allocate_in<Fr>(arena, m.nnz());
    if (!value) return value.error();
    out.value = std::move(value).value();
    CUZK_TRY(out.value.copy_from_host(m.value.data(), m.nnz()));
    return result<matrix>(std::move(out));
  }
  // Each entry's index, made on the pool a piece at a time and dropped once on the device. A value
  // the dictionary lacks means the matrix changed after its build: refused, since its index would
  // be wrong.
  const synth::value_index<Fr> lookup(*m.dictionary);
  auto table = allocate_in<Fr>(arena, m.dictionary->size());
  if (!table) return table.error();
  out.value = std::move(table).value();
  CUZK_TRY(out.value.copy_from_host(m.dictionary->data(), m.dictionary->size()));
  auto idx = allocate_in<uint16_t>(arena, m.nnz());
  if (!idx) return idx.error();
  out.index = std::move(idx).value();
  CUZK_TRY(abc_detail::upload_in_pieces<uint16_t>(
      out.index.data(), m.nnz(), [&](std::size_t lo, std::size_t hi, uint16_t* to) -> status {
        std::atomic<bool> missing{false};
        thread_pool::global().parallel_for(
            hi - lo,
            [&](std::size_t b, std::size_t e) {
              if (!lookup.indexes({m.value.data() + lo + b, e - b}, to + b))
                missing.store(true, std::memory_order_relaxed);
            },
            1 << 16);
        if (!missing.load()) return status::ok();
        return status(errc::invalid_argument,
                      "gpu synthesis: a matrix entry's value is not in the matrix's dictionary (the matrix "
                      "changed after it was built)");
      }));
  return result<matrix>(std::move(out));
}

template <class Fr>
result<device_constraint_matrices<Fr>> device_constraint_matrices<Fr>::create(
    const synth::constraint_matrices<Fr>& m, counting_arena* arena, offsets kept) {
  device_constraint_matrices out;
  out.n_vars_ = m.n_vars;
  out.wide_ = kept == offsets::wide || wide(m);
  auto a = upload(m.a, layout(m.a, out.wide_), arena);
  if (!a) return a.error();
  out.a_ = std::move(a).value();
  auto b = upload(m.b, layout(m.b, out.wide_), arena);
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
  if (w == nullptr || (a == nullptr) != (b == nullptr) || (a == nullptr && c == nullptr))
    return status(errc::invalid_argument,
                  "gpu synthesis: device pointers: expected the witness, and a and b, c, or all three");
  constexpr unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  auto launch = [&](auto offsets_of) {
    using Offset = std::remove_const_t<std::remove_pointer_t<decltype(offsets_of(a_))>>;
    auto view = [&](const matrix& m) {
      return abc_detail::device_csr<D, Offset>{offsets_of(m), m.col.data(),
                                               reinterpret_cast<const D*>(m.value.data()),
                                               m.indexed ? m.index.data() : nullptr, m.rows};
    };
    abc_detail::abc_kernel<D, Offset><<<blocks, threads, 0, stream>>>(
        view(a_), view(b_), reinterpret_cast<const D*>(w), reinterpret_cast<D*>(a), reinterpret_cast<D*>(b),
        reinterpret_cast<D*>(c), n);
  };
  if (wide_)
    launch([](const matrix& m) -> const uint64_t* { return m.row_start_wide.data(); });
  else
    launch([](const matrix& m) -> const uint32_t* { return m.row_start.data(); });
  CUZK_CUDA_TRY(cudaGetLastError());
  return status::ok();
}

}  // namespace cuzk::gpu
