// SPDX-License-Identifier: MIT OR Apache-2.0
// /metrics lines about the process itself rather than the engine: what build it is
// (cuzk_build_info) and the standard process_* families every Prometheus client library exports,
// read from /proc, so that the usual dashboards and alerts (CPU, memory, file descriptors,
// restarts) work on the daemon unchanged.
//
// Reading is separate from printing so that the text can be checked from hand-made numbers. Where
// /proc cannot be read (not Linux), the process_* families are left out rather than shown as 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuzk::service {

struct process_stats {
  double cpu_seconds = 0;       // user + system
  uint64_t resident_bytes = 0;  // RSS
  uint64_t virtual_bytes = 0;   // VSZ
  uint64_t open_fds = 0;
  uint64_t max_fds = 0;           // the soft RLIMIT_NOFILE
  double start_time_seconds = 0;  // since the Unix epoch
};

// The fields of /proc/<pid>/stat cuzk reads, in the kernel's units (clock ticks, pages, bytes).
struct proc_stat_fields {
  uint64_t utime_ticks = 0, stime_ticks = 0, start_ticks = 0, vsize_bytes = 0, rss_pages = 0;
};

// Parses /proc/<pid>/stat; nullopt when it is malformed. The command name (field 2) may hold
// spaces and parentheses, so the fields are counted from its last ')'.
std::optional<proc_stat_fields> parse_proc_stat(std::string_view text);
// The boot time ("btime N") from /proc/stat, seconds since the Unix epoch.
std::optional<uint64_t> parse_boot_time(std::string_view proc_stat);

// This process now; nullopt when /proc is not there.
std::optional<process_stats> read_process_stats();

// The process_* families for `s` (nothing for nullopt).
std::string process_metrics_text(const std::optional<process_stats>& s);
// cuzk_build_info{version="0.1.0",revision="..."} 1, with HELP and TYPE.
std::string build_info_text();

}  // namespace cuzk::service
