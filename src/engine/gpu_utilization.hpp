// The GPU's own view of how busy it is, sampled through NVML (the library behind nvidia-smi), so
// that the daemon reports utilization like nvtop does, from inside: SM busy (the share of the
// last sample period in which a kernel ran), memory-controller busy, memory used, and PCIe
// throughput each way. Issue #6 measures "GPU busy" this way and cross-checks it against
// `nvidia-smi dmon`, which reads the same counters.
//
// NVML is loaded at run time (dlopen of libnvidia-ml.so.1, which ships with the driver, not with
// the toolkit): the daemon must start, and CI must build, on machines without a driver. Only the
// handful of entry points used here are declared, with the C signatures NVML documents.
//
// NVML numbers devices in PCI bus order; the daemon sets CUDA_DEVICE_ORDER=PCI_BUS_ID before its
// first CUDA call so that CUDA ordinal i and NVML index i are the same card (with
// CUDA_VISIBLE_DEVICES unset).
//
// A monitor thread samples every device at a fixed interval and keeps the latest sample and
// running sums since the last reset(), so /status can show the present and a benchmark the
// average over its run.
//
// Thread safety: nvml_library is not thread-safe (the monitor's thread owns it); the monitor's
// accessors may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"

namespace cuzk::engine {

struct gpu_sample {
  unsigned index = 0;       // NVML's device index
  std::string name;         // e.g. "NVIDIA H200"
  double sm_busy_pct = 0;   // % of the driver's sample period with at least one kernel running
  double mem_busy_pct = 0;  // % of it with device memory being read or written
  uint64_t memory_used = 0, memory_total = 0;  // bytes
  double pcie_rx_mb_s = 0, pcie_tx_mb_s = 0;   // MB/s into / out of the GPU
};

// Averages over the samples taken since the last reset.
struct gpu_summary {
  unsigned index = 0;
  std::string name;
  uint64_t samples = 0;
  double mean_sm_busy_pct = 0, mean_mem_busy_pct = 0;
  double mean_pcie_rx_mb_s = 0, mean_pcie_tx_mb_s = 0;
  uint64_t peak_memory_used = 0;
};

class nvml_library {
 public:
  // Loads libnvidia-ml and initialises it. Errors: unsupported (no library or no driver), with
  // NVML's own message.
  static result<std::unique_ptr<nvml_library>> open();
  ~nvml_library();
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;

  result<unsigned> device_count();
  result<gpu_sample> sample(unsigned index);

  struct functions;  // the resolved entry points (gpu_utilization.cpp)

 private:
  nvml_library() = default;
  void* handle_ = nullptr;
  std::unique_ptr<functions> fn_;
};

class gpu_utilization_monitor {
 public:
  // Starts sampling every `interval` when NVML answers; otherwise the monitor stays empty and
  // unavailable_reason() says why.
  explicit gpu_utilization_monitor(std::chrono::milliseconds interval = std::chrono::milliseconds(250));
  ~gpu_utilization_monitor();
  gpu_utilization_monitor(const gpu_utilization_monitor&) = delete;
  gpu_utilization_monitor& operator=(const gpu_utilization_monitor&) = delete;

  bool available() const noexcept { return available_; }
  const std::string& unavailable_reason() const noexcept { return reason_; }
  std::vector<gpu_sample> latest() const;
  std::vector<gpu_summary> summary() const;
  void reset();

 private:
  void run();

  std::unique_ptr<nvml_library> nvml_;
  bool available_ = false;
  std::string reason_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<gpu_sample> latest_;
  std::vector<gpu_summary> sums_;  // sums while sampling; summary() divides
  std::thread thread_;
};

}  // namespace cuzk::engine
