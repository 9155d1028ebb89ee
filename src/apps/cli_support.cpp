// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/cli_support.hpp"

namespace cuzk::apps {

int report_error(const status& s) { return report_error(s.message().empty() ? s.to_string() : s.message()); }

int report_error(const std::string& message) {
  std::fprintf(stderr, "cuzk: error: %s\n", message.c_str());
  return exit_failure;
}

int usage_error(const status& s) {
  report_error(s);
  return exit_usage;
}

int usage_error(const std::string& message) {
  report_error(message);
  return exit_usage;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace cuzk::apps
