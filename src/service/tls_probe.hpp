// SPDX-License-Identifier: MIT OR Apache-2.0
// Whether a TCP port speaks TLS, asked with one TLS handshake that checks nothing (no certificate
// is verified and nothing is sent after it). gRPC reports a plaintext client at a TLS port, and a
// TLS client at a plaintext one, as an unreachable daemon; this tells the two apart so the client
// can say which option to change (client_credentials.hpp).
#pragma once

#include <chrono>
#include <string>

namespace cuzk::service {

enum class port_transport { tls, not_tls, unreachable };

port_transport probe_transport(const std::string& host_port,
                               std::chrono::milliseconds limit = std::chrono::milliseconds(2000));

}  // namespace cuzk::service
