// SPDX-License-Identifier: MIT OR Apache-2.0
// device_buffer<T>: the owner of one cudaMalloc allocation of `count` elements of T.
//
// Move-only, with a noexcept destructor that frees the memory; creation and copies return status
// values instead of throwing. Plain cudaMalloc (not managed memory): the GPU worker owns its
// buffers and knows where data lives. Copies here are synchronous (the default stream); the
// streamed, pinned path belongs to the engine's GPU worker.
//
// Thread: the owning thread; the CUDA device must be current (cudaSetDevice) when creating.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable values");

 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  // Allocates `count` elements on the current device (uninitialised).
  static result<device_buffer> create(std::size_t count) {
    device_buffer b;
    if (count == 0) return result<device_buffer>(std::move(b));
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      return status(errc::invalid_argument, "device_buffer: element count overflows the byte size");
    void* p = nullptr;
    CUZK_CUDA_TRY(cudaMalloc(&p, count * sizeof(T)));
    b.ptr_ = static_cast<T*>(p);
    b.count_ = count;
    return result<device_buffer>(std::move(b));
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  // Copies `count` elements from host memory into the front of the buffer.
  status copy_from_host(const T* src, std::size_t count) {
    if (count > count_) return status(errc::invalid_argument, "device_buffer::copy_from_host: more elements than the buffer holds");
    if (count == 0) return status::ok();
    CUZK_CUDA_TRY(cudaMemcpy(ptr_, src, count * sizeof(T), cudaMemcpyHostToDevice));
    return status::ok();
  }
  // Copies the first `count` elements back to host memory (waits for work queued before it).
  status copy_to_host(T* dst, std::size_t count) const {
    if (count > count_) return status(errc::invalid_argument, "device_buffer::copy_to_host: more elements than the buffer holds");
    if (count == 0) return status::ok();
    CUZK_CUDA_TRY(cudaMemcpy(dst, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return status::ok();
  }

 private:
  void release() noexcept {
    // A failure here can only be a sticky error from earlier work, which the call that caused it
    // already reported; a destructor has nobody to tell.
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cuzk::gpu
