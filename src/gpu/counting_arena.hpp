// SPDX-License-Identifier: MIT OR Apache-2.0
// counting_arena: where an owner's long-lived device buffers come from, and the sum of their bytes.
//
// Why: a proving key's device size was the drop in the device's free memory while the key was made
// (cudaMemGetInfo before and after). That counted whatever else allocated on the device at the
// same moment, so a daemon made every allocation on a device take turns behind one lock, and it saw
// the driver's page rounding rather than the key. As sppark carves its MSM buffers from one
// allocation it sized itself, a key here takes every buffer it keeps from its arena (its MSM
// objects' points, its NTT plan's twiddles, its constraint matrices), and the arena adds up what
// it handed out: the key's size is a sum, exact, whatever else runs on the device, and the
// host-side estimate of it (groth16/gpu/gpu_key_placement.hpp, estimate_device_bytes) can be
// checked against it to the byte (gpu_proving_key_test.cpp does).
//
// What it counts: every buffer it handed out, for the owner's lifetime. The owner keeps them until
// it goes, and goes with them; a buffer made and freed while something is built (an NTT plan's
// short table of powers, gpu/ntt.cuh fill_powers) is not the owner's and does not come from it.
//
// Thread: the owning thread; the device must be current for allocate().
#pragma once

#include <cstddef>

#include "base/result.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

class counting_arena {
 public:
  // `count` elements of T on the current device, counted (a failed allocation counts nothing).
  template <class T>
  result<device_buffer<T>> allocate(std::size_t count) {
    auto b = device_buffer<T>::create(count);
    if (b && b->size() != 0) {
      bytes_ += b->bytes();
      ++allocations_;
    }
    return b;
  }
  // The bytes of every buffer it handed out, and how many buffers those were.
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t allocations() const noexcept { return allocations_; }

 private:
  std::size_t bytes_ = 0;
  std::size_t allocations_ = 0;
};

// `count` elements of T from `arena`, or, without one, a buffer nobody counts.
template <class T>
result<device_buffer<T>> allocate_in(counting_arena* arena, std::size_t count) {
  return arena != nullptr ? arena->allocate<T>(count) : device_buffer<T>::create(count);
}

}  // namespace cuzk::gpu
