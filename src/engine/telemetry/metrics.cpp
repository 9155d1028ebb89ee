// SPDX-License-Identifier: MIT OR Apache-2.0
// Counters and histograms (see metrics.hpp).
#include "engine/telemetry/metrics.hpp"

#include <algorithm>

#include "base/enum_names.hpp"

namespace cuzk::engine {

void histogram::observe(double seconds) noexcept {
  const auto it = std::lower_bound(latency_buckets_s.begin(), latency_buckets_s.end(), seconds);
  ++counts[static_cast<std::size_t>(it - latency_buckets_s.begin())];
  sum += seconds;
  ++count;
}

const char* reject_reason_name(reject_reason r) noexcept {
  static constexpr auto words = words_of<reject_reason::request_id_conflict>({
      "draining", "unknown_circuit", "malformed_request", "bad_witness", "spool_failed",
      "request_id_conflict"}, "unknown");
  return words.name(r);
}

uint64_t metrics_snapshot::rejected_total() const noexcept {
  uint64_t n = 0;
  for (uint64_t r : rejected) n += r;
  return n;
}

namespace {
uint64_t& slot(job_counters& c, metrics::counter k) {
  switch (k) {
    case metrics::counter::submitted:
      return c.submitted;
    case metrics::counter::completed:
      return c.completed;
    case metrics::counter::failed:
      return c.failed;
    case metrics::counter::cancelled:
      return c.cancelled;
    case metrics::counter::deadline_miss:
      return c.deadline_misses;
    case metrics::counter::recovered:
      return c.recovered;
    case metrics::counter::partition:
      return c.partitions_proved;
  }
  return c.submitted;
}
}  // namespace

void metrics::add(const std::string& circuit, counter c, uint64_t n) {
  std::lock_guard lk(m_);
  slot(s_.total, c) += n;
  if (!circuit.empty()) slot(s_.circuits[circuit].counters, c) += n;
}

void metrics::observe(const std::string& circuit, phase p, double seconds) {
  std::lock_guard lk(m_);
  s_.circuits[circuit].phases[static_cast<int>(p)].observe(seconds);
}

void metrics::reject(reject_reason r) {
  std::lock_guard lk(m_);
  ++s_.rejected[static_cast<std::size_t>(r)];
}

metrics_snapshot metrics::snapshot() const {
  std::lock_guard lk(m_);
  return s_;
}

}  // namespace cuzk::engine
