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

}  // namespace cuzk::gpu
