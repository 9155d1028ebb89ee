// SPDX-License-Identifier: MIT OR Apache-2.0
// The gRPC message limit (see message_limit.hpp).
#include "service/message_limit.hpp"

#include <algorithm>

#include "engine/jobs/witness.hpp"

namespace cuzk::service {

int64_t message_limit_bytes(int64_t max_message_mib, const std::vector<engine::circuit_info>& circuits) {
  if (max_message_mib > 0) return max_message_mib << 20;
  int64_t largest = 0;
  for (const auto& c : circuits)
    largest = std::max(largest, static_cast<int64_t>(engine::max_witness_bytes(c.key)));
  constexpr int64_t mib = int64_t{1} << 20;
  const int64_t rounded = (largest + message_overhead_bytes + mib - 1) / mib * mib;
  // gRPC takes an int; max_message_mib's own bound (2047 MiB) holds a derived value too.
  return std::clamp(rounded, min_message_bytes, int64_t{2047} << 20);
}

int64_t request_memory_bytes(int64_t request_memory_mib, int64_t limit) {
  if (request_memory_mib > 0) return request_memory_mib << 20;
  return std::max(8 * limit + (int64_t{32} << 20), min_request_memory_bytes);
}

}  // namespace cuzk::service
