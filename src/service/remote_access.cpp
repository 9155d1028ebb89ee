// SPDX-License-Identifier: MIT OR Apache-2.0
// TLS and client authentication on the TCP listener (see remote_access.hpp).
#include "service/remote_access.hpp"

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>

#include "formats/file_io.hpp"
#include "service/client_certificate_check.hpp"

namespace cuzk::service {
namespace {

constexpr const char* bearer_prefix = "Bearer ";

std::array<unsigned char, EVP_MAX_MD_SIZE> sha256(const std::string& s, unsigned& len) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  len = 0;
  EVP_Digest(s.data(), s.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

// Runs before every call on the TCP listener, on gRPC's own thread (it only compares strings).
class bearer_token_check final : public grpc::AuthMetadataProcessor {
 public:
  explicit bearer_token_check(std::string expected) : expected_(std::move(expected)) {}
  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext*, OutputMetadata* consumed,
                       OutputMetadata*) override {
    const auto it = metadata.find("authorization");
    if (it == metadata.end())
      return {grpc::StatusCode::UNAUTHENTICATED,
              "this daemon asks for a bearer token: pass --token-file (or set CUZK_TOKEN_FILE) naming a file "
              "that holds the token of the daemon's auth_token_file"};
    const std::string value(it->second.data(), it->second.size());
    const std::string prefix = bearer_prefix;
    if (value.compare(0, prefix.size(), prefix) != 0 || !token_matches(value.substr(prefix.size()), expected_))
      return {grpc::StatusCode::UNAUTHENTICATED,
              "the bearer token was refused: it is not the one in the daemon's auth_token_file"};
    // Consumed: the handlers never see the token.
    consumed->insert({std::string(it->first.data(), it->first.size()), value});
    return grpc::Status::OK;
  }

 private:
  std::string expected_;
};

// A PEM file the config names, read now; errors name the key and the file.
result<std::string> read_pem(const std::string& key, const std::string& path) {
  auto text = formats::read_text_file(path);
  if (!text) return status(errc::invalid_argument, key + ": " + text.error().to_string());
  if (text->find("-----BEGIN ") == std::string::npos)
    return status(errc::invalid_argument,
                  key + ": " + path + ": expected a PEM file (-----BEGIN ...), found something else");
  return text;
}

status needs(const std::string& key, const std::string& other, const std::string& why) {
  return status(errc::invalid_argument, key + ": expected " + other + " to be set too (" + why + "), found it empty");
}

}  // namespace

result<std::string> read_auth_token(const std::string& path) {
  auto text = formats::read_text_file(path);
  if (!text) return status(errc::invalid_argument, "auth_token_file: " + text.error().to_string());
  std::string token = text->substr(0, text->find('\n'));
  const auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; };
  while (!token.empty() && blank(token.back())) token.pop_back();
  std::size_t first = 0;
  while (first < token.size() && blank(token[first])) ++first;
  token.erase(0, first);
  if (token.size() < 16)
    return status(errc::invalid_argument,
                  "auth_token_file: " + path + ": expected a token of at least 16 characters on its first line "
                  "(e.g. openssl rand -hex 32), found " + std::to_string(token.size()));
  return token;
}

bool token_matches(const std::string& token, const std::string& expected) {
  unsigned a_len = 0, b_len = 0;
  const auto a = sha256(token, a_len);
  const auto b = sha256(expected, b_len);
  return a_len == b_len && a_len > 0 && CRYPTO_memcmp(a.data(), b.data(), a_len) == 0;
}

result<std::shared_ptr<grpc::ServerCredentials>> tcp_server_credentials(const daemon_config& c) {
  if (c.tls_cert.empty()) {
    if (!c.tls_key.empty()) return needs("tls_key", "tls_cert", "the certificate the key belongs to");
    if (!c.tls_client_ca.empty())
      return needs("tls_client_ca", "tls_cert", "client certificates are asked for in a TLS handshake");
    if (!c.auth_token_file.empty())
      return needs("auth_token_file", "tls_cert", "a token sent in plaintext could be read on the way");
    return grpc::InsecureServerCredentials();
  }
  if (c.tls_key.empty()) return needs("tls_cert", "tls_key", "the certificate's private key");
  grpc::SslServerCredentialsOptions opts(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  auto cert = read_pem("tls_cert", c.tls_cert);
  if (!cert) return cert.error();
  auto key = read_pem("tls_key", c.tls_key);
  if (!key) return key.error();
  opts.pem_key_cert_pairs.push_back({std::move(key).value(), std::move(cert).value()});
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (!c.tls_client_ca.empty()) {
    auto ca = read_pem("tls_client_ca", c.tls_client_ca);
    if (!ca) return ca.error();
    // A client certificate is required in the handshake and verified by the daemon's own check,
    // which logs why it refuses one (client_certificate_check.hpp; gRPC's TLS credentials, the
    // only ones of gRPC 1.51 that take a verifier, are experimental).
    namespace tls = grpc::experimental;
    auto identity =
        std::make_shared<tls::StaticDataCertificateProvider>(std::vector<tls::IdentityKeyCertPair>{
            {opts.pem_key_cert_pairs.front().private_key, opts.pem_key_cert_pairs.front().cert_chain}});
    tls::TlsServerCredentialsOptions with(identity);
    with.watch_identity_key_cert_pairs();
    with.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_BUT_DONT_VERIFY);
    with.set_certificate_verifier(
        tls::ExternalCertificateVerifier::Create<client_certificate_check>(std::move(ca).value()));
    creds = tls::TlsServerCredentials(with);
  } else {
    creds = grpc::SslServerCredentials(opts);
  }
  if (!c.auth_token_file.empty()) {
    auto token = read_auth_token(c.auth_token_file);
    if (!token) return token.error();
    creds->SetAuthMetadataProcessor(std::make_shared<bearer_token_check>(std::move(token).value()));
  }
  return creds;
}

result<http_tls> http_tls_for(const daemon_config& c) {
  auto hp = split_host_port(c.http, "http");
  if (!hp) return hp.error();
  if (c.tls_cert.empty() || is_loopback_host(hp->first)) return http_tls{};
  http_tls t{c.tls_cert, c.tls_key, c.tls_client_ca, {}};
  if (!c.auth_token_file.empty()) {
    auto token = read_auth_token(c.auth_token_file);
    if (!token) return token.error();
    t.token = std::move(token).value();
  }
  return t;
}

bool is_loopback_host(const std::string& host) {
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
}

}  // namespace cuzk::service
