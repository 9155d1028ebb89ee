// SPDX-License-Identifier: MIT OR Apache-2.0
// locked_host_memory: a large block of page-locked host memory, made by locking ordinary pages
// (mmap, first touch on many threads, one cudaHostRegister) rather than by cudaHostAlloc.
//
// Why: cudaHostAlloc makes and locks its pages on the calling thread, 0.79 s per GiB on the H200
// machine (12.6 s for 16 GiB; 7.5 s when 16 threads each allocate a piece), which put ~60 s of
// pinning in front of a 2^27 key's first proof. Faulting the pages in on every core and then
// registering the block costs 0.06 s per GiB (0.6 s + 0.4 s for 16 GiB), and the copy engines
// read it at the same 55 GB/s (docs/BENCHMARKS.md, 'Pinning a large block'). The block is one
// registration: a copy that spans two registrations, even adjacent ones, fails with
// cudaErrorInvalidValue, so a block is never pinned in pieces.
//
// pinned_buffer (cudaHostAlloc) stays the owner of small buffers (an MSM's plan words), where a
// 2 MiB-aligned mapping would waste more than locking costs, and of a workspace's own staging
// (the daemon lends its workspaces staging from the pinned pool, which is locked here).
// locked_buffer<T> below is the typed view of one block, with pinned_buffer's interface.
//
// Thread safety: create() and destruction from any thread, with the CUDA runtime initialised; the
// memory itself is shared like any other. Move-only; the destructor unregisters and unmaps.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include "base/result.hpp"

namespace cuzk::gpu {

class locked_host_memory {
 public:
  locked_host_memory() = default;
  locked_host_memory(const locked_host_memory&) = delete;
  locked_host_memory& operator=(const locked_host_memory&) = delete;
  locked_host_memory(locked_host_memory&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)),
        mapped_(std::exchange(o.mapped_, 0)) {}
  locked_host_memory& operator=(locked_host_memory&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      mapped_ = std::exchange(o.mapped_, 0);
    }
    return *this;
  }
  ~locked_host_memory() { release(); }

  // `bytes` of page-locked memory, usable by every device, its contents zero. The first touch
  // runs on `threads` threads (0: one per hardware thread); errc::resource_exhausted when the
  // mapping or the lock is refused, naming the size. The kernel refuses a mapping it cannot back
  // only when it is grossly too large; below that, the host memory budget is what keeps the
  // touch from running the machine out of memory.
  static result<locked_host_memory> create(std::size_t bytes, unsigned threads = 0);

  void* data() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void release() noexcept;

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t mapped_ = 0;  // the mapping's length: bytes_ rounded up to its alignment
};

template <class T>
class locked_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "locked memory holds trivially copyable values");

 public:
  locked_buffer() = default;
  locked_buffer(locked_buffer&& o) noexcept : mem_(std::move(o.mem_)), count_(std::exchange(o.count_, 0)) {}
  locked_buffer& operator=(locked_buffer&& o) noexcept {
    if (this != &o) {
      mem_ = std::move(o.mem_);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  // `count` elements, zero-filled (the pages come from the kernel zeroed).
  static result<locked_buffer> create(std::size_t count) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
      return status(errc::invalid_argument, "locked_buffer: element count overflows the byte size");
    locked_buffer b;
    if (count == 0) return result<locked_buffer>(std::move(b));
    auto m = locked_host_memory::create(count * sizeof(T));
    if (!m) return m.error();
    b.mem_ = std::move(m).value();
    b.count_ = count;
    return result<locked_buffer>(std::move(b));
  }

  T* data() noexcept { return static_cast<T*>(mem_.data()); }
  const T* data() const noexcept { return static_cast<const T*>(mem_.data()); }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  std::span<T> span() noexcept { return {data(), count_}; }
  std::span<const T> span() const noexcept { return {data(), count_}; }

 private:
  locked_host_memory mem_;
  std::size_t count_ = 0;
};

}  // namespace cuzk::gpu
