// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace cuzk::service {

void init_logging(const std::string& level) {
  static const bool once = [] {
    auto l = spdlog::stderr_logger_mt("cuzk");
    l->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    l->flush_on(spdlog::level::debug);  // a crash must not lose the lines before it
    spdlog::set_default_logger(l);
    return true;
  }();
  (void)once;
  set_log_level(level);
}

void set_log_level(const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); }

std::string as_one_line(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (const char ch : line) {
    const auto b = static_cast<unsigned char>(ch);
    if (b >= 0x20 && b != 0x7f) {
      out += ch;
      continue;
    }
    constexpr char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

void log_line(engine::log_level lv, const std::string& raw) {
  const std::string line = as_one_line(raw);
  switch (lv) {
    case engine::log_level::debug:
      spdlog::debug("{}", line);
      break;
    case engine::log_level::info:
      spdlog::info("{}", line);
      break;
    case engine::log_level::warn:
      spdlog::warn("{}", line);
      break;
    case engine::log_level::error:
      spdlog::error("{}", line);
      break;
  }
}

}  // namespace cuzk::service
