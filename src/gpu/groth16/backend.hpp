// Which prover backend `cuzk prove` should use: the GPU prover when a usable CUDA device exists,
// the CPU prover otherwise.
//
// This header needs no CUDA headers and exists only in builds with the CUDA backend; such builds
// define CUZK_HAVE_GPU_PROVER=1 for every target that links cuzk_gpu_groth16, so the CLI can
// write `#if defined(CUZK_HAVE_GPU_PROVER)` around its use. "Usable" means the runtime found a
// driver and at least one device (gpu::device_count()); a machine with the library but no GPU,
// as CI is, gets the CPU with the reason, which --verbose can print.
//
// Thread: any thread.
#pragma once

#include <string>

namespace cuzk::gpu {

enum class prover_backend { cpu, gpu };

struct backend_choice {
  prover_backend backend = prover_backend::cpu;
  int devices = 0;     // CUDA devices found
  std::string reason;  // "NVIDIA H200 (sm_90, 132 SMs)" for the GPU, why not otherwise
};

// The GPU when at least one CUDA device answers, else the CPU with the runtime's reason.
backend_choice choose_prover_backend();

// Shorthand: choose_prover_backend().backend == prover_backend::gpu.
bool gpu_prover_available();

}  // namespace cuzk::gpu
