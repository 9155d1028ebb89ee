// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernel-lock intervals per device slot and the busy ratios they give (see kernel_activity.hpp).
#include "engine/telemetry/kernel_activity.hpp"

#include <algorithm>
#include <chrono>

#include "engine/telemetry/timeline.hpp"

namespace cuzk::engine {

kernel_activity::kernel_activity(std::size_t slots, int64_t started_unix_us, std::chrono::milliseconds window,
                                 std::size_t trace_capacity)
    : started_us_(started_unix_us),
      window_us_(std::chrono::duration_cast<std::chrono::microseconds>(window).count()),
      trace_capacity_(trace_capacity),
      slots_(slots) {}

std::vector<kernel_span> on_wall_clock(std::span<const groth16::kernel_span> spans) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  const int64_t wall_minus_steady =
      now_unix_us() - duration_cast<microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto wall_us = [&](std::chrono::steady_clock::time_point tp) {
    return wall_minus_steady + duration_cast<microseconds>(tp.time_since_epoch()).count();
  };
  std::vector<kernel_span> out;
  out.reserve(spans.size());
  for (const auto& s : spans) out.push_back({s.name, wall_us(s.begin), wall_us(s.end), s.held});
  return out;
}

void kernel_activity::record(int slot, int worker, job_id job, uint32_t partition,
                             std::span<const kernel_span> spans) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots_.size()) return;
  std::lock_guard lk(m_);
  slot_state& s = slots_[slot];
  for (const kernel_span& k : spans) {
    if (k.end_us < k.begin_us) continue;  // not an interval: a clock step between its two reads
    trace_.push_back({slot, worker, job, partition, k});
    if (!k.held) continue;
    ++s.intervals;
    s.busy_us += k.end_us - k.begin_us;
    s.kept.push_back({k.begin_us, k.end_us});
    s.latest_end_us = std::max(s.latest_end_us, k.end_us);
  }
  while (trace_.size() > trace_capacity_) trace_.pop_front();
  // A query comes after every report, so its window starts after latest_end - window: anything
  // that ended two windows before the latest end can never count again. Reports arrive roughly in
  // time order, so the old ones are at the front; one left behind a newer one is dropped later.
  const int64_t keep_from = s.latest_end_us - 2 * window_us_;
  while (!s.kept.empty() && s.kept.front().end_us < keep_from) s.kept.pop_front();
}

std::vector<kernel_busy> kernel_activity::busy(int64_t now_unix_us) const {
  const int64_t since_start = now_unix_us - started_us_;
  const int64_t from = std::max(now_unix_us - window_us_, started_us_);
  const int64_t window = now_unix_us - from;
  std::vector<kernel_busy> out;
  std::lock_guard lk(m_);
  out.reserve(slots_.size());
  for (const slot_state& s : slots_) {
    kernel_busy b;
    b.intervals = s.intervals;
    b.busy_s = static_cast<double>(s.busy_us) / 1e6;
    b.ratio = since_start > 0 ? static_cast<double>(s.busy_us) / static_cast<double>(since_start) : 0;
    int64_t in_window = 0;
    for (const interval& i : s.kept) {
      const int64_t lo = std::max(i.begin_us, from), hi = std::min(i.end_us, now_unix_us);
      if (hi > lo) in_window += hi - lo;
    }
    b.window_s = window > 0 ? static_cast<double>(window) / 1e6 : 0;
    b.window_busy_s = static_cast<double>(in_window) / 1e6;
    b.window_ratio = window > 0 ? static_cast<double>(in_window) / static_cast<double>(window) : 0;
    out.push_back(b);
  }
  return out;
}

std::vector<kernel_record> kernel_activity::recent() const {
  std::lock_guard lk(m_);
  return {trace_.begin(), trace_.end()};
}

}  // namespace cuzk::engine
