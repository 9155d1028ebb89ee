// Names of the job enums, as logs, status JSON and the wire show them.
#include "engine/jobs/job.hpp"

#include <algorithm>
#include <cctype>

namespace cuzk::engine {

const char* priority_name(priority p) noexcept {
  switch (p) {
    case priority::low:
      return "LOW";
    case priority::normal:
      return "NORMAL";
    case priority::high:
      return "HIGH";
    case priority::critical:
      return "CRITICAL";
  }
  return "?";
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
  switch (s) {
    case job_state::queued:
      return "queued";
    case job_state::loading_key:
      return "loading_key";
    case job_state::synthesizing:
      return "synthesizing";
    case job_state::proving:
      return "proving";
    case job_state::verifying:
      return "verifying";
    case job_state::done:
      return "done";
    case job_state::failed:
      return "failed";
    case job_state::cancelled:
      return "cancelled";
  }
  return "?";
}

const char* phase_name(phase p) noexcept {
  switch (p) {
    case phase::queue_wait:
      return "queue_wait";
    case phase::key_load:
      return "key_load";
    case phase::synthesis:
      return "synthesis";
    case phase::prove:
      return "prove";
    case phase::verify:
      return "verify";
    case phase::total:
      return "total";
    case phase::h2d:
      return "h2d";
    case phase::ntt:
      return "ntt";
    case phase::msm_a:
      return "msm_a";
    case phase::msm_b1:
      return "msm_b1";
    case phase::msm_b2:
      return "msm_b2";
    case phase::msm_c:
      return "msm_c";
    case phase::msm_h:
      return "msm_h";
    case phase::assembly:
      return "assembly";
    case phase::gpu_wait:
      return "gpu_wait";
    case phase::gpu_busy:
      return "gpu_busy";
    case phase::reservation_wait:
      return "reservation_wait";
  }
  return "?";
}

int64_t to_unix_ms(wall_time t) noexcept {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

wall_time from_unix_ms(int64_t ms) noexcept { return wall_time(std::chrono::milliseconds(ms)); }

}  // namespace cuzk::engine
