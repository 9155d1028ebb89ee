// SPDX-License-Identifier: MIT OR Apache-2.0
// One TLS handshake against a port (see tls_probe.hpp), with OpenSSL.
#include "service/tls_probe.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>

#include "service/http_service.hpp"
#include "service/x509_text.hpp"

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

using ssl_ctx_ptr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using ssl_ptr = std::unique_ptr<SSL, decltype(&SSL_free)>;

x509_ptr read_certificate(const std::string& path) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_file(path.c_str(), "r"), BIO_free);
  return x509_ptr(in ? PEM_read_bio_X509(in.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
}

// The first failure the verification of the daemon's chain met: OpenSSL's verify callback keeps
// going to the end, where the result names only the code.
struct chain_failure {
  long error = X509_V_OK;
  int depth = 0;
  std::string subject, issuer, not_before, not_after;
  bool certificate_asked = false;  // the daemon asked for a client certificate and the client had none
};
thread_local chain_failure* recording = nullptr;

int no_certificate(SSL*, X509**, EVP_PKEY**) {
  if (recording != nullptr) recording->certificate_asked = true;
  return 0;
}

int record_failure(int ok, X509_STORE_CTX* ctx) {
  if (!ok && recording != nullptr && recording->error == X509_V_OK) {
    X509* x = X509_STORE_CTX_get_current_cert(ctx);
    recording->error = X509_STORE_CTX_get_error(ctx);
    recording->depth = X509_STORE_CTX_get_error_depth(ctx);
    recording->subject = subject_text(x);
    recording->issuer = issuer_text(x);
    recording->not_before = time_text(x ? X509_get0_notBefore(x) : nullptr);
    recording->not_after = time_text(x ? X509_get0_notAfter(x) : nullptr);
  }
  return ok;
}

// The daemon's certificate did not verify: why, in the words of the options that set it.
std::string server_certificate_problem(const chain_failure& f, const std::string& host,
                                       const tls_client_files& files) {
  const std::string which = f.depth == 0 ? "the daemon's certificate (its tls_cert)"
                                         : "the certificate " + f.subject + " in the daemon's chain";
  const std::string ca = files.ca.empty() ? "the system's CAs (pass --tls-ca with the CA that signed it)"
                                          : "--tls-ca (" + files.ca + ")";
  switch (f.error) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return which + " expired on " + f.not_after + ": the daemon needs a new tls_cert";
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return which + " is not valid until " + f.not_before + " (or this machine's clock is behind)";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_CERT_UNTRUSTED:
      // (OpenSSL may report this at the top of the chain it built: the certificate is the daemon's.)
      return "the daemon's certificate (its tls_cert) is not trusted: it was not signed by the CA of " + ca +
             " (its issuer: " + f.issuer + ")";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return which + " does not name " + host +
             ", the host of --addr: connect by a name or address its "
             "subjectAltName lists, or give the daemon a tls_cert that lists " +
             host;
    case X509_V_ERR_INVALID_PURPOSE:
      return which + " is not for a TLS server (its extendedKeyUsage lacks serverAuth)";
    default:
      return which + " did not verify: " + X509_verify_cert_error_string(f.error);
  }
}

// The daemon refused this client's certificate: with TLS alert `alert` (RFC 8446, section 6.2),
// or -1 where it closed the connection without one (gRPC's server sends no alert when its check
// of the certificate fails): why, with what the client can read in its own certificate.
std::string client_certificate_problem(int alert, const tls_client_files& files) {
  if (files.cert.empty())
    return "the daemon refused the handshake (TLS alert " + std::to_string(alert) + ": " +
           SSL_alert_desc_string_long(alert) + ")";
  const std::string mine = "this client's certificate (--tls-cert " + files.cert + ")";
  x509_ptr own = read_certificate(files.cert);
  X509* x = own.get();
  if (x != nullptr && X509_cmp_current_time(X509_get0_notAfter(x)) < 0)
    return "the daemon refused " + mine + ": it expired on " + time_text(X509_get0_notAfter(x));
  if (x != nullptr && X509_cmp_current_time(X509_get0_notBefore(x)) > 0)
    return "the daemon refused " + mine + ": it is not valid until " + time_text(X509_get0_notBefore(x)) +
           " (or this machine's clock is ahead of the daemon's)";
  if (x != nullptr && (X509_get_extension_flags(x) & EXFLAG_XKUSAGE) &&
      !(X509_get_extended_key_usage(x) & XKU_SSL_CLIENT))
    return "the daemon refused " + mine +
           ": it is not for client authentication (its extendedKeyUsage lacks clientAuth)";
  switch (alert) {
    case -1:
    case 48:  // unknown_ca
      return "the daemon refused " + mine +
             ": is it signed by the daemon's tls_client_ca? (its issuer: " + issuer_text(x) +
             "; the daemon's log says why it refused it)";
    case 45:
      return "the daemon refused " + mine + " as expired (is the daemon's clock right?)";
    case 43:
      return "the daemon refused " + mine + " as not for client authentication";
    default:
      return "the daemon refused " + mine + " (TLS alert " + std::to_string(alert) + ": " +
             SSL_alert_desc_string_long(alert) + ")";
  }
}

