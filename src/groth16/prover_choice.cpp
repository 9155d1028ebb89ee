// The prover chooser (see prover_choice.hpp).
#include "groth16/prover_choice.hpp"

#if defined(CUZK_HAVE_GPU_PROVER)
#include "gpu/device.hpp"
#endif

namespace cuzk::groth16 {

namespace {

// Whether a CUDA device answers, and which (or why none does).
prover_choice ask_devices() {
  prover_choice out;
#if defined(CUZK_HAVE_GPU_PROVER)
  const auto count = gpu::device_count();
  if (!count.is_ok()) {
    out.reason = "no usable CUDA device: " + count.error().to_string();
    return out;
  }
  out.devices = *count;
  if (*count == 0) {
    out.reason = "no CUDA device found";
    return out;
  }
  const auto name = gpu::device_description(0);
  out.kind = prover_kind::gpu;
  out.reason = name.is_ok() ? *name : std::string("CUDA device 0");
#else
  out.reason = "this build has no CUDA backend (cuzk was built without nvcc)";
#endif
  return out;
}

}  // namespace

bool gpu_prover_built() noexcept {
#if defined(CUZK_HAVE_GPU_PROVER)
  return true;
#else
  return false;
#endif
}

result<prover_choice> choose_prover(prover_kind wanted) {
  if (wanted == prover_kind::cpu) return prover_choice{prover_kind::cpu, 0, "asked for"};
  prover_choice found = ask_devices();
  if (wanted == prover_kind::gpu && found.kind != prover_kind::gpu)
    return status(errc::unsupported, "the GPU prover: " + found.reason);
  return found;
}

}  // namespace cuzk::groth16
