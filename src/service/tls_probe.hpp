// SPDX-License-Identifier: MIT OR Apache-2.0
// Whether a TCP port speaks TLS, asked with one TLS handshake that checks nothing (no certificate
// is verified and nothing is sent after it). gRPC reports a plaintext client at a TLS port, and a
// TLS client at a plaintext one, as an unreachable daemon; this tells the two apart so the client
// can say which option to change (client_credentials.hpp). A client with TLS options asks with
// a handshake that verifies, and so also learns why it fails (diagnose_tls_handshake).
#pragma once

#include <chrono>
#include <string>

namespace cuzk::service {

enum class port_transport { tls, not_tls, unreachable };

port_transport probe_transport(const std::string& host_port,
                               std::chrono::milliseconds limit = std::chrono::milliseconds(2000));

// What a client brings to the handshake (client_credentials.hpp): PEM paths, empty where not given.
struct tls_client_files {
  std::string ca, cert, key;
};

struct tls_diagnosis {
  port_transport transport = port_transport::unreachable;
  std::string why;  // "" where the handshake succeeds or there is nothing to say
};

// Whether the daemon at `host_port` speaks TLS, and why a TLS handshake with it fails for a client
// with `files`, found by a handshake of its own that checks what gRPC's does (the daemon's certificate
// against the CA of `ca`, or the system's, and against the host of `host_port`) and then waits for the
// daemon's verdict on the client's certificate. gRPC 1.51 reports every failed handshake as the same
// UNAVAILABLE ("failed to connect to all addresses"); OpenSSL says why: the verification's error
// for the daemon's certificate, the daemon's alert for the client's (certificate expired, unknown
// CA, unsupported certificate, certificate required), completed by what the client can read in its
// own certificate (its dates, its extendedKeyUsage). A sentence naming the certificate and the
// option to change ("the daemon's certificate (its tls_cert) expired on ..."). It carries the
// client's own certificate, so that the daemon's log of it names the same cause as the call's.
tls_diagnosis diagnose_tls_handshake(const std::string& host_port, const tls_client_files& files,
                                     std::chrono::milliseconds limit = std::chrono::milliseconds(2000));

}  // namespace cuzk::service
