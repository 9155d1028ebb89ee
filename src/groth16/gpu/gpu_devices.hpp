// SPDX-License-Identifier: MIT OR Apache-2.0
// What a daemon asks of the GPUs it schedules on, without the CUDA runtime in its own code: the
// devices there are, their memory and bus ids, and page-locked host memory for staging and for
// keys' hot copies. Thin answers over gpu/device.hpp and gpu/locked_host_memory.hpp, which own the
// CUDA calls.
//
// Thread: any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/result.hpp"

namespace cuzk::groth16 {

struct gpu_device_info {
  int ordinal = 0;
  std::string description;  // "NVIDIA H200 (sm_90, 132 SMs)"
  uint64_t free_bytes = 0, total_bytes = 0;
  std::string pci_bus_id;   // "0000:65:00.0"; empty when the runtime does not say
};

// How many CUDA devices answer (errc::unsupported with the runtime's reason where none can).
result<int> gpu_device_count();
// One device, its free memory read now.
result<gpu_device_info> gpu_device(int ordinal);

// `bytes` of page-locked host memory usable from every device, and the one call that frees it.
struct pinned_host_memory {
  void* data = nullptr;
  std::function<void(void*)> free;
};
result<pinned_host_memory> allocate_pinned_host(std::size_t bytes);

}  // namespace cuzk::groth16
