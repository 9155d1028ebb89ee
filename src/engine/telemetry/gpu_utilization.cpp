// SPDX-License-Identifier: MIT OR Apache-2.0
#include "engine/telemetry/gpu_utilization.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>

namespace cuzk::engine {

namespace {

// NVML's C types, as its documentation gives them.
using nvml_return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using nvml_device = struct nvml_device_opaque*;
struct nvml_utilization {
  unsigned int gpu;
  unsigned int memory;
};
struct nvml_memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr int pcie_tx_bytes = 0, pcie_rx_bytes = 1;  // nvmlPcieUtilCounter_t
constexpr nvml_return nvml_not_found = 6;         // NVML_ERROR_NOT_FOUND

}  // namespace

struct nvml_library::functions {
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_return) = nullptr;
  nvml_return (*device_count)(unsigned int*) = nullptr;
  nvml_return (*handle_by_index)(unsigned int, nvml_device*) = nullptr;
  nvml_return (*name)(nvml_device, char*, unsigned int) = nullptr;
  nvml_return (*utilization)(nvml_device, nvml_utilization*) = nullptr;
  nvml_return (*memory)(nvml_device, nvml_memory*) = nullptr;
  nvml_return (*pcie_throughput)(nvml_device, int, unsigned int*) = nullptr;
  nvml_return (*handle_by_pci_bus_id)(const char*, nvml_device*) = nullptr;
  nvml_return (*index)(nvml_device, unsigned int*) = nullptr;

  std::string message(const char* what, nvml_return r) const {
    return std::string("nvml: ") + what + ": " + (error_string != nullptr ? error_string(r) : "error") + " (" +
           std::to_string(r) + ")";
  }
};

result<std::unique_ptr<nvml_library>> nvml_library::open() {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = dlerror();
    return status(errc::unsupported,
                  std::string("nvml: libnvidia-ml.so.1 not loadable (no NVIDIA driver?): ") + (why ? why : "?"));
  }
  std::unique_ptr<nvml_library> lib(new nvml_library());
  lib->handle_ = h;
  lib->fn_ = std::make_unique<functions>();
  auto& f = *lib->fn_;
  bool missing = false;
  std::string missing_name;
  auto get = [&](auto& slot, const char* symbol) {
    void* p = dlsym(h, symbol);
    if (p == nullptr && !missing) {
      missing = true;
      missing_name = symbol;
    }
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(p);
  };
  get(f.init, "nvmlInit_v2");
  get(f.shutdown, "nvmlShutdown");
  get(f.error_string, "nvmlErrorString");
  get(f.device_count, "nvmlDeviceGetCount_v2");
  get(f.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  get(f.name, "nvmlDeviceGetName");
  get(f.utilization, "nvmlDeviceGetUtilizationRates");
  get(f.memory, "nvmlDeviceGetMemoryInfo");
  get(f.pcie_throughput, "nvmlDeviceGetPcieThroughput");
  get(f.handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  get(f.index, "nvmlDeviceGetIndex");
  if (missing) {
    lib->fn_->shutdown = nullptr;  // never initialised
    return status(errc::unsupported, "nvml: libnvidia-ml.so.1 lacks " + missing_name);
  }
  if (const nvml_return r = f.init(); r != 0) {
    const std::string msg = f.message("nvmlInit_v2", r);
    lib->fn_->shutdown = nullptr;
    return status(errc::unsupported, msg);
  }
  return result<std::unique_ptr<nvml_library>>(std::move(lib));
}

nvml_library::~nvml_library() {
  if (fn_ && fn_->shutdown != nullptr) fn_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

result<unsigned> nvml_library::device_count() {
  unsigned int n = 0;
  if (const nvml_return r = fn_->device_count(&n); r != 0)
    return status(errc::cuda_error, fn_->message("nvmlDeviceGetCount_v2", r));
  return n;
}

result<gpu_sample> nvml_library::sample(unsigned index) {
  nvml_device d = nullptr;
  if (const nvml_return r = fn_->handle_by_index(index, &d); r != 0)
    return status(errc::cuda_error, fn_->message("nvmlDeviceGetHandleByIndex_v2", r));
  gpu_sample s;
  s.index = index;
  std::array<char, 96> name{};
  if (fn_->name(d, name.data(), static_cast<unsigned>(name.size())) == 0) s.name = name.data();
  nvml_utilization u{};
  if (const nvml_return r = fn_->utilization(d, &u); r != 0)
    return status(errc::cuda_error, fn_->message("nvmlDeviceGetUtilizationRates", r));
  s.sm_busy_pct = u.gpu;
  s.mem_busy_pct = u.memory;
  nvml_memory m{};
  if (const nvml_return r = fn_->memory(d, &m); r != 0)
    return status(errc::cuda_error, fn_->message("nvmlDeviceGetMemoryInfo", r));
  s.memory_used = m.used;
  s.memory_total = m.total;
  // PCIe counters are KB/s over NVML's own ~20 ms window; some boards do not report them.
  unsigned int kb = 0;
  if (fn_->pcie_throughput(d, pcie_rx_bytes, &kb) == 0) s.pcie_rx_mb_s = kb / 1000.0;
  if (fn_->pcie_throughput(d, pcie_tx_bytes, &kb) == 0) s.pcie_tx_mb_s = kb / 1000.0;
  return s;
}

result<unsigned> nvml_library::index_of_pci_bus_id(const std::string& bus_id) {
  nvml_device d = nullptr;
  if (const nvml_return r = fn_->handle_by_pci_bus_id(bus_id.c_str(), &d); r != 0)
    return status(r == nvml_not_found ? errc::not_found : errc::cuda_error,
                  fn_->message(("nvmlDeviceGetHandleByPciBusId_v2(" + bus_id + ")").c_str(), r));
  unsigned int index = 0;
  if (const nvml_return r = fn_->index(d, &index); r != 0)
    return status(errc::cuda_error, fn_->message("nvmlDeviceGetIndex", r));
  return index;
}

gpu_utilization_monitor::gpu_utilization_monitor(gpu_monitor_options o)
    : gpu_utilization_monitor(nullptr, o) {}

gpu_utilization_monitor::gpu_utilization_monitor(std::unique_ptr<gpu_sample_source> source, gpu_monitor_options o,
                                                 std::string why_not)
    : opt_(o) {
  if (!source && why_not.empty()) {
    auto lib = nvml_library::open();
    if (lib)
      source = std::move(lib).value();
    else
      why_not = lib.error().message();
  }
  if (!source) {
    reason_ = why_not.empty() ? "nvml: no sample source" : std::move(why_not);
    return;
  }
  auto n = source->device_count();
  if (!n || *n == 0) {
    reason_ = n ? "nvml: no devices" : n.error().message();
    return;
  }
  source_ = std::move(source);
  devices_.resize(*n);
  // The window's samples, with room for a late or early tick; never unbounded if the clock jumps.
  const auto per_window = o.interval.count() > 0 ? o.window.count() / o.interval.count() : 0;
  ring_limit_ = static_cast<std::size_t>(std::max<int64_t>(per_window, 1)) * 2 + 8;
  available_ = true;
  if (o.thread) thread_ = std::thread([this] { run(); });
}

gpu_utilization_monitor::~gpu_utilization_monitor() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int64_t gpu_utilization_monitor::monotonic_us() noexcept {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void gpu_utilization_monitor::poll() { poll(monotonic_us()); }

void gpu_utilization_monitor::poll(int64_t now_us) {
  if (!available_) return;
  std::vector<result<gpu_sample>> taken;
  {
    std::lock_guard src(source_m_);
    taken.reserve(devices_.size());
    for (std::size_t i = 0; i < devices_.size(); ++i) taken.push_back(source_->sample(static_cast<unsigned>(i)));
  }
  const int64_t oldest = now_us - std::chrono::duration_cast<std::chrono::microseconds>(opt_.window).count();
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    device& d = devices_[i];
    if (taken[i]) {  // a transient NVML error: keep the previous sample, count nothing
      const gpu_sample& s = *taken[i];
      gpu_device_stats& t = d.totals;
      t.last = s;
      ++t.samples;
      t.sm_busy_pct_sum += s.sm_busy_pct;
      t.mem_busy_pct_sum += s.mem_busy_pct;
      t.memory_used_peak = std::max(t.memory_used_peak, s.memory_used);
      d.ring.push_back({now_us, s.sm_busy_pct, s.mem_busy_pct, s.memory_used});
    }
    while (!d.ring.empty() && (d.ring.front().t_us <= oldest || d.ring.size() > ring_limit_)) d.ring.pop_front();
  }
}

void gpu_utilization_monitor::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    lock.unlock();
    poll();
    lock.lock();
    wake_.wait_for(lock, opt_.interval, [this] { return stop_; });
  }
}

