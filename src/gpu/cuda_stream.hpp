// SPDX-License-Identifier: MIT OR Apache-2.0
// cuda_stream: the owner of one CUDA stream, created non-blocking.
//
// Non-blocking because the prover runs its copies, transforms and MSMs on streams of their own
// and must not be serialised against the legacy default stream, which other code (buffer copies,
// plan creation) still uses.
//
// Move-only with a noexcept destructor, like cuda_event. Thread: the owning thread, with the
// stream's device current.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

class cuda_stream {
 public:
  cuda_stream() = default;
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cuda_stream(cuda_stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  cuda_stream& operator=(cuda_stream&& o) noexcept {
    if (this != &o) {
      release();
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~cuda_stream() { release(); }

  static result<cuda_stream> create() {
    cuda_stream s;
    CUZK_CUDA_TRY(cudaStreamCreateWithFlags(&s.s_, cudaStreamNonBlocking));
    return result<cuda_stream>(std::move(s));
  }
  // With a scheduling priority (lower numbers first; cudaDeviceGetStreamPriorityRange): when SMs
  // free up, blocks of a higher-priority stream's kernels start before those of others.
  static result<cuda_stream> create(int priority) {
    cuda_stream s;
    CUZK_CUDA_TRY(cudaStreamCreateWithPriority(&s.s_, cudaStreamNonBlocking, priority));
    return result<cuda_stream>(std::move(s));
  }
  // The current device's highest stream priority.
  static result<int> highest_priority() {
    int least = 0, greatest = 0;
    CUZK_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return greatest;
  }
  // A stream's priority (the legacy default stream's too).
  static result<int> priority_of(cudaStream_t stream) {
    int p = 0;
    CUZK_CUDA_TRY(cudaStreamGetPriority(stream, &p));
    return p;
  }

  cudaStream_t get() const noexcept { return s_; }

  status synchronize() const {
    CUZK_CUDA_TRY(cudaStreamSynchronize(s_));
    return status::ok();
  }

 private:
  void release() noexcept {
    if (s_ != nullptr) (void)cudaStreamDestroy(s_);
    s_ = nullptr;
  }

  cudaStream_t s_ = nullptr;
};

}  // namespace cuzk::gpu
