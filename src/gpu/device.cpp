// SPDX-License-Identifier: MIT OR Apache-2.0
// Device discovery (see device.hpp).
#include "gpu/device.hpp"

#include <array>
#include <string>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

result<int> device_count() {
  int count = 0;
  CUZK_CUDA_TRY(cudaGetDeviceCount(&count));
  return count;
}

result<std::string> device_description(int device) {
  cudaDeviceProp prop{};
  CUZK_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs)";
}

status use_device(int device) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess)
    return status(errc::cuda_error, "CUDA device " + std::to_string(device) + ": no CUDA device is usable (" +
                                        cudaGetErrorName(e) + ": " + cudaGetErrorString(e) + ")");
  if (device < 0 || device >= count)
    return status(errc::invalid_argument,
                  "CUDA device " + std::to_string(device) + " does not exist: " + std::to_string(count) +
                      (count == 1 ? " device is" : " devices are") + " visible" +
                      (count > 0 ? " (ordinals 0.." + std::to_string(count - 1) + ")" : std::string()));
  CUZK_CUDA_TRY(cudaSetDevice(device));
  return status::ok();
}

result<device_memory_info> device_memory(int device) {
  CUZK_CUDA_TRY(cudaSetDevice(device));
  std::size_t free_b = 0, total_b = 0;
  CUZK_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
  return device_memory_info{free_b, total_b};
}

result<std::string> device_pci_bus_id(int device) {
  std::array<char, 32> bus{};
  CUZK_CUDA_TRY(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), device));
  return std::string(bus.data());
}

}  // namespace cuzk::gpu
