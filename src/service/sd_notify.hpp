// SPDX-License-Identifier: MIT OR Apache-2.0
// systemd's readiness protocol (sd_notify(3)), for a unit of Type=notify: one datagram of
// "KEY=value" lines to the AF_UNIX socket named by $NOTIFY_SOCKET ("@name" for the abstract
// namespace). The daemon says READY=1 once its socket listens, so `systemctl start` returns only
// when clients can connect, and STOPPING=1 when it begins to drain.
//
// Written out rather than linked from libsystemd: the protocol is these few lines, and the package
// then needs no libsystemd at run time (containers have none). Without $NOTIFY_SOCKET (not under
// systemd, or another Type) nothing is sent.
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::service {

// Sends `state` ("READY=1", "STOPPING=1", "STATUS=...", lines joined by '\n') to $NOTIFY_SOCKET.
// OK when the variable is unset or empty (nothing to tell); an error naming the socket when it is
// set but the datagram cannot be sent. Any thread.
status sd_notify(const std::string& state);

// The same to the socket at `path` (an "@name" is abstract), for tests.
status sd_notify_to(const std::string& path, const std::string& state);

}  // namespace cuzk::service
