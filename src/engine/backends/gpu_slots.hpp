// SPDX-License-Identifier: MIT OR Apache-2.0
// What the GPU backend's parts share about the device slots (device_tier.hpp): each slot's kernel
// lock and counters. Built only with the GPU prover.
//
// No allocation takes turns with another: a key's device size is what its own counting arena
// handed out (gpu_proving_key::resident_bytes), so key uploads and the workers' buffers allocate
// on one device at once.
//
// Thread safety: `slots` is filled before any worker starts and never changes after, so lookups
// need no lock; a slot's counters are guarded by its `m`.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backends/prover_backend.hpp"
#include "engine/keys/device_tier.hpp"
#include "groth16/gpu/kernel_gate.hpp"

namespace cuzk::engine {

// One slot: its kernel lock (shared by every key uploaded to it) and what it has done.
struct gpu_slot_state {
  device_slot slot;
  std::string description;
  std::shared_ptr<groth16::kernel_gate> kernel_lock = std::make_shared<groth16::kernel_gate>();
  mutable std::mutex m;  // the counters
  device_activity stats;
};

struct gpu_slots {
  std::vector<std::unique_ptr<gpu_slot_state>> slots;
};

}  // namespace cuzk::engine
