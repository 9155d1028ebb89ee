// SPDX-License-Identifier: MIT OR Apache-2.0
// What the GPU backend's parts share about the device slots (device_tier.hpp): each slot's kernel
// lock and counters, and the shapes of keys the uploader put on the host's synthesis. Built only
// with the GPU prover.
//
// No allocation takes turns with another: a key's device size is what its own counting arena
// handed out (gpu_proving_key::resident_bytes), so key uploads and the workers' buffers allocate
// on one device at once.
//
// Thread safety: `slots` is filled before any worker starts and never changes after, so lookups
// need no lock; a slot's counters are guarded by its `m`; host_synthesis has its own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/backends/prover_backend.hpp"
#include "engine/keys/device_tier.hpp"
#include "formats/curve_id.hpp"
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

// The shapes (curve, variables, domain) of the keys uploaded with synthesis on the host where the
// backend's place is the device (their matrices and a worker's buffers did not fit the slot
// together: gpu_device_key.cpp). Their proofs stage a | b | c in pinned host memory, which the
// host budget must count before a job starts (the backend's memory_per_proof), and admission
// knows a key only by its summary. A shape, not a key: two keys of one shape differ only in their
// matrices' entries, and counting the staging for the other one too only over-counts. Never
// removed, for the same reason: a shape outlives its copy, and covers a slot where the same key
// kept its matrices. Slots of one daemon have the same budgets unless configured otherwise, so
// the over-count (3 x domain x 32 bytes a proof) is rare; an under-count never happens.
class key_shapes {
 public:
  struct shape {
    formats::curve_id curve;
    uint64_t n_vars, domain_size;
    auto operator<=>(const shape&) const = default;
  };
  void add(const shape& s) {
    std::lock_guard lk(m_);
    shapes_.insert(s);
  }
  bool contains(const shape& s) const {
    std::lock_guard lk(m_);
    return shapes_.contains(s);
  }

 private:
  mutable std::mutex m_;
  std::set<shape> shapes_;
};

struct gpu_slots {
  std::vector<std::unique_ptr<gpu_slot_state>> slots;
  key_shapes host_synthesis;
};

}  // namespace cuzk::engine
