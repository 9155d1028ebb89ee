// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's questions to the GPUs (see gpu_devices.hpp).
#include "groth16/gpu/gpu_devices.hpp"

#include <cstddef>
#include <memory>

#include "gpu/device.hpp"
#include "gpu/locked_host_memory.hpp"

namespace cuzk::groth16 {

result<int> gpu_device_count() {
  auto count = gpu::device_count();
  if (!count) return status(errc::unsupported, "no usable CUDA device: " + count.error().to_string());
  return *count;
}

result<gpu_device_info> gpu_device(int ordinal) {
  gpu_device_info d;
  d.ordinal = ordinal;
  auto desc = gpu::device_description(ordinal);
  d.description = desc ? *desc : "CUDA device " + std::to_string(ordinal);
  auto mem = gpu::device_memory(ordinal);
  if (!mem) return mem.error();
  d.free_bytes = mem->free_bytes;
  d.total_bytes = mem->total_bytes;
  if (auto bus = gpu::device_pci_bus_id(ordinal)) d.pci_bus_id = *bus;
  return d;
}

result<pinned_host_memory> allocate_pinned_host(std::size_t bytes) {
  auto block = gpu::locked_host_memory::create(bytes);
  if (!block) return block.error();
  auto owner = std::make_shared<gpu::locked_host_memory>(std::move(block).value());
  void* data = owner->data();
  return pinned_host_memory{data, [owner](void*) mutable { owner.reset(); }};
}

}  // namespace cuzk::groth16
