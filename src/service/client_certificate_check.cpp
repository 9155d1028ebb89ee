// SPDX-License-Identifier: MIT OR Apache-2.0
// A client's certificate checked by the daemon; see client_certificate_check.hpp.
#include "service/client_certificate_check.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <vector>

#include "service/x509_text.hpp"

namespace cuzk::service {

namespace {

using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;
using store_ptr = std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)>;
using store_ctx_ptr = std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)>;

// Every certificate of a PEM text, in order.
std::vector<x509_ptr> read_certificates(const std::string& pem) {
  std::vector<x509_ptr> out;
  bio_ptr in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  while (in) {
    X509* x = PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr);
    if (x == nullptr) break;
    out.emplace_back(x, X509_free);
  }
  ERR_clear_error();  // the end of the text reads as an error
  return out;
}

}  // namespace

std::string client_certificate_refusal(const std::string& ca_pem, const std::string& leaf_pem,
                                       const std::string& chain_pem) {
  auto shown = read_certificates(leaf_pem);
  if (shown.empty()) return "it sent no certificate that could be read";
  X509* leaf = shown.front().get();
  auto chain = read_certificates(chain_pem);
  const std::string who =
      "the client certificate " + subject_text(leaf) + " (issuer " + issuer_text(leaf) + ")";
  store_ptr store(X509_STORE_new(), X509_STORE_free);
  for (const auto& ca : read_certificates(ca_pem)) X509_STORE_add_cert(store.get(), ca.get());
  // The stack only lends the chain's certificates (freed with `chain`).
  const auto free_stack = [](STACK_OF(X509) * s) { sk_X509_free(s); };
  std::unique_ptr<STACK_OF(X509), decltype(free_stack)> untrusted(sk_X509_new_null(), free_stack);
  for (const auto& x : chain)
    if (X509_cmp(x.get(), leaf) != 0) sk_X509_push(untrusted.get(), x.get());
  store_ctx_ptr ctx(X509_STORE_CTX_new(), X509_STORE_CTX_free);
  if (!store || !untrusted || !ctx || X509_STORE_CTX_init(ctx.get(), store.get(), leaf, untrusted.get()) != 1)
    return who + ": could not be checked (out of memory)";
  // The purpose OpenSSL's own check of a client gives (ssl_verify_cert_chain: "ssl_client").
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(ctx.get()) == 1) return {};
  const int error = X509_STORE_CTX_get_error(ctx.get());
  X509* at = X509_STORE_CTX_get_current_cert(ctx.get());
  const std::string which =
      at == nullptr || at == leaf ? "it" : "the certificate " + subject_text(at) + " of its chain";
  switch (error) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return who + ": " + which + " expired on " + time_text(X509_get0_notAfter(at ? at : leaf));
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return who + ": " + which + " is not valid until " + time_text(X509_get0_notBefore(at ? at : leaf));
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_CERT_UNTRUSTED:
      return who + ": it was not signed by tls_client_ca";
    case X509_V_ERR_INVALID_PURPOSE:
      return who + ": " + which + " is not for client authentication (its extendedKeyUsage lacks clientAuth)";
    default:
      return who + ": " + X509_verify_cert_error_string(error);
  }
}

bool client_certificate_check::Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
                                      std::function<void(grpc::Status)>, grpc::Status* sync_status) {
  // gRPC 1.51's server hands the certificate the client showed (peer_cert) and the chain OpenSSL
  // holds (peer_cert_full_chain), which on a server need not start with it: the first is checked,
  // the others only help build its path to tls_client_ca.
  const grpc::string_ref leaf = request->peer_cert();
  const grpc::string_ref chain = request->peer_cert_full_chain();
  const std::string why = client_certificate_refusal(ca_pem_, std::string(leaf.data(), leaf.size()),
                                                     std::string(chain.data(), chain.size()));
  if (why.empty()) {
    *sync_status = grpc::Status::OK;
  } else {
    spdlog::warn("tls: a client's handshake was refused: {}", why);
    *sync_status = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, why);
  }
  return true;  // answered now
}

}  // namespace cuzk::service
