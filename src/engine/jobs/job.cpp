// SPDX-License-Identifier: MIT OR Apache-2.0
// Names of the job enums, as logs, status JSON and the wire show them.
#include "engine/jobs/job.hpp"

#include <algorithm>
#include <cctype>

#include "base/enum_names.hpp"

namespace cuzk::engine {

const char* priority_name(priority p) noexcept {
  static constexpr auto words = words_of<priority::critical>({"LOW", "NORMAL", "HIGH", "CRITICAL"});
  return words.name(p);
}

result<priority> priority_from_name(std::string_view name) {
  std::string up(name);
  std::transform(up.begin(), up.end(), up.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (int i = 0; i < priority_count; ++i)
    if (up == priority_name(static_cast<priority>(i))) return static_cast<priority>(i);
  return status(errc::invalid_argument,
                "priority: expected LOW, NORMAL, HIGH or CRITICAL, found \"" + std::string(name) + "\"");
}

const char* job_state_name(job_state s) noexcept {
  static constexpr auto words = words_of<job_state::cancelled>({
      "queued", "loading_key", "synthesizing", "proving", "verifying", "done", "failed", "cancelled"});
  return words.name(s);
}

const char* phase_name(phase p) noexcept {
  static constexpr auto words = words_of<phase::witness>({
      "queue_wait", "key_load", "synthesis", "prove", "verify", "total", "h2d", "ntt", "msm_a", "msm_b1",
      "msm_b2", "msm_c", "msm_h", "assembly", "gpu_wait", "gpu_busy", "reservation_wait",
      "witness"});
  return words.name(p);
}

int64_t to_unix_ms(wall_time t) noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

wall_time from_unix_ms(int64_t ms) noexcept {
  using std::chrono::milliseconds;
  // Whole milliseconds inside the clock's range (duration_cast truncates toward zero, so these
  // convert back to the clock's unit without overflow).
  constexpr int64_t lo = std::chrono::duration_cast<milliseconds>(wall_time::duration::min()).count();
  constexpr int64_t hi = std::chrono::duration_cast<milliseconds>(wall_time::duration::max()).count();
  return wall_time(std::chrono::duration_cast<wall_time::duration>(milliseconds(std::clamp(ms, lo, hi))));
}

}  // namespace cuzk::engine
