// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU prover as an engine backend, with the device tier it brings.
//
// Built only where the GPU prover is (CUZK_HAVE_GPU_PROVER); backend_select.cpp is the one caller.
// make_gpu_backend() returns three things that belong together:
//   - the backend: the prover contract (groth16/gpu/gpu_prover.hpp) with a gpu_context on the
//     key's copy on the worker's device, bit for bit the CPU prover's proof; workers_per_device
//     workers per slot;
//   - the device tier for the key manager: one slot per device with its key budget, and the
//     uploader that makes a gpu_proving_key on a slot (gpu_device_key.hpp);
//   - a pinned host allocator for the hot tier (so a hot key's upload runs at the line rate).
//
// What the backend itself decides is policy: which worker serves which slot, the device budgets
// (each device's from its free memory at start unless configured, each slot's key budget),
// reserving a worker's buffers in its device's budget before they grow, freeing idle workers'
// buffers when another allocation needs the room, and proving a key that has no copy on the
// worker's slot (larger than the budget, or its upload failed: the lease says why) on the CPU,
// counted as a fallback. It makes no CUDA call: the prover, the workspaces and groth16/gpu's
// device questions do.
//
// Per worker, per curve, one gpu_workspace (pinned and device witness, device a | b | c, streams):
// made on the worker's first proof of that curve, grown only when a larger circuit comes, never
// on the hot path after that. The slot's kernel lock is held only around kernels, so one worker's
// synthesis and copies overlap the other's kernels. Device allocations take no lock: a key's size
// is what its counting arena handed out (gpu_slots.hpp). One proof is a batch of one: prove() and
// prove_batch() share one path (prove_on), as the GPU prover's do.
//
// Thread safety: prove() from the engine's workers, each with its own index; activity() from any
// thread.
#pragma once

#include <memory>
#include <string>

#include "base/result.hpp"
#include "engine/backends/prover_backend.hpp"
#include "engine/backends/gpu_options.hpp"
#include "engine/keys/key_manager.hpp"
#include "engine/memory/host_allocator.hpp"

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
