// The GPU prover as an engine backend, with the device tier it brings.
//
// Built only where the CUDA backend is (CUZK_HAVE_GPU_PROVER); backend_select.cpp is the one
// caller. make_gpu_backend() returns three things that belong together:
//   - the backend: gpu_prove (gpu/groth16/gpu_prover.hpp) on the key's copy on the worker's
//     device, bit for bit the CPU prover's proof; workers_per_device workers per slot;
//   - the device tier for the SRS manager: one slot per device with its key budget, and the
//     uploader that makes a gpu_proving_key on a slot (synthesis on the device from its resident
//     matrices, the slot's kernel lock, no workspace of its own, and its MSM scratch allocated up
//     front so no proof allocates device memory);
//   - a pinned host allocator for the hot tier (so a hot key's upload runs at the line rate).
//
// Per worker, per curve, one gpu_workspace (pinned and device witness, device
// a | b | c, streams): made on the worker's first proof of that curve, grown only when a larger
// circuit comes, never on the hot path after that. Every call makes the worker's device current
// (cudaSetDevice) on each thread that touches it. The slot's kernel lock is held only around
// kernels (gpu_prover.hpp), so one worker's synthesis and copies overlap the other's kernels.
// Device allocations (key uploads, workspace growth) on one physical device take one lock, so
// that each key's measured size (cudaMemGetInfo before and after) is its own.
//
// A key with no copy on the worker's slot (larger than the budget, or its upload failed: the
// lease says why) is proved by the CPU backend and counted as a fallback.
//
// Thread safety: prove() from the engine's workers, each with its own index; activity() from any
// thread.
#pragma once

#include <memory>
#include <string>

#include "base/result.hpp"
#include "engine/engine_options.hpp"
#include "engine/host_allocator.hpp"
#include "engine/prover_backend.hpp"
#include "engine/srs_manager.hpp"

namespace cuzk::engine {

struct gpu_parts {
  std::unique_ptr<prover_backend> backend;
  device_tier devices;
  std::shared_ptr<host_allocator> pinned;
  std::string description;  // one line for the log: slots, devices, workers, budgets
};

// The GPU backend on o.devices (every visible device when empty). Errors: no usable CUDA device,
// an ordinal that is not visible, workers_per_device of 0.
result<gpu_parts> make_gpu_backend(const gpu_options& o);

}  // namespace cuzk::engine
