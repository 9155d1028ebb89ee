// SPDX-License-Identifier: MIT OR Apache-2.0
// One TLS handshake against a port (see tls_probe.hpp), with OpenSSL.
#include "service/tls_probe.hpp"

#include <netdb.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>

#include "service/http_service.hpp"

namespace cuzk::service {
namespace {

// A connected TCP socket with `limit` on every read and write, or -1.
int connect_with_limit(const std::string& host, int port, std::chrono::milliseconds limit) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (::getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  timeval tv{static_cast<time_t>(limit.count() / 1000), static_cast<suseconds_t>(limit.count() % 1000 * 1000)};
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  return fd;
}

}  // namespace

port_transport probe_transport(const std::string& host_port, std::chrono::milliseconds limit) {
  auto hp = split_host_port(host_port, "--addr");
  if (!hp) return port_transport::unreachable;
  const int fd = connect_with_limit(hp->first, hp->second, limit);
  if (fd < 0) return port_transport::unreachable;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(ctx ? SSL_new(ctx.get()) : nullptr, SSL_free);
  if (!ssl) {
    ::close(fd);
    return port_transport::unreachable;
  }
  // What gRPC offers, so a gRPC server takes the handshake as far as it would for a real client.
  static const unsigned char h2[] = {2, 'h', '2'};
  SSL_set_alpn_protos(ssl.get(), h2, sizeof h2);
  SSL_set_verify(ssl.get(), SSL_VERIFY_NONE, nullptr);
  SSL_set_fd(ssl.get(), fd);
  // A server that sent its certificate speaks TLS, even when it then ends the handshake (it asks
  // for a client certificate this probe does not have).
  const bool tls = SSL_connect(ssl.get()) == 1 || SSL_get0_peer_certificate(ssl.get()) != nullptr;
  ssl.reset();
  ::close(fd);
  return tls ? port_transport::tls : port_transport::not_tls;
}

}  // namespace cuzk::service
