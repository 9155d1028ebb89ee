// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU's own view of how busy it is, sampled through NVML (the library behind nvidia-smi), so
// that the daemon reports utilization like nvtop does, from inside: SM busy (the share of the
// driver's last sample period in which a kernel ran), memory-controller busy, memory used, and
// PCIe throughput each way. "GPU busy" is measured this way and cross-checked against
// `nvidia-smi dmon`, which reads the same counters, and against the daemon's own kernel time
// (kernel_activity.hpp).
//
// NVML is loaded at run time (dlopen of libnvidia-ml.so.1, which ships with the driver, not with
// the toolkit): the daemon must start, and CI must build, on machines without a driver. Only the
// handful of entry points used here are declared, with the C signatures NVML documents.
//
// NVML numbers devices in PCI bus order, CUDA by default fastest first and after
// CUDA_VISIBLE_DEVICES: the two indices need not agree, so a CUDA device is matched to its NVML
// device by PCI bus id (index_of_pci_bus_id), never by position.
//
// Sampling. A monitor thread asks every device every `interval` (200 ms: NVML's own utilization
// period is ~1/6 s on recent boards, so faster sampling repeats values) and keeps, per device, the
// latest sample, running sums and the peak since start, and a ring of the samples of the last
// `window` (10 s, bounded in count too) for the windowed mean and peak. Sums since start are
// exported as well, so a client that reads them twice (cuzk bench, before and after its run) gets
// the mean between its two readings exactly. Where NVML does not answer, the monitor stays empty
// and says why. The sample source is an interface so tests drive the monitor with a fake device
// and their own clock (options.thread = false, poll()).
//
// Thread safety: a gpu_sample_source is not thread-safe (the monitor's thread owns it, except for
// index_of_pci_bus_id, which takes the monitor's lock); the monitor's accessors may be called from
// any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
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

// Where samples come from: NVML, or a fake in tests.
class gpu_sample_source {
 public:
  virtual ~gpu_sample_source() = default;
  virtual result<unsigned> device_count() = 0;
  virtual result<gpu_sample> sample(unsigned index) = 0;
  // The index of the device at a PCI bus id as cudaDeviceGetPCIBusId writes it ("0000:65:00.0").
  // Errors: not_found when no device of this source sits there.
  virtual result<unsigned> index_of_pci_bus_id(const std::string& bus_id) = 0;
};

class nvml_library final : public gpu_sample_source {
 public:
  // Loads libnvidia-ml and initialises it. Errors: unsupported (no library or no driver), with
  // NVML's own message.
  static result<std::unique_ptr<nvml_library>> open();
  ~nvml_library() override;
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;

  result<unsigned> device_count() override;
  result<gpu_sample> sample(unsigned index) override;
  result<unsigned> index_of_pci_bus_id(const std::string& bus_id) override;

  struct functions;  // the resolved entry points (gpu_utilization.cpp)

 private:
  nvml_library() = default;
  void* handle_ = nullptr;
  std::unique_ptr<functions> fn_;
};

// One device's numbers, as the monitor has them at one moment.
struct gpu_device_stats {
  gpu_sample last;       // the latest sample
  uint64_t samples = 0;  // since start
  // Since start. The sums (percent x samples) are for differencing; the means divide by samples.
  double sm_busy_pct_sum = 0, mem_busy_pct_sum = 0;
  double sm_busy_mean_pct = 0, mem_busy_mean_pct = 0;
  uint64_t memory_used_peak = 0;
  // Over the samples taken within the last window (none: zeros and window_samples 0).
  uint64_t window_samples = 0;
  double sm_busy_window_pct = 0, mem_busy_window_pct = 0;
  uint64_t memory_used_window_peak = 0;
};

struct gpu_monitor_status {
  bool available = false;
  std::string reason;  // why not, when not available
  double interval_s = 0, window_s = 0;
  std::vector<gpu_device_stats> devices;  // by NVML index
};

struct gpu_monitor_options {
  std::chrono::milliseconds interval{200};
  std::chrono::milliseconds window{10000};
  // false: no thread; the owner calls poll() (tests, with their own clock).
  bool thread = true;
};

class gpu_utilization_monitor {
 public:
  // Samples NVML when it answers; otherwise the monitor stays empty and status() says why.
  explicit gpu_utilization_monitor(gpu_monitor_options o = {});
  // Samples `source` (null: unavailable, `why_not` says why).
  gpu_utilization_monitor(std::unique_ptr<gpu_sample_source> source, gpu_monitor_options o,
                          std::string why_not = {});
  ~gpu_utilization_monitor();
  gpu_utilization_monitor(const gpu_utilization_monitor&) = delete;
  gpu_utilization_monitor& operator=(const gpu_utilization_monitor&) = delete;

  bool available() const noexcept { return available_; }
  const std::string& unavailable_reason() const noexcept { return reason_; }
  // One round of samples taken now; `now_us` is the monotonic time it counts as (tests).
  void poll(int64_t now_us);
  void poll();
  // The numbers with the window ending at `now_us` (monotonic microseconds, as poll's).
  gpu_monitor_status status(int64_t now_us) const;
  gpu_monitor_status status() const;
  // See gpu_sample_source; not_found also when the monitor is unavailable. Answers are kept: a
  // device's bus id does not change while the driver is loaded.
  result<unsigned> index_of_pci_bus_id(const std::string& bus_id) const;

  static int64_t monotonic_us() noexcept;

 private:
  struct point {
    int64_t t_us;
    double sm, mem;
    uint64_t used;
  };
  struct device {
    gpu_device_stats totals;  // the since-start fields and `last`
    std::deque<point> ring;   // the last window's samples, oldest first
  };
  void run();

  const gpu_monitor_options opt_;
  std::unique_ptr<gpu_sample_source> source_;
  bool available_ = false;
  std::string reason_;
  std::size_t ring_limit_ = 0;
  mutable std::mutex source_m_;  // the source: poll() and index_of_pci_bus_id()
  mutable std::mutex mutex_;     // devices_, stop_
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<device> devices_;
  mutable std::map<std::string, int> bus_index_;  // under source_m_; -1: not found
  std::thread thread_;
};

}  // namespace cuzk::engine
