// SPDX-License-Identifier: MIT OR Apache-2.0
// cuda_event: the owner of one CUDA event, for timing device work.
//
// Move-only with a noexcept destructor, like device_buffer. Events time work as the GPU sees it
// (cudaEventElapsedTime between two records), which is what throughput numbers must be based on;
// host clocks around asynchronous launches measure launch overhead instead.
//
// Thread: the owning thread, with the event's device current.
#pragma once

#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

class cuda_event {
 public:
  cuda_event() = default;
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  cuda_event(cuda_event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)) {}
  cuda_event& operator=(cuda_event&& o) noexcept {
    if (this != &o) {
      release();
      ev_ = std::exchange(o.ev_, nullptr);
    }
    return *this;
  }
  ~cuda_event() { release(); }

  static result<cuda_event> create() {
    cuda_event e;
    CUZK_CUDA_TRY(cudaEventCreate(&e.ev_));
    return result<cuda_event>(std::move(e));
  }

  cudaEvent_t get() const noexcept { return ev_; }

  status record(cudaStream_t stream = nullptr) {
    CUZK_CUDA_TRY(cudaEventRecord(ev_, stream));
    return status::ok();
  }

  // Milliseconds from `start` to `stop`, waiting for `stop` to complete.
  static result<float> elapsed_ms(const cuda_event& start, const cuda_event& stop) {
    CUZK_CUDA_TRY(cudaEventSynchronize(stop.ev_));
    float ms = 0;
    CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, start.ev_, stop.ev_));
    return ms;
  }

 private:
  void release() noexcept {
    if (ev_ != nullptr) (void)cudaEventDestroy(ev_);
    ev_ = nullptr;
  }

  cudaEvent_t ev_ = nullptr;
};

}  // namespace cuzk::gpu
