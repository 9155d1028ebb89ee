// SPDX-License-Identifier: MIT OR Apache-2.0
// Elapsed time as the engine's log lines and job times state it: seconds since a steady-clock
// point, written with millisecond places.
//
// Thread safety: free functions.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace cuzk::engine {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline std::string fmt_s(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace cuzk::engine
