// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's hardware view for status (see device_telemetry.hpp).
#include "engine/telemetry/device_telemetry.hpp"

#include <cstdio>
#include <cstring>

namespace cuzk::engine {

uint64_t process_peak_rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned long long v = 0;
    if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%llu", &v) == 1) {
      kib = v;
      break;
    }
  }
  std::fclose(f);
  return kib * 1024;
}

device_telemetry collect_device_telemetry(const kernel_activity& kernels, gpu_utilization_monitor* monitor,
                                          const std::vector<device_activity>& devices, int64_t now_unix_us) {
  device_telemetry t;
  t.rss_peak_bytes = process_peak_rss_bytes();
  t.kernel = kernels.busy(now_unix_us);
  t.kernel_window_s = kernels.window_s();
  t.nvml_index.assign(t.kernel.size(), -1);
  if (monitor == nullptr) return t;
  t.nvml_started = true;
  t.nvml = monitor->status();
  for (std::size_t k = 0; k < devices.size() && k < t.nvml_index.size(); ++k) {
    if (devices[k].pci_bus_id.empty()) continue;
    auto i = monitor->index_of_pci_bus_id(devices[k].pci_bus_id);
    if (i && *i < t.nvml.devices.size()) t.nvml_index[k] = static_cast<int>(*i);
  }
  return t;
}

}  // namespace cuzk::engine
