// SPDX-License-Identifier: MIT OR Apache-2.0
// Device discovery: how many CUDA devices there are, what each is, how much memory it has free,
// where it sits on the PCI bus, and making one current. Every answer is a status value, so that
// a machine without a GPU (or without a driver) gets a message, never a crash.
//
// This header needs no CUDA headers, so plain C++ code (the prover chooser, tests, benchmarks)
// can call it.
//
// Thread: any thread. use_device() changes the calling thread's current device; the others leave
// it as they found it, except device_memory(), which makes `device` current to ask.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace cuzk::gpu {

// Number of CUDA devices, or the CUDA status saying why there are none usable (no driver, ...).
result<int> device_count();
// "NVIDIA H200 (sm_90, 132 SMs)".
result<std::string> device_description(int device);
// Makes `device` current on the calling thread (cudaSetDevice), after checking it exists: an
// ordinal past the last gives errc::invalid_argument naming it and how many devices are visible,
// and a machine without any (no driver, no GPU) gives the runtime's reason, never a crash.
status use_device(int device);

struct device_memory_info {
  uint64_t free_bytes = 0, total_bytes = 0;
};
// The device's free and total memory now (cudaMemGetInfo; creates its context if there is none).
result<device_memory_info> device_memory(int device);

// "0000:65:00.0": how NVML and the operating system name the device.
result<std::string> device_pci_bus_id(int device);

}  // namespace cuzk::gpu
