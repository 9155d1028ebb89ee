// SPDX-License-Identifier: MIT OR Apache-2.0
// Certificates' names and dates in words; see x509_text.hpp.
#include "service/x509_text.hpp"

#include <ctime>

namespace cuzk::service {

std::string time_text(const ASN1_TIME* t) {
  std::tm tm{};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return "an unreadable date";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string subject_text(X509* x) {
  char buf[256];
  return x ? X509_NAME_oneline(X509_get_subject_name(x), buf, sizeof buf) : "?";
}

std::string issuer_text(X509* x) {
  char buf[256];
  return x ? X509_NAME_oneline(X509_get_issuer_name(x), buf, sizeof buf) : "?";
}

}  // namespace cuzk::service