gpu_monitor_status gpu_utilization_monitor::status() const { return status(monotonic_us()); }

gpu_monitor_status gpu_utilization_monitor::status(int64_t now_us) const {
  gpu_monitor_status out;
  out.available = available_;
  out.reason = reason_;
  out.interval_s = std::chrono::duration<double>(opt_.interval).count();
  out.window_s = std::chrono::duration<double>(opt_.window).count();
  // The window is (now - window, now]: a sample exactly `window` old has left it.
  const int64_t oldest = now_us - std::chrono::duration_cast<std::chrono::microseconds>(opt_.window).count();
  std::lock_guard lock(mutex_);
  for (const device& d : devices_) {
    gpu_device_stats s = d.totals;
    if (s.samples > 0) {
      s.sm_busy_mean_pct = s.sm_busy_pct_sum / static_cast<double>(s.samples);
      s.mem_busy_mean_pct = s.mem_busy_pct_sum / static_cast<double>(s.samples);
    }
    double sm = 0, mem = 0;
    for (const point& p : d.ring) {
      if (p.t_us <= oldest || p.t_us > now_us) continue;
      ++s.window_samples;
      sm += p.sm;
      mem += p.mem;
      s.memory_used_window_peak = std::max(s.memory_used_window_peak, p.used);
    }
    if (s.window_samples > 0) {
      s.sm_busy_window_pct = sm / static_cast<double>(s.window_samples);
      s.mem_busy_window_pct = mem / static_cast<double>(s.window_samples);
    }
    out.devices.push_back(std::move(s));
  }
  return out;
}

result<unsigned> gpu_utilization_monitor::index_of_pci_bus_id(const std::string& bus_id) const {
  if (!available_) return cuzk::status(errc::not_found, "nvml: unavailable (" + reason_ + ")");
  std::lock_guard src(source_m_);
  if (auto it = bus_index_.find(bus_id); it != bus_index_.end()) {
    if (it->second < 0) return cuzk::status(errc::not_found, "nvml: no device at PCI bus id " + bus_id);
    return static_cast<unsigned>(it->second);
  }
  auto i = source_->index_of_pci_bus_id(bus_id);
  if (i)
    bus_index_[bus_id] = static_cast<int>(*i);
  else if (i.error().code() == errc::not_found)
    bus_index_[bus_id] = -1;
  return i;
}

}  // namespace cuzk::engine
