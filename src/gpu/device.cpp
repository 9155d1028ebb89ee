// Device discovery for the host API (field_batch.hpp): how many CUDA devices there are and what
// they are, as status values so that callers without a GPU get a message, not a crash.
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/field_batch.hpp"

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

}  // namespace cuzk::gpu
