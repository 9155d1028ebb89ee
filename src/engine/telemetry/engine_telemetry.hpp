// SPDX-License-Identifier: MIT OR Apache-2.0
// What one engine records of its own work for its status, its metrics and its trace: the counters
// and histograms (metrics.hpp), every job's events (timeline.hpp), each device slot's kernel spans
// (kernel_activity.hpp), NVML's sampling of the GPUs (gpu_utilization.hpp) and when it started.
//
// One struct, so that the engine holds what it only records and reports apart from the state it
// runs jobs with; each part keeps its own lock.
//
// Thread safety: each part's own (all are safe to call from any thread); `gpu_monitor` is set at
// construction only.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "engine/jobs/job.hpp"
#include "engine/telemetry/device_activity.hpp"
#include "engine/telemetry/device_telemetry.hpp"
#include "engine/telemetry/gpu_utilization.hpp"
#include "engine/telemetry/kernel_activity.hpp"
#include "engine/telemetry/metrics.hpp"
#include "engine/telemetry/timeline.hpp"

namespace cuzk::engine {

struct engine_telemetry {
  // `device_slots`: the key manager's, one kernel lane each. `gpu`: null without device slots.
  engine_telemetry(std::size_t device_slots, std::unique_ptr<gpu_utilization_monitor> gpu)
      : started_at(wall_clock::now()), kernels(device_slots, now_unix_us()), gpu_monitor(std::move(gpu)) {}

  // The device part of a snapshot, given what the backend reports of each slot.
  device_telemetry devices(const std::vector<device_activity>& activity) const {
    return collect_device_telemetry(kernels, gpu_monitor.get(), activity, now_unix_us());
  }

  metrics counters;
  timeline events;
  const wall_time started_at;
  kernel_activity kernels;
  std::unique_ptr<gpu_utilization_monitor> gpu_monitor;
};

}  // namespace cuzk::engine
