// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's log: spdlog to stderr, one line per event, "<component>: <what> key=value ...".
//
// The engine already writes its lines in that shape (job queued, job ended with each phase's
// seconds, key ready, recovery); the service adds its own with the component "service". Witness
// bytes, r and s never reach a log line: nothing here is given them.
#pragma once

#include <string>
#include <string_view>

#include "engine/engine_options.hpp"

namespace cuzk::service {

// Sets up the process-wide logger at `level` ("debug", "info", "warn", "error"); again to change it.
void init_logging(const std::string& level);
void set_log_level(const std::string& level);
// Writes `line` as one line: its control bytes (newlines among them) as \xNN, since a line may
// quote what a client sent (a refused witness path), which must not start a line of its own.
void log_line(engine::log_level lv, const std::string& line);
std::string as_one_line(std::string_view line);

}  // namespace cuzk::service
