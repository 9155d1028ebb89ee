// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/state_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;

// Whether `dir` is a directory, or could be made: the nearest existing folder above it is a
// directory this user may create entries in.
bool usable(const fs::path& dir) {
  std::error_code ec;
  fs::path p = dir;
  for (;;) {
    const auto st = fs::status(p, ec);
    if (fs::exists(st)) {
      if (!fs::is_directory(st)) return false;
      // An existing target must be writable too: the daemon creates its files in it.
      return ::access(p.c_str(), W_OK | X_OK) == 0;
    }
    if (!p.has_parent_path() || p.parent_path() == p) return false;
    p = p.parent_path();
  }
}

bool set(const char* v) { return v != nullptr && *v != '\0'; }

}  // namespace

std::string default_state_dir(const char* xdg_state_home, const char* home, const std::string& cwd) {
  if (set(xdg_state_home) && fs::path(xdg_state_home).is_absolute()) {
    const fs::path p = fs::path(xdg_state_home) / "cuzk";
    if (usable(p)) return p.lexically_normal().string();
  }
  std::error_code ec;
  if (set(home) && fs::path(home).is_absolute() && fs::is_directory(home, ec)) {
    const fs::path p = fs::path(home) / ".local" / "state" / "cuzk";
    if (usable(p)) return p.lexically_normal().string();
  }
  return (fs::path(cwd) / "cuzk-state").lexically_normal().string();
}

std::string default_state_dir() {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  return default_state_dir(std::getenv("XDG_STATE_HOME"), std::getenv("HOME"), ec ? "." : cwd.string());
}

std::string default_socket_path() { return default_state_dir() + "/" + socket_file_name; }

std::string client_socket_path(const std::string& user_socket, const std::string& system_socket) {
  std::error_code ec;
  if (fs::exists(user_socket, ec)) return user_socket;
  if (fs::exists(system_socket, ec)) return system_socket;
  return user_socket;
}

std::string client_socket_path() { return client_socket_path(default_socket_path(), system_socket_path); }

}  // namespace cuzk::service
