// SPDX-License-Identifier: MIT OR Apache-2.0
// device_arena: one device allocation that a sequence of runs carves into typed views, each run
// laying out its own buffers from the start; device_view<T>: such a view (pointer and count, no
// ownership).
//
// Why: the GPU MSM's scratch (sort keys, slot tables, buckets, work items) used to be owned by
// each MSM object, so a proving key with five MSMs kept five scratches, though a proof runs its
// MSMs one after another. An arena owned by whoever runs them (a proof's worker, gpu_workspace.hpp)
// is laid out anew by every run and sized by the largest, so a proof's device memory holds one
// scratch per MSM that can run at the same time, not one per MSM.
//
// Layout in two passes over the same code: a `carver` without a base only counts the bytes (what
// a budget reserves before anything is allocated), then, once the arena holds that many, one with
// the arena's base hands out the views. Every view starts on a 256-byte boundary (what cudaMalloc
// gives, and what CUB's scratch and 16-byte vector loads expect).
//
// Thread: the owning thread; the device must be current for reserve(). Nothing may still read or
// write a view when the arena grows (runs synchronize before they return).
#pragma once

#include <cstddef>

#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

template <class T>
class device_view {
 public:
  device_view() = default;
  device_view(T* p, std::size_t n) : ptr_(p), count_(n) {}
  T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Hands out views one after another from `base` (null: counts only).
class carver {
 public:
  static constexpr std::size_t alignment = 256;
  explicit carver(std::byte* base = nullptr) : base_(base) {}

  template <class T>
  void take(device_view<T>& view, std::size_t count) {
    used_ = (used_ + alignment - 1) / alignment * alignment;
    view = device_view<T>(base_ != nullptr ? reinterpret_cast<T*>(base_ + used_) : nullptr, count);
    used_ += count * sizeof(T);
  }
  std::size_t used() const noexcept { return used_; }

 private:
  std::byte* base_;
  std::size_t used_ = 0;
};

class device_arena {
 public:
  // At least `bytes` of capacity on the current device: a larger allocation replaces the old one
  // (freed first, so the device never holds both); nothing happens when it holds enough.
  status reserve(std::size_t bytes) {
    if (buf_.size() >= bytes) return status::ok();
    buf_ = {};
    auto b = device_buffer<std::byte>::create(bytes);
    if (!b) return b.error();
    buf_ = std::move(*b);
    ++allocations_;
    return status::ok();
  }
  std::byte* base() noexcept { return buf_.data(); }
  std::size_t capacity() const noexcept { return buf_.size(); }
  // How many reserve() calls allocated (tests show that a warmed arena does not grow).
  std::size_t allocations() const noexcept { return allocations_; }
  void release() noexcept { buf_ = {}; }

 private:
  device_buffer<std::byte> buf_;
  std::size_t allocations_ = 0;
};

}  // namespace cuzk::gpu
