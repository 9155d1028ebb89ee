// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's life: config -> engine -> gRPC (Unix socket, optional TCP) -> HTTP -> signals.
//
// Signals are handled synchronously: they are blocked in every thread (before any thread starts)
// and the main thread waits for them with sigwait, so the handling code may lock, log and call the
// engine. SIGTERM/SIGINT drain: submissions are refused from that moment, running jobs get
// drain_grace_s to finish and are otherwise requeued in the store (the next start proves them),
// the servers stop, exit 0. SIGHUP rereads the file: runtime keys (the table says which) take
// effect, new [[circuit]] entries are registered, other changes are logged as needing a restart.
#pragma once

#include <string>

namespace cuzk::service {

// The exit status: 0 after a drain, 1 when the config or a listener fails. An empty config_path
// runs with every key at its default: state under the user's state directory (state_dir.hpp),
// the socket inside it, HTTP on 127.0.0.1:9745 (config.hpp).
int run_daemon(const std::string& config_path);

}  // namespace cuzk::service
