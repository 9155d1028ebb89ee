// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's check of a client's certificate (mutual TLS, tls_client_ca), made by the daemon's
// own code once the TLS handshake has the certificate, so that a refusal is logged with its cause.
//
// Why not OpenSSL's check inside gRPC's handshake: gRPC 1.51 logs that one's failure as OpenSSL's
// reason alone, "certificate verify failed", the same for a certificate that expired, one not yet
// valid, one of another CA and one not for client authentication, and names neither the
// certificate nor the client. Here gRPC's TLS credentials ask for a certificate and require one
// (a client without one is still refused in the handshake) but leave its verification to this
// check, which verifies the chain as OpenSSL would (the same X509_verify_cert, against
// tls_client_ca, for the purpose of a TLS client) and logs "tls: refused the client certificate
// <subject> (issuer <issuer>): it expired on <date>". The peer's address is still not in the
// line: gRPC's verifier is not told it (docs/HARDENING.md, finding 29).
//
// Thread safety: Verify runs on gRPC's threads, several at once; the object is immutable.
#pragma once

#include <grpcpp/security/tls_certificate_verifier.h>

#include <string>

namespace cuzk::service {

// Why the client's certificate `leaf_pem`, with the certificates of `chain_pem` to build its path
// (any order; the leaf itself may be among them), does not verify against the CAs of `ca_pem` for
// a TLS client: "the client certificate
// /CN=x (issuer /CN=y): it expired on 2026-01-02 00:00:00 UTC", "...: it is not valid until ...",
// "...: it was not signed by tls_client_ca", "...: it is not for client authentication (its
// extendedKeyUsage lacks clientAuth)"; "" when it verifies.
std::string client_certificate_refusal(const std::string& ca_pem, const std::string& leaf_pem,
                                       const std::string& chain_pem);

class client_certificate_check final : public grpc::experimental::ExternalCertificateVerifier {
 public:
  explicit client_certificate_check(std::string ca_pem) : ca_pem_(std::move(ca_pem)) {}
  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)> callback, grpc::Status* sync_status) override;
  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {}

 private:
  std::string ca_pem_;
};

}  // namespace cuzk::service
