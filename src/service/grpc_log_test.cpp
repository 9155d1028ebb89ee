// SPDX-License-Identifier: MIT OR Apache-2.0
// gRPC's log lines as the daemon writes them (grpc_log.hpp): a refused handshake by its cause, in
// the words of the daemon's options (docs/HARDENING.md, finding 29), the rest under "grpc:".
#include "service/grpc_log.hpp"

#include <gtest/gtest.h>

namespace cuzk::service {
namespace {

TEST(grpc_log, a_refused_handshake_is_named_by_its_cause) {
  EXPECT_EQ(
      grpc_log_text(
          "Handshake failed with fatal error SSL_ERROR_SSL: error:0A0000C7:SSL routines::peer did not "
          "return a certificate."),
      "tls: a client's handshake was refused: it sent no client certificate, and tls_client_ca asks for one "
      "(OpenSSL: peer did not return a certificate)");
  EXPECT_EQ(
      grpc_log_text(
          "Handshake failed with fatal error SSL_ERROR_SSL: error:0A00010B:SSL routines::wrong version "
          "number."),
      "tls: a client's handshake was refused: it does not speak TLS (a plaintext client at the TLS port) "
      "(OpenSSL: wrong version number)");
  EXPECT_EQ(
      grpc_log_text(
          "Handshake failed with fatal error SSL_ERROR_SSL: error:0A000418:SSL routines::tlsv1 alert "
          "unknown ca."),
      "tls: a client's handshake was refused: it does not trust the daemon's tls_cert (not signed by the "
      "client's --tls-ca) (OpenSSL: tlsv1 alert unknown ca)");
  // A reason without words of its own is kept as OpenSSL said it.
  EXPECT_EQ(
      grpc_log_text(
          "Handshake failed with fatal error SSL_ERROR_SSL: error:0A000000:SSL routines::something new."),
      "tls: a client's handshake was refused: something new (OpenSSL: something new)");
}

TEST(grpc_log, other_lines_keep_their_words_and_the_noise_goes) {
  EXPECT_EQ(grpc_log_text("ssl_info_callback: error occured.\n"), "");
  EXPECT_EQ(grpc_log_text("Failed to add :: listener\n"), "grpc: Failed to add :: listener");
}

}  // namespace
}  // namespace cuzk::service
