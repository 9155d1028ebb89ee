// The backend choice of backend.hpp: asks the CUDA runtime how many devices it sees.
#include "gpu/groth16/backend.hpp"

#include "gpu/field_batch.hpp"

namespace cuzk::gpu {

backend_choice choose_prover_backend() {
  backend_choice out;
  const auto count = device_count();
  if (!count.is_ok()) {
    out.reason = "no usable CUDA device: " + count.error().to_string();
    return out;
  }
  out.devices = *count;
  if (*count == 0) {
    out.reason = "no CUDA device found";
    return out;
  }
  const auto name = device_description(0);
  out.backend = prover_backend::gpu;
  out.reason = name.is_ok() ? *name : std::string("CUDA device 0");
  return out;
}

bool gpu_prover_available() { return choose_prover_backend().backend == prover_backend::gpu; }

}  // namespace cuzk::gpu
