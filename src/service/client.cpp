// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/client.hpp"

#include "service/state_dir.hpp"

namespace cuzk::service {

result<std::shared_ptr<grpc::Channel>> connect(const std::string& socket, const std::string& addr,
                                               const client_credentials& creds, int max_message_mib) {
  grpc::ChannelArguments args;
  const int max = max_message_mib << 20;
  args.SetMaxReceiveMessageSize(max);
  args.SetMaxSendMessageSize(max);
  // Each channel its own connections: a process that reconnects after the daemon restarted must
  // not be handed the dead daemon's connection from gRPC's process-wide pool.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (socket.empty() && !addr.empty()) {
    auto tcp_creds = channel_credentials(creds);
    if (!tcp_creds) return tcp_creds.error();
    return grpc::CreateCustomChannel(addr, *tcp_creds, args);
  }
  const std::string target = "unix:" + (!socket.empty() ? socket : client_socket_path());
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

std::shared_ptr<grpc::Channel> connect(const std::string& socket, const std::string& addr,
                                       int max_message_mib) {
  // Without credentials nothing is read, so nothing can fail.
  return connect(socket, addr, client_credentials{}, max_message_mib).value();
}

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> make_stub(const std::shared_ptr<grpc::Channel>& ch) {
  return cuzk::v1::ProvingEngine::NewStub(ch);
}

}  // namespace cuzk::service
