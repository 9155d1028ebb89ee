// SPDX-License-Identifier: MIT OR Apache-2.0
// Where the daemon keeps its state when its config names no data_dir, and so where every client
// verb looks for the daemon's socket when it is given no --socket.
//
// `cuzk daemon` with no arguments must run as an ordinary user, so the default is a directory the
// user owns, following the XDG Base Directory rules for state (data that survives a restart but is
// not worth backing up, which fits a job database, a witness spool and key copies):
//
//   1. $XDG_STATE_HOME/cuzk   when XDG_STATE_HOME is set to an absolute path (the spec says a
//                             relative one is to be ignored);
//   2. $HOME/.local/state/cuzk when HOME names an existing directory;
//   3. <current folder>/cuzk-state otherwise (a service user without a home, a container).
//
// A candidate is taken only when it can be used: it is a directory already, or the nearest folder
// above it that exists is one this user may write into (the daemon creates the rest). The check
// has no side effects, so a client resolves the same directory as a daemon started with the same
// environment (and, for the last case, from the same folder) without creating anything.
#pragma once

#include <string>

namespace cuzk::service {

// The default state directory for this process's environment and current folder; absolute.
std::string default_state_dir();

// The same rule with its inputs given (null or empty: unset), for tests.
std::string default_state_dir(const char* xdg_state_home, const char* home, const std::string& cwd);

// The socket's file name inside the state directory.
inline constexpr const char* socket_file_name = "cuzk.sock";

// <default_state_dir()>/cuzk.sock: where a daemon without `socket` or `data_dir` in its config
// listens, and where the client verbs connect when given no --socket or --addr.
std::string default_socket_path();

// The packaged system service's socket (packaging/cuzk.toml's data_dir, /var/lib/cuzk).
inline constexpr const char* system_socket_path = "/var/lib/cuzk/cuzk.sock";

// Where the client verbs connect when given no --socket or --addr: the user's own daemon's socket
// (default_socket_path()) when it exists, else the system service's when that exists (so `sudo
// cuzk status` reaches the packaged daemon), else the user's, which the connection error then names.
std::string client_socket_path();

// The same rule with both candidates given, for tests.
std::string client_socket_path(const std::string& user_socket, const std::string& system_socket);

}  // namespace cuzk::service
