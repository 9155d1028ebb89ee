#include "engine/gpu_utilization.hpp"

#include <dlfcn.h>

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

gpu_utilization_monitor::gpu_utilization_monitor(std::chrono::milliseconds interval) : interval_(interval) {
  auto lib = nvml_library::open();
  if (!lib) {
    reason_ = lib.error().message();
    return;
  }
  auto n = (*lib)->device_count();
  if (!n || *n == 0) {
    reason_ = n ? "nvml: no devices" : n.error().message();
    return;
  }
  nvml_ = std::move(lib).value();
  latest_.resize(*n);
  sums_.resize(*n);
  available_ = true;
  thread_ = std::thread([this] { run(); });
}

gpu_utilization_monitor::~gpu_utilization_monitor() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void gpu_utilization_monitor::run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    const std::size_t n = latest_.size();
    lock.unlock();
    std::vector<result<gpu_sample>> taken;
    taken.reserve(n);
    for (std::size_t i = 0; i < n; ++i) taken.push_back(nvml_->sample(static_cast<unsigned>(i)));
    lock.lock();
    for (std::size_t i = 0; i < n; ++i) {
      if (!taken[i]) continue;  // a transient NVML error: keep the previous sample
      const gpu_sample& s = *taken[i];
      latest_[i] = s;
      gpu_summary& sum = sums_[i];
      sum.index = s.index;
      sum.name = s.name;
      ++sum.samples;
      sum.mean_sm_busy_pct += s.sm_busy_pct;
      sum.mean_mem_busy_pct += s.mem_busy_pct;
      sum.mean_pcie_rx_mb_s += s.pcie_rx_mb_s;
      sum.mean_pcie_tx_mb_s += s.pcie_tx_mb_s;
      sum.peak_memory_used = std::max(sum.peak_memory_used, s.memory_used);
    }
    wake_.wait_for(lock, interval_, [this] { return stop_; });
  }
}

std::vector<gpu_sample> gpu_utilization_monitor::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

std::vector<gpu_summary> gpu_utilization_monitor::summary() const {
  std::lock_guard lock(mutex_);
  std::vector<gpu_summary> out = sums_;
  for (auto& s : out) {
    if (s.samples == 0) continue;
    const double k = static_cast<double>(s.samples);
    s.mean_sm_busy_pct /= k;
    s.mean_mem_busy_pct /= k;
    s.mean_pcie_rx_mb_s /= k;
    s.mean_pcie_tx_mb_s /= k;
  }
  return out;
}

void gpu_utilization_monitor::reset() {
  std::lock_guard lock(mutex_);
  for (auto& s : sums_) s = gpu_summary{s.index, s.name, 0, 0, 0, 0, 0, 0};
}

}  // namespace cuzk::engine
