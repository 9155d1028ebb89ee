// SPDX-License-Identifier: MIT OR Apache-2.0
// What the GPU backend's parts share about the device slots (device_tier.hpp): each slot's kernel
// lock and counters, and one allocation lock per physical device. Built only with the GPU prover.
//
// Why one allocation lock per device: a key's device size is measured as the drop in free memory
// while it is made (gpu_proving_key::resident_bytes), so key uploads and workspace growth on one
// physical device take turns, and each measurement is its own.
//
// Thread safety: `slots` and `alloc_locks` are filled before any worker starts and never change
// after, so lookups need no lock; a slot's counters are guarded by its `m`.
#pragma once

#include <map>
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
  std::map<int, std::unique_ptr<std::mutex>> alloc_locks;  // by ordinal
  std::mutex& alloc_lock(int ordinal) const { return *alloc_locks.at(ordinal); }
};

}  // namespace cuzk::engine
