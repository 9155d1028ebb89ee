// HTTP for monitoring and people: GET / (a status page, status_page.hpp), /healthz (200 "ok",
// 503 "draining"), /status (JSON, the public view: no request ids or paths, status_json.hpp),
// /metrics (Prometheus text), /trace (the engine's Chrome trace); any other path gets a 404 page
// that lists these. Read-only, no job control: that is the gRPC API's job. Served by cpp-httplib
// on its own threads.
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

class http_service {
 public:
  // Binds host:port now (errors name the address); serves until stop() or destruction.
  static result<std::unique_ptr<http_service>> start(const std::string& host_port, engine::engine& e,
                                                     std::function<std::string()> status_json,
                                                     std::function<std::string()> metrics_text);
  ~http_service();
  void stop();
  int port() const noexcept { return port_; }

 private:
  http_service() = default;
  std::unique_ptr<httplib::Server> srv_;
  std::thread thread_;
  int port_ = 0;
};

// "host:port" split; invalid_argument naming `what` otherwise.
result<std::pair<std::string, int>> split_host_port(const std::string& s, const std::string& what);

}  // namespace cuzk::service
