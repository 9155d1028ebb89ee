// SPDX-License-Identifier: MIT OR Apache-2.0
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
    out.reason = "no usable CUDA GPU: " + plain_cuda_reason(count.error().message());
    return out;
  }
  out.devices = *count;
  if (*count == 0) {
    out.reason = "no usable CUDA GPU: none found";
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

std::string plain_cuda_reason(std::string_view m) {
  // The runtime's error name and text follow the expression and file:line (gpu/cuda_check.hpp).
  const auto at = m.find("cudaError");
  if (at == std::string_view::npos) return std::string(m);
  const auto colon = m.find(": ", at);
  const std::string_view name =
      m.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at);
  const std::string_view text = colon == std::string_view::npos ? std::string_view() : m.substr(colon + 2);
  struct wording {
    std::string_view name, words;
  };
  static constexpr wording known[] = {
      {"cudaErrorNoDevice", "no CUDA device found"},
      {"cudaErrorInsufficientDriver",
       "the NVIDIA driver is missing, or older than this build's CUDA runtime needs"},
      {"cudaErrorSystemDriverMismatch",
       "the NVIDIA driver library does not match its kernel module (after a driver update, reboot)"},
      {"cudaErrorDevicesUnavailable", "every CUDA device is busy or unavailable to this process"},
      {"cudaErrorCompatNotSupportedOnDevice",
       "the CUDA forward-compatibility driver does not support this GPU"},
      {"cudaErrorInitializationError", "the CUDA driver could not initialise"},
      {"cudaErrorNotPermitted", "this process may not use the CUDA devices"},
  };
  for (const auto& w : known)
    if (name == w.name) return std::string(w.words);
  return std::string(text.empty() ? name : text);
}

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
