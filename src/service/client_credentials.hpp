// SPDX-License-Identifier: MIT OR Apache-2.0
// What a client brings to a daemon's TCP listener when it has remote access configured
// (remote_access.hpp): the CA that signed the daemon's certificate, a client certificate and key
// (mutual TLS), a bearer token file. The client verbs and `cuzk bench` take them as --tls-ca,
// --tls-cert, --tls-key and --token-file (or CUZK_TLS_CA, CUZK_TLS_CERT, CUZK_TLS_KEY,
// CUZK_TOKEN_FILE). They apply to --addr only: the Unix socket is never TLS.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "base/result.hpp"

namespace cuzk::service {

struct client_credentials {
  std::string tls_ca;      // PEM; empty: the system's CAs, when TLS is on
  std::string tls_cert;    // PEM client certificate (with tls_key)
  std::string tls_key;     // PEM private key of tls_cert
  std::string token_file;  // its first line is sent as "authorization: Bearer <token>"

  // TLS is on when any of them is set (a token is never sent in plaintext).
  bool uses_tls() const { return !tls_ca.empty() || !tls_cert.empty() || !tls_key.empty() || !token_file.empty(); }
};

// The channel credentials for a TCP address: insecure when `c` sets nothing, else TLS (and the
// token on every call). Reads the files now; errors name the option and the file.
result<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials(const client_credentials& c);

// A call to the TCP address `addr` failed before a daemon answered it (UNAVAILABLE), or was
// refused for its credentials (UNAUTHENTICATED): what went wrong, said as what to change, e.g. a
// plaintext client at a TLS port ("... speaks TLS: pass --tls-ca ..."). Empty when there is nothing
// to add to gRPC's own message (another failure, or no daemon at all at that address).
std::string explain_call_failure(const grpc::Status& s, const std::string& addr, const client_credentials& c);

}  // namespace cuzk::service
