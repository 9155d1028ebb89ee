// SPDX-License-Identifier: MIT OR Apache-2.0
// The gRPC message limit (see message_limit.hpp).
#include "service/message_limit.hpp"

#include <algorithm>

#include "engine/jobs/witness.hpp"

namespace cuzk::service {

namespace {
constexpr int64_t mib = int64_t{1} << 20;
}

int64_t message_limit_bytes(int64_t max_message_mib, int64_t ceiling_mib,
                            const std::vector<engine::circuit_info>& circuits) {
  if (max_message_mib > 0) return max_message_mib << 20;
  int64_t largest = 0;
  for (const auto& c : circuits)
    largest = std::max(largest, static_cast<int64_t>(engine::max_witness_bytes(c.key)));
  const int64_t rounded = (largest + message_overhead_bytes + mib - 1) / mib * mib;
  // gRPC takes an int; the ceiling's own bound (2047 MiB) holds there too.
  const int64_t ceiling = std::clamp(ceiling_mib << 20, min_message_bytes, max_message_bytes);
  return std::clamp(rounded, min_message_bytes, ceiling);
}

int64_t transport_limit_bytes(int64_t max_message_mib, int64_t ceiling_mib) {
  if (max_message_mib > 0) return max_message_mib << 20;
  return std::clamp(ceiling_mib << 20, min_message_bytes, max_message_bytes);
}

int64_t request_memory_bytes(int64_t request_memory_mib, int64_t limit) {
  if (request_memory_mib > 0) return request_memory_mib << 20;
  return std::max(8 * limit + (int64_t{32} << 20), min_request_memory_bytes);
}

status message_too_large(int64_t limit, int64_t found, bool by_path) {
  const int64_t need_mib = (found + mib - 1) / mib;
  std::string msg = "message: expected at most " + std::to_string(limit) + " bytes (the daemon's message limit), found " +
                    std::to_string(found) + ": ";
  if (need_mib <= (max_message_bytes >> 20))
    msg += "set max_message_mib = " + std::to_string(need_mib) + " in the daemon's config to admit it";
  else
    msg += "a message over " + std::to_string(max_message_bytes >> 20) + " MiB cannot go inline (gRPC's own bound)";
  if (by_path) msg += ", or send the witness by path (--path) from one of its witness_dirs";
  return status(errc::resource_exhausted, std::move(msg));
}

message_limit::message_limit(options o, const std::vector<engine::circuit_info>& circuits) : o_(std::move(o)) {
  const int64_t limit = message_limit_bytes(o_.max_message_mib, o_.ceiling_mib, circuits);
  limit_ = limit;
  request_memory_ = request_memory_bytes(o_.request_memory_mib, limit);
}

void message_limit::follow(const std::vector<engine::circuit_info>& circuits) {
  if (!derived()) return;
  std::lock_guard lk(m_);
  const int64_t limit = message_limit_bytes(o_.max_message_mib, o_.ceiling_mib, circuits);
  if (limit == limit_.load()) return;
  const int64_t memory = request_memory_bytes(o_.request_memory_mib, limit);
  limit_ = limit;
  request_memory_ = memory;
  if (o_.on_change) o_.on_change(limit, memory);
}

status message_limit::admit(std::size_t size) const {
  const int64_t limit = bytes();
  if (static_cast<int64_t>(size) <= limit) return status::ok();
  return message_too_large(limit, static_cast<int64_t>(size), o_.by_path);
}

}  // namespace cuzk::service
