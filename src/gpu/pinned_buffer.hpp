// SPDX-License-Identifier: MIT OR Apache-2.0
// pinned_buffer<T>: the owner of one page-locked host allocation (cudaHostAlloc) of `count`
// elements of T.
//
// Why pinned: the copy engines read page-locked memory directly, at the PCIe/NVLink line rate
// (~55 GB/s on the H200 machine, docs/BENCHMARKS.md, 'Reference points'), while pageable memory goes
// through a driver staging buffer at a fraction of that, and cudaMemcpyAsync from pageable memory is not
// even asynchronous. Pinning is expensive (cudaHostAlloc: ~0.8 s per GiB, it makes and locks every
// page on one thread; large blocks are locked faster by locked_host_memory.hpp), so the
// prover allocates these once per key and reuses them for every proof (the MSM, its few plan words
// once per object); nothing here is meant to be created per call.
//
// Move-only, with a noexcept destructor that frees the memory, like device_buffer.
//
// Thread: any thread may read and write the memory; creation and destruction need the CUDA
// runtime initialised (the device current does not matter: portable allocation).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned memory holds trivially copyable values");

 public:
  pinned_buffer() = default;
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~pinned_buffer() { release(); }

  // `count` uninitialised elements, usable by every device (cudaHostAllocPortable): a key may be
  // served from another device ordinal than the one current at allocation.
  static result<pinned_buffer> create(std::size_t count) {
    pinned_buffer b;
    if (count == 0) return result<pinned_buffer>(std::move(b));
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      return status(errc::invalid_argument, "pinned_buffer: element count overflows the byte size");
    void* p = nullptr;
    CUZK_CUDA_TRY(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocPortable));
    b.ptr_ = static_cast<T*>(p);
    b.count_ = count;
    return result<pinned_buffer>(std::move(b));
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  std::span<T> span() noexcept { return {ptr_, count_}; }
  std::span<const T> span() const noexcept { return {ptr_, count_}; }

 private:
  void release() noexcept {
    // As in device_buffer: a failure here can only be an earlier sticky error, already reported.
    if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cuzk::gpu
