// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/result.hpp"

namespace cuzk {

const char* errc_name(errc code) noexcept {
  switch (code) {
    case errc::ok: return "ok";
    case errc::invalid_argument: return "invalid_argument";
    case errc::parse_error: return "parse_error";
    case errc::out_of_range: return "out_of_range";
    case errc::not_on_curve: return "not_on_curve";
    case errc::not_in_subgroup: return "not_in_subgroup";
    case errc::verification_failed: return "verification_failed";
    case errc::format_error: return "format_error";
    case errc::io_error: return "io_error";
    case errc::cuda_error: return "cuda_error";
    case errc::unsupported: return "unsupported";
    case errc::internal: return "internal";
    case errc::not_found: return "not_found";
    case errc::already_exists: return "already_exists";
    case errc::cancelled: return "cancelled";
    case errc::deadline_exceeded: return "deadline_exceeded";
    case errc::resource_exhausted: return "resource_exhausted";
    case errc::unavailable: return "unavailable";
    case errc::failed_precondition: return "failed_precondition";
  }
  return "unknown";
}

std::optional<errc> errc_from_name(std::string_view name) noexcept {
  for (int i = 0; i < errc_count; ++i)
    if (name == errc_name(static_cast<errc>(i))) return static_cast<errc>(i);
  return std::nullopt;
}

std::string status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(errc_name(code_)) + ": " + message_;
}

}  // namespace cuzk
