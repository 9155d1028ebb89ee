// SPDX-License-Identifier: MIT OR Apache-2.0
// gRPC's own log lines in the daemon's log, in its shape ("<component>: <what>"), at its levels.
//
// Why: gRPC writes to stderr in a format of its own, and a refused TLS handshake reads the same
// whatever its cause ("Handshake failed with fatal error SSL_ERROR_SSL: error:0A000086:SSL
// routines::certificate verify failed."). Such a line becomes "tls: a client's handshake was
// refused: <cause>", the cause in the words of the daemon's options, at warn: a client's
// mistake, not the daemon's fault. What gRPC 1.51 does not give cannot be added here: OpenSSL's
// detail for a certificate that did not verify (so the daemon checks client certificates itself,
// client_certificate_check.hpp, and these lines are left with a missing certificate, a client
// that does not speak TLS, one that refused the daemon's certificate) and the peer's address
// (docs/HARDENING.md, finding 29).
//
// Thread safety: route_grpc_log once, before the server starts; the lines arrive on gRPC's threads.
#pragma once

#include <string>

namespace cuzk::service {

// From now on gRPC's lines go to the daemon's log (init_logging first).
void route_grpc_log();

// The daemon's line for one of gRPC's messages: "tls: a client's handshake was refused: ..." for a
// failed handshake, "grpc: <message>" otherwise; "" for a line that adds nothing (gRPC's
// "ssl_info_callback: error occured." before each handshake failure).
std::string grpc_log_text(const std::string& message);

}  // namespace cuzk::service
