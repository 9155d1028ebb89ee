// SPDX-License-Identifier: MIT OR Apache-2.0
// Choosing the prover an engine runs, as engine_options::backend asks (the backend, the GPU options and
// the CPU workers are passed on their own: backends/ does not include the engine's options).
//
// The decision is the one the CLI makes too (groth16::choose_prover, groth16/prover_choice.hpp):
// "auto" takes the GPU when a CUDA device answers and says why not otherwise; "gpu" makes that
// reason an error, so a daemon configured for a GPU does not quietly prove on the CPU. The CPU
// backend exists in every build; the GPU backend (gpu_prover_backend.hpp) only where the GPU
// prover was compiled (CUZK_HAVE_GPU_PROVER).
//
// Thread safety: a free function; any thread (it asks the CUDA runtime about devices).
#pragma once

#include <memory>
#include <string>

#include "base/result.hpp"
#include "engine/backends/prover_backend.hpp"
#include "engine/backends/gpu_options.hpp"
#include "engine/keys/key_manager.hpp"
#include "engine/memory/host_allocator.hpp"
#include "groth16/prover_choice.hpp"

namespace cuzk::engine {

struct backend_parts {
  std::unique_ptr<prover_backend> backend;
  device_tier devices;                            // no slots with the CPU
  std::shared_ptr<host_allocator> hot_allocator;  // null: the engine's default (pageable)
  std::string note;                               // what was chosen and why, for the log
};

// Errors: backend gpu where no device answers or the build has no CUDA backend; a GPU option out
// of range (an ordinal that is not visible, no workers per device).
// `cpu_workers` is only named in the note of a CPU choice.
result<backend_parts> select_backend(groth16::prover_kind backend, const gpu_options& gpu, unsigned cpu_workers);

// Whether this build has the GPU backend.
bool gpu_backend_built() noexcept;

}  // namespace cuzk::engine
