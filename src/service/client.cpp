#include "service/client.hpp"

#include "service/state_dir.hpp"

namespace cuzk::service {

std::shared_ptr<grpc::Channel> connect(const std::string& socket, const std::string& addr,
                                       int max_message_mib) {
  grpc::ChannelArguments args;
  const int max = max_message_mib << 20;
  args.SetMaxReceiveMessageSize(max);
  args.SetMaxSendMessageSize(max);
  // Each channel its own connections: a process that reconnects after the daemon restarted must
  // not be handed the dead daemon's connection from gRPC's process-wide pool.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  const std::string target = !socket.empty() ? "unix:" + socket
                             : !addr.empty() ? addr
                                             : "unix:" + client_socket_path();
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> make_stub(const std::shared_ptr<grpc::Channel>& ch) {
  return cuzk::v1::ProvingEngine::NewStub(ch);
}

}  // namespace cuzk::service
