// SPDX-License-Identifier: MIT OR Apache-2.0
// HTTP for monitoring and people: GET / (a status page, status_page.hpp), /healthz (200 "ok",
// 503 "draining"), /status (JSON, the public view: no request ids or paths, status_json.hpp),
// /metrics (Prometheus text), /trace (the engine's Chrome trace); any other path gets a 404 page
// that lists these. Read-only, no job control: that is the gRPC API's job. Served by cpp-httplib
// on its own threads, over HTTPS when http_tls names a certificate (docs/cluster.md says when).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/result.hpp"
#include "engine/engine.hpp"

namespace httplib {
class Server;
}

namespace cuzk::service {

// HTTPS and the token, for HTTP on an address other machines reach while the daemon has remote
// access configured (remote_access.hpp, http_tls_for). Empty cert: plain HTTP, open to whoever
// reaches the port, as on loopback.
struct http_tls {
  std::string cert, key;  // PEM paths
  std::string client_ca;  // non-empty: a client certificate this CA signed is required
  std::string token;      // non-empty: every path but /healthz asks for "Authorization: Bearer <token>"
};

class http_service {
 public:
  // Binds host:port now (errors name the address); serves until stop() or destruction.
  static result<std::unique_ptr<http_service>> start(const std::string& host_port, engine::engine& e,
                                                     std::function<std::string()> status_json,
                                                     std::function<std::string()> metrics_text,
                                                     const http_tls& tls = {});
  ~http_service();
  void stop();
  int port() const noexcept { return port_; }
  bool secure() const noexcept { return secure_; }

 private:
  http_service() = default;
  std::unique_ptr<httplib::Server> srv_;
  std::thread thread_;
  int port_ = 0;
  bool secure_ = false;
};

// The largest request body the HTTP server reads: its endpoints are all GETs, so any body is
// refused (413) before it is read, however large its Content-Length (cpp-httplib's own default
// is unbounded).
inline constexpr std::size_t http_max_body_bytes = 64 << 10;

// "host:port" split; invalid_argument naming `what` otherwise.
result<std::pair<std::string, int>> split_host_port(const std::string& s, const std::string& what);

}  // namespace cuzk::service
