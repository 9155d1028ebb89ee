// SPDX-License-Identifier: MIT OR Apache-2.0
// What the engine's status says about the hardware besides its jobs: each device slot's kernel
// busy time (kernel_activity.hpp), NVML's view of each GPU (gpu_utilization.hpp) and which NVML
// device a slot is, and the process's peak resident set.
//
// Joined here, in one value, so /status, /metrics and `cuzk bench` read one snapshot and the
// engine only records.
//
// Peak RSS is the kernel's own high-water mark (VmHWM in /proc/self/status), not a sampled max: it
// catches a peak that lasts less than any sampling period (a key's load, a burst of pinned
// buffers), costs no thread, and counts what RSS counts (anonymous, pinned and mapped-file pages
// once touched).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/telemetry/device_activity.hpp"
#include "engine/telemetry/gpu_utilization.hpp"
#include "engine/telemetry/kernel_activity.hpp"

namespace cuzk::engine {

struct device_telemetry {
  uint64_t rss_peak_bytes = 0;             // since start; 0 where /proc does not say
  std::vector<kernel_busy> kernel;         // per device slot
  double kernel_window_s = 0;              // the configured window (a slot's window_s may be shorter)
  bool nvml_started = false;               // the engine runs an NVML monitor (it has device slots)
  gpu_monitor_status nvml;                 // empty and not available when not started
  std::vector<int> nvml_index;             // per device slot: its NVML device, -1 for none
};

// The peak resident set of this process (VmHWM), 0 when unreadable.
uint64_t process_peak_rss_bytes();

// The snapshot at `now_unix_us`: `devices` (the backend's activity, one per slot) say each slot's
// PCI bus id, by which it is matched to an NVML device. `monitor` null: none runs.
device_telemetry collect_device_telemetry(const kernel_activity& kernels, gpu_utilization_monitor* monitor,
                                          const std::vector<device_activity>& devices, int64_t now_unix_us);

}  // namespace cuzk::engine