const char* const certificate_asked_for =
    "the daemon asks for a client certificate (its tls_client_ca is set): pass --tls-cert and --tls-key of a "
    "certificate that CA signed";

// The alert the peer sent, from OpenSSL's error queue (its reasons for a received alert are the
// alert's number plus SSL_AD_REASON_OFFSET); -1 when none. Empties the queue.
int received_alert() {
  int alert = -1;
  while (const unsigned long e = ERR_get_error()) {
    const int reason = ERR_GET_REASON(e);
    if (ERR_GET_LIB(e) == ERR_LIB_SSL && reason >= SSL_AD_REASON_OFFSET &&
        reason < SSL_AD_REASON_OFFSET + 256)
      alert = reason - SSL_AD_REASON_OFFSET;
  }
  return alert;
}

}  // namespace

tls_diagnosis diagnose_tls_handshake(const std::string& host_port, const tls_client_files& files,
                                     std::chrono::milliseconds limit) {
  auto hp = split_host_port(host_port, "--addr");
  if (!hp) return {port_transport::unreachable, {}};
  std::string host = hp->first;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  ssl_ctx_ptr ctx(SSL_CTX_new(TLS_client_method()), SSL_CTX_free);
  if (!ctx) return {port_transport::unreachable, {}};
  if (files.ca.empty() ? SSL_CTX_set_default_verify_paths(ctx.get()) != 1
                       : SSL_CTX_load_verify_locations(ctx.get(), files.ca.c_str(), nullptr) != 1)
    return {port_transport::unreachable,
            {}};  // the channel's credentials already said what is wrong with the file
  if (!files.cert.empty() &&
      (SSL_CTX_use_certificate_chain_file(ctx.get(), files.cert.c_str()) != 1 ||
       SSL_CTX_use_PrivateKey_file(ctx.get(), files.key.c_str(), SSL_FILETYPE_PEM) != 1)) {
    ERR_clear_error();
    return {port_transport::unreachable, "--tls-cert and --tls-key (" + files.cert + ", " + files.key +
                                             ") are not a certificate and its private key"};
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, record_failure);
  if (files.cert.empty()) SSL_CTX_set_client_cert_cb(ctx.get(), no_certificate);
  ssl_ptr ssl(SSL_new(ctx.get()), SSL_free);
  if (!ssl) return {port_transport::unreachable, {}};
  static const unsigned char h2[] = {2, 'h', '2'};
  SSL_set_alpn_protos(ssl.get(), h2, sizeof h2);
  // gRPC checks the daemon's certificate against the host of the target: an address against its
  // IP names, a name against its DNS names (and sends it as SNI).
  unsigned char ip[16];
  const bool is_ip = inet_pton(AF_INET, host.c_str(), ip) == 1 || inet_pton(AF_INET6, host.c_str(), ip) == 1;
  if (is_ip) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl.get(), host.c_str());
    SSL_set1_host(ssl.get(), host.c_str());
  }
  const int fd = connect_with_limit(hp->first, hp->second, limit);
  if (fd < 0) return {port_transport::unreachable, {}};
  SSL_set_fd(ssl.get(), fd);
  chain_failure failure;
  recording = &failure;
  ERR_clear_error();
  std::string why;
  const bool connected = SSL_connect(ssl.get()) == 1;
  // A server that sent its certificate speaks TLS, whatever became of the handshake after.
  const bool tls = connected || SSL_get0_peer_certificate(ssl.get()) != nullptr || failure.error != X509_V_OK;
  if (!connected) {
    if (failure.error != X509_V_OK) {
      why = server_certificate_problem(failure, host, files);
    } else if (const int alert = received_alert(); alert >= 0 || failure.certificate_asked) {
      why = failure.certificate_asked ? certificate_asked_for : client_certificate_problem(alert, files);
    }
  } else {
    // TLS 1.3: the daemon judges the client's certificate after the client's side of the
    // handshake is done, so its refusal is the first thing read: an alert, or the connection
    // closed. A daemon that took it sends its HTTP/2 settings instead.
    char byte = 0;
    if (SSL_read(ssl.get(), &byte, 1) <= 0) {
      const int alert = received_alert();
      if (failure.certificate_asked)
        why = certificate_asked_for;
      else if (!files.cert.empty())
        why = client_certificate_problem(alert, files);
    }
  }
  recording = nullptr;
  ERR_clear_error();
  ssl.reset();
  ::close(fd);
  return {tls ? port_transport::tls : port_transport::not_tls, why};
}

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
