// SPDX-License-Identifier: MIT OR Apache-2.0
// gRPC's log lines in the daemon's log; see grpc_log.hpp.
#include "service/grpc_log.hpp"

#include <grpc/support/log.h>
#include <spdlog/spdlog.h>

#include <string_view>

namespace cuzk::service {

namespace {

// OpenSSL's reason (the text after the last "::" of "error:0A000086:SSL routines::certificate
// verify failed.") in the daemon's words.
std::string handshake_cause(std::string_view reason) {
  struct known {
    std::string_view openssl, cause;
  };
  static constexpr known causes[] = {
      {"peer did not return a certificate", "it sent no client certificate, and tls_client_ca asks for one"},
      {"certificate verify failed", "its client certificate did not verify against tls_client_ca"},
      {"wrong version number", "it does not speak TLS (a plaintext client at the TLS port)"},
      {"http request", "it does not speak TLS (a plaintext client at the TLS port)"},
      {"packet length too long", "it does not speak TLS (a plaintext client at the TLS port)"},
      {"unexpected eof while reading", "it closed the connection during the handshake"},
      {"tlsv1 alert unknown ca",
       "it does not trust the daemon's tls_cert (not signed by the client's --tls-ca)"},
      {"sslv3 alert bad certificate", "it refused the daemon's tls_cert (its name or dates)"},
      {"sslv3 alert certificate expired", "it refused the daemon's tls_cert as expired"},
      {"sslv3 alert certificate unknown", "it refused the daemon's tls_cert"},
      {"no application protocol", "it does not offer HTTP/2 (ALPN h2): not a gRPC client"},
  };
  for (const auto& k : causes)
    if (reason.starts_with(k.openssl)) return std::string(k.cause);
  return std::string(reason);
}

void to_daemon_log(gpr_log_func_args* args) {
  const std::string line = grpc_log_text(args->message ? args->message : "");
  if (line.empty()) return;
  if (line.starts_with("tls: ")) return spdlog::warn("{}", line);
  switch (args->severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      return spdlog::debug("{} ({}:{})", line, args->file, args->line);
    case GPR_LOG_SEVERITY_INFO:
      return spdlog::info("{} ({}:{})", line, args->file, args->line);
    default:
      return spdlog::error("{} ({}:{})", line, args->file, args->line);
  }
}

}  // namespace

std::string grpc_log_text(const std::string& message) {
  std::string_view m = message;
  if (m.starts_with("ssl_info_callback: error occured")) return {};
  constexpr std::string_view handshake = "Handshake failed with fatal error ";
  if (m.starts_with(handshake)) {
    std::string_view reason = m.substr(handshake.size());
    if (const auto at = reason.rfind("::"); at != std::string_view::npos) reason = reason.substr(at + 2);
    while (!reason.empty() && (reason.back() == '.' || reason.back() == '\n')) reason.remove_suffix(1);
    return "tls: a client's handshake was refused: " + handshake_cause(reason) +
           " (OpenSSL: " + std::string(reason) + ")";
  }
  while (!m.empty() && m.back() == '\n') m.remove_suffix(1);
  return "grpc: " + std::string(m);
}

void route_grpc_log() { gpr_set_log_function(to_daemon_log); }

}  // namespace cuzk::service
