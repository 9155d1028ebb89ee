// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/http_service.hpp"

#include <httplib.h>

#include <exception>

#include "service/remote_access.hpp"
#include "service/status_page.hpp"

namespace cuzk::service {

result<std::pair<std::string, int>> split_host_port(const std::string& s, const std::string& what) {
  const auto colon = s.rfind(':');
  const auto bad = status(errc::invalid_argument, what + ": expected host:port, found \"" + s + "\"");
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return bad;
  int port = 0;
  for (char c : s.substr(colon + 1)) {
    if (c < '0' || c > '9' || port > 65535) return bad;
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return bad;
  return std::pair{s.substr(0, colon), port};
}

result<std::unique_ptr<http_service>> http_service::start(const std::string& host_port, engine::engine& e,
                                                          std::function<std::string()> status_json,
                                                          std::function<std::string()> metrics_text,
                                                          const http_tls& tls) {
  auto hp = split_host_port(host_port, "http");
  if (!hp) return hp.error();
  std::unique_ptr<http_service> h(new http_service());
  if (tls.cert.empty()) {
    h->srv_ = std::make_unique<httplib::Server>();
  } else {
    auto ssl = std::make_unique<httplib::SSLServer>(tls.cert.c_str(), tls.key.c_str(),
                                                    tls.client_ca.empty() ? nullptr : tls.client_ca.c_str());
    if (!ssl->is_valid())
      return status(errc::invalid_argument, "http: cannot serve HTTPS with tls_cert " + tls.cert + " and tls_key " +
                                                tls.key + (tls.client_ca.empty() ? "" : " and tls_client_ca " + tls.client_ca) +
                                                ": expected PEM files of a certificate and its key");
    h->srv_ = std::move(ssl);
    h->secure_ = true;
  }
  auto& s = *h->srv_;
  s.set_payload_max_length(http_max_body_bytes);
  // /healthz stays open so that a load balancer's probe needs no secret; the rest shows the
  // daemon's work and needs the token when there is one.
  if (!tls.token.empty())
    s.set_pre_routing_handler([token = tls.token](const httplib::Request& req, httplib::Response& res) {
      if (req.path == "/healthz") return httplib::Server::HandlerResponse::Unhandled;
      const std::string auth = req.get_header_value("Authorization");
      const std::string prefix = "Bearer ";
      if (auth.compare(0, prefix.size(), prefix) == 0 && token_matches(auth.substr(prefix.size()), token))
        return httplib::Server::HandlerResponse::Unhandled;
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_content("this daemon asks for a bearer token: send \"Authorization: Bearer <the token of its "
                      "auth_token_file>\"\n",
                      "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    });
  // A handler that throws answers 500 with the reason instead of taking the server down.
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string why = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& ex) {
      why = ex.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(why + "\n", "text/plain");
  });
  // The page for people; HEAD / answers its headers (cpp-httplib routes HEAD to GET handlers).
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(status_page_html()), "text/html; charset=utf-8");
  });
  // A path that is not here gets a page that lists the ones that are, not an empty 404.
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status != 404) return;
    res.set_content(not_found_html(req.path), "text/html; charset=utf-8");
  });
  s.Get("/healthz", [&e](const httplib::Request&, httplib::Response& res) {
    const bool ok = e.accepting();
    res.status = ok ? 200 : 503;
    res.set_content(ok ? "ok\n" : "draining\n", "text/plain");
  });
  s.Get("/status", [f = std::move(status_json)](const httplib::Request&, httplib::Response& res) {
    res.set_content(f(), "application/json");
  });
  s.Get("/metrics", [f = std::move(metrics_text)](const httplib::Request&, httplib::Response& res) {
    res.set_content(f(), "text/plain; version=0.0.4");
  });
  s.Get("/trace", [&e](const httplib::Request&, httplib::Response& res) {
    res.set_content(e.chrome_trace(), "application/json");
  });
  // Connections that open and send nothing (or send slowly) must not starve /healthz
  // (docs/HARDENING.md, finding 13: 8 idle sockets delayed it 8.7 s, 16 by 19.8 s). cpp-httplib
  // gives each connection a pool thread for as long as it waits: 5 s for a first or next request
  // (keep-alive) and 5 s per read by default, with max(8, cores - 1) threads. Waiting 1 s for a
  // request bounds what an idle socket holds; 5 s to write leaves room for a large /trace to a slow
  // reader; 64 threads serve a probe at once beside 32 idle sockets, and beyond that each idle one
  // frees its thread within a second. An idle thread costs its stack's address space, not memory.
  constexpr std::size_t http_threads = 64;
  s.new_task_queue = [] { return new httplib::ThreadPool(http_threads); };
  s.set_keep_alive_timeout(1);
  s.set_read_timeout(1, 0);
  s.set_write_timeout(5, 0);
  // cpp-httplib's default options add SO_REUSEPORT, with which a second daemon binds the same port
  // without an error and the kernel shares the connections between them. SO_REUSEADDR alone still
  // allows a restart while old connections sit in TIME_WAIT, and makes a port in use an error.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  const auto& [host, port] = *hp;
  if (port == 0) {
    h->port_ = s.bind_to_any_port(host);
    if (h->port_ < 0) return status(errc::io_error, "http: cannot bind " + host_port);
  } else {
    if (!s.bind_to_port(host, port)) return status(errc::io_error, "http: cannot bind " + host_port);
    h->port_ = port;
  }
  h->thread_ = std::thread([srv = h->srv_.get()] { srv->listen_after_bind(); });
  return h;
}

void http_service::stop() {
  if (srv_) srv_->stop();
  if (thread_.joinable()) thread_.join();
}

http_service::~http_service() { stop(); }

}  // namespace cuzk::service
