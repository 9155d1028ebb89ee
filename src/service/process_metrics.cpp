// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "base/version.hpp"

namespace cuzk::service {
namespace {

std::optional<uint64_t> to_u64(std::string_view w) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) return std::nullopt;
  return v;
}

std::string read_all(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A Prometheus label value: backslash, double quote and newline escaped.
std::string label_value(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Fixed point: a start time near 1.7e9 s keeps its fraction (%g's 9 digits would round it to 10 s).
std::string number(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

}  // namespace

std::optional<proc_stat_fields> parse_proc_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // Fields 3 onwards, space separated: state is [0], so field n is [n - 3].
  std::vector<std::string_view> f;
  std::size_t i = close + 1;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start) f.push_back(text.substr(start, i - start));
  }
  if (f.size() < 22) return std::nullopt;
  const auto ut = to_u64(f[14 - 3]), st = to_u64(f[15 - 3]), start = to_u64(f[22 - 3]),
             vs = to_u64(f[23 - 3]);
  // RSS is signed in the kernel's format; a negative one cannot happen for a live process.
  const auto rss = to_u64(f[24 - 3]);
  if (!ut || !st || !start || !vs || !rss) return std::nullopt;
  return proc_stat_fields{*ut, *st, *start, *vs, *rss};
}

std::optional<uint64_t> parse_boot_time(std::string_view proc_stat) {
  std::size_t pos = 0;
  while (pos < proc_stat.size()) {
    const auto eol = proc_stat.find('\n', pos);
    const auto line =
        proc_stat.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    if (line.rfind("btime ", 0) == 0) return to_u64(line.substr(6));
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return std::nullopt;
}

std::optional<process_stats> read_process_stats() {
  const auto fields = parse_proc_stat(read_all("/proc/self/stat"));
  const auto boot = parse_boot_time(read_all("/proc/stat"));
  const long ticks = ::sysconf(_SC_CLK_TCK);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (!fields || !boot || ticks <= 0 || page <= 0) return std::nullopt;
  process_stats s;
  s.cpu_seconds = static_cast<double>(fields->utime_ticks + fields->stime_ticks) / static_cast<double>(ticks);
  s.resident_bytes = fields->rss_pages * static_cast<uint64_t>(page);
  s.virtual_bytes = fields->vsize_bytes;
  s.start_time_seconds =
      static_cast<double>(*boot) + static_cast<double>(fields->start_ticks) / static_cast<double>(ticks);
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec))
    ++s.open_fds;
  if (s.open_fds > 0) --s.open_fds;  // the iterator's own descriptor on /proc/self/fd
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0)
    s.max_fds = lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(lim.rlim_cur);
  return s;
}

std::string process_metrics_text(const std::optional<process_stats>& s) {
  if (!s) return {};
  std::ostringstream os;
  auto family = [&](const char* name, const char* type, const char* help, const std::string& value) {
    os << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
       << name << " " << value << "\n";
  };
  family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
         number(s->cpu_seconds));
  family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
         std::to_string(s->resident_bytes));
  family("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
         std::to_string(s->virtual_bytes));
  family("process_open_fds", "gauge", "Number of open file descriptors.", std::to_string(s->open_fds));
  family("process_max_fds", "gauge", "Maximum number of open file descriptors.", std::to_string(s->max_fds));
  family("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
         number(s->start_time_seconds));
  return os.str();
}

std::string build_info_text() {
  return std::string(
             "# HELP cuzk_build_info the build: its version and git revision (empty without one); always "
             "1\n") +
         "# TYPE cuzk_build_info gauge\ncuzk_build_info{version=\"" + label_value(version()) +
         "\",revision=\"" + label_value(revision()) + "\"} 1\n";
}

}  // namespace cuzk::service
