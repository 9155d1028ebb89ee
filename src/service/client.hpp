// SPDX-License-Identifier: MIT OR Apache-2.0
// Connecting to a daemon: a channel to its Unix socket or TCP address, with the same message-size
// limit the daemon uses, so inline witnesses of any size it accepts can be sent.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "base/result.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "service/client_credentials.hpp"

namespace cuzk::service {

// `socket` (a path) wins over `addr` (host:port); neither: the socket of a daemon started with the
// defaults (default_socket_path(), state_dir.hpp).
std::shared_ptr<grpc::Channel> connect(const std::string& socket, const std::string& addr,
                                       int max_message_mib = 1024);
// The same, with TLS and a token for `addr` as `creds` asks (client_credentials.hpp); the Unix
// socket is always plaintext. Errors name the option whose file cannot be used.
result<std::shared_ptr<grpc::Channel>> connect(const std::string& socket, const std::string& addr,
                                               const client_credentials& creds, int max_message_mib = 1024);
std::unique_ptr<cuzk::v1::ProvingEngine::Stub> make_stub(const std::shared_ptr<grpc::Channel>& ch);

}  // namespace cuzk::service
