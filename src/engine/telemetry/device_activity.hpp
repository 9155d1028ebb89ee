// SPDX-License-Identifier: MIT OR Apache-2.0
// A device slot's work since start, as a prover backend reports it (prover_backend::activity()) and
// status, metrics and device_telemetry.hpp read it.
//
// Its own header, below the backends, so that telemetry reads what a backend reports without
// including the backend interface: the engine's layers point one way (telemetry <- backends).
#pragma once

#include <cstdint>
#include <string>

namespace cuzk::engine {

struct device_activity {
  std::string name;  // the slot's, "device:0"
  int ordinal = 0;
  std::string description;  // "NVIDIA H200 (sm_90, 132 SMs)"
  uint64_t proofs = 0;
  uint64_t cpu_fallbacks = 0;  // proofs of its workers that ran on the CPU (no device copy)
  double busy_s = 0;           // kernel lock held
  double wait_s = 0;           // kernel lock waited for
  double h2d_bytes = 0, h2d_s = 0;
  uint64_t workspace_pinned_bytes = 0;  // its workers' buffers now
  uint64_t workspace_device_bytes = 0;
  uint64_t workspace_allocations = 0;  // times those buffers were allocated or grown
  uint64_t workspace_evictions = 0;    // times an idle worker's device buffers were freed for room
  std::string pci_bus_id;  // "0000:65:00.0" (cudaDeviceGetPCIBusId): how NVML finds the device
  uint64_t batched_proofs = 0;  // of `proofs`, those proven in batches of several partitions
};

}  // namespace cuzk::engine
