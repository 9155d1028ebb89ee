// SPDX-License-Identifier: MIT OR Apache-2.0
// A client's reading of two /status documents (status_json.hpp): what the daemon's memory and GPUs
// did between them, as the lines `cuzk bench` prints after its table.
//
// The bench reads the daemon's status just before its first request and just after its last
// result, so differences of counters are exactly its run's: the GPU-busy ratio is the kernel-lock
// seconds added per slot over the bench's wall time (kernel_activity.hpp says what they measure),
// NVML's mean SM busy is the added sum over the added samples. Peaks have no such difference:
// peak RSS (the kernel's VmHWM) and each GPU's peak memory used are since the daemon's start, and
// say so. Where there is no GPU the lines say "no GPU" rather than print zeros.
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"

namespace cuzk::service {

// Errors: parse_error naming which document is not JSON.
result<std::vector<std::string>> hardware_summary(const std::string& before_json, const std::string& after_json,
                                                  double wall_s);

}  // namespace cuzk::service
