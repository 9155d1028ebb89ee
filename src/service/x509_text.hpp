// SPDX-License-Identifier: MIT OR Apache-2.0
// A certificate's names and dates as the daemon's and the client's messages write them, for the
// reasons a TLS handshake was refused (tls_probe.hpp, client_certificate_check.hpp).
//
// Thread safety: pure functions.
#pragma once

#include <openssl/x509.h>

#include <memory>
#include <string>

namespace cuzk::service {

using x509_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

// "2026-12-04 09:00:00 UTC"; "an unreadable date" where OpenSSL cannot read it.
std::string time_text(const ASN1_TIME* t);
// OpenSSL's one-line form, "/CN=client"; "?" for none.
std::string subject_text(X509* x);
std::string issuer_text(X509* x);

}  // namespace cuzk::service
