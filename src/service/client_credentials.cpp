// SPDX-License-Identifier: MIT OR Apache-2.0
// A client's TLS and token options as gRPC channel credentials, and what a refused call means
// (see client_credentials.hpp).
#include "service/client_credentials.hpp"

#include "formats/file_io.hpp"
#include "service/remote_access.hpp"
#include "service/tls_probe.hpp"

namespace cuzk::service {
namespace {

result<std::string> read_option_file(const std::string& option, const std::string& path) {
  auto text = formats::read_text_file(path);
  if (!text) return status(errc::invalid_argument, option + ": " + text.error().to_string());
  return text;
}

}  // namespace

result<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials(const client_credentials& c) {
  if (!c.uses_tls()) return grpc::InsecureChannelCredentials();
  if (c.tls_cert.empty() != c.tls_key.empty())
    return status(errc::invalid_argument, c.tls_cert.empty()
                                              ? "--tls-key: expected --tls-cert too (the certificate of the key)"
                                              : "--tls-cert: expected --tls-key too (the certificate's private key)");
  grpc::SslCredentialsOptions opts;
  if (!c.tls_ca.empty()) {
    auto ca = read_option_file("--tls-ca", c.tls_ca);
    if (!ca) return ca.error();
    opts.pem_root_certs = std::move(ca).value();
  }
  if (!c.tls_cert.empty()) {
    auto cert = read_option_file("--tls-cert", c.tls_cert);
    if (!cert) return cert.error();
    auto key = read_option_file("--tls-key", c.tls_key);
    if (!key) return key.error();
    opts.pem_cert_chain = std::move(cert).value();
    opts.pem_private_key = std::move(key).value();
  }
  auto creds = grpc::SslCredentials(opts);
  if (c.token_file.empty()) return creds;
  auto token = read_auth_token(c.token_file);
  if (!token) {
    // The daemon's message names its key; a client names its option.
    std::string why = token.error().message();
    const std::string key = "auth_token_file: ";
    if (why.rfind(key, 0) == 0) why = why.substr(key.size());
    return status(errc::invalid_argument, "--token-file: " + why);
  }
  // "authorization: Bearer <token>" on every call; gRPC sends call credentials over TLS only.
  return grpc::CompositeChannelCredentials(creds, grpc::AccessTokenCredentials(*token));
}

std::string explain_call_failure(const grpc::Status& s, const std::string& addr, const client_credentials& c) {
  if (s.error_code() == grpc::StatusCode::UNAUTHENTICATED)
    return "the daemon at " + addr + " refused the call: " + s.error_message();
  if (s.error_code() != grpc::StatusCode::UNAVAILABLE || addr.empty()) return {};
  if (!c.uses_tls()) {
    if (probe_transport(addr) == port_transport::tls)
      return "the daemon at " + addr +
             " speaks TLS and this client connected in plaintext: pass --tls-ca with the CA that signed the "
             "daemon's tls_cert (and --tls-cert/--tls-key or --token-file when it asks for a client "
             "certificate or a token)";
    return {};
  }
  // One handshake with the client's own files: whether the port speaks TLS, and what OpenSSL can
  // tell of the failure (tls_probe.hpp). (Its certificate goes too, so that the daemon logs the
  // same refusal as the call's, not one of a client without a certificate.)
  const tls_diagnosis d = diagnose_tls_handshake(addr, {c.tls_ca, c.tls_cert, c.tls_key});
  if (d.transport == port_transport::not_tls)
    return "the daemon at " + addr +
           " does not speak TLS on that port (its config sets listen without tls_cert): drop --tls-ca, "
           "--tls-cert, --tls-key and --token-file (and CUZK_TLS_CA, CUZK_TLS_CERT, CUZK_TLS_KEY, "
           "CUZK_TOKEN_FILE), or give the daemon tls_cert and tls_key";
  if (!d.why.empty()) return "the TLS handshake with the daemon at " + addr + " failed: " + d.why;
  if (d.transport == port_transport::tls)
    return "the TLS handshake with the daemon at " + addr + " failed (" + s.error_message() +
           "): check that --tls-ca names the CA that signed the daemon's tls_cert and that the certificate "
           "lists the host of --addr; when the daemon sets tls_client_ca, pass --tls-cert and --tls-key "
           "of a certificate that CA signed";
  return {};
}

}  // namespace cuzk::service
