// SPDX-License-Identifier: MIT OR Apache-2.0
// Who may use the daemon from another machine: TLS on the TCP listener, and
// client authentication by certificate (mutual TLS), by bearer token, or both.
//
// The Unix socket is not touched: it is mode 0600 in a 0700 directory, so the file system already
// says who may connect (the daemon's user), and nothing crosses a network. TCP is where anyone on
// the path may listen or connect, so there:
//   - tls_cert + tls_key: the listener speaks TLS only (a plaintext client is refused at the
//     handshake; the client verbs say what to pass, client_credentials.hpp).
//   - tls_client_ca: the handshake also asks for a client certificate and requires one, and the
//     daemon's own check refuses one that this CA did not sign, or that is out of its dates or not
//     for client authentication, logging why (client_certificate_check.hpp).
//   - auth_token_file: every call must carry "authorization: Bearer <token>"; one without it, or
//     with another token, is refused UNAUTHENTICATED before a handler runs. The token is compared
//     in constant time (through SHA-256 digests, so its length does not leak either) and never
//     shown: /status and --print-config show the file's path, not what it holds.
// A token needs TLS: sent in plaintext, anyone on the path could read it and use it.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "base/result.hpp"
#include "service/config.hpp"
#include "service/http_service.hpp"

namespace cuzk::service {

// The token a client must send, read from `path` (its first line, without surrounding blanks);
// errors name the file and the key. Used by the gRPC and the HTTPS listener alike.
result<std::string> read_auth_token(const std::string& path);

// Whether `token` (what a client sent after "Bearer ") is `expected`, in time that does not depend
// on where they differ or on either's length.
bool token_matches(const std::string& token, const std::string& expected);

// The credentials of the TCP listener: insecure when tls_cert is empty, else TLS with the
// certificate, the client CA and the token check the config names. Refuses a config that asks for
// something it cannot give (a token or a client CA without TLS, a cert without its key), naming
// the keys; reads every file now, so a missing one stops the start.
result<std::shared_ptr<grpc::ServerCredentials>> tcp_server_credentials(const daemon_config& c);

// HTTP's share of it. On loopback, HTTP stays plain and open as before: only this machine's users
// reach it, and it shows the public view only (status_json.hpp). On any other address while
// tls_cert is set, the operator has said this daemon is reached across a network and guarded:
// HTTP then speaks HTTPS with the same certificate, asks for client certificates when
// tls_client_ca is set and for the token (all but /healthz) when auth_token_file is set.
result<http_tls> http_tls_for(const daemon_config& c);

// True for an address only this machine reaches: localhost, 127.0.0.0/8, ::1.
bool is_loopback_host(const std::string& host);

}  // namespace cuzk::service
