// errc <-> gRPC status codes (see grpc_status.hpp).
#include "service/grpc_status.hpp"

#include <string_view>

namespace cuzk::service {

grpc::StatusCode grpc_code(errc c) noexcept {
  switch (c) {
    case errc::ok:
      return grpc::StatusCode::OK;
    case errc::invalid_argument:
    case errc::parse_error:
    case errc::out_of_range:
    case errc::not_on_curve:
    case errc::not_in_subgroup:
    case errc::format_error:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case errc::not_found:
      return grpc::StatusCode::NOT_FOUND;
    case errc::already_exists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case errc::cancelled:
      return grpc::StatusCode::CANCELLED;
    case errc::deadline_exceeded:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case errc::resource_exhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case errc::unavailable:
      return grpc::StatusCode::UNAVAILABLE;
    // A path the daemon cannot read is the caller's to fix, as a missing file would be.
    case errc::io_error:
    case errc::failed_precondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case errc::unsupported:
      return grpc::StatusCode::UNIMPLEMENTED;
    case errc::verification_failed:
    case errc::cuda_error:
    case errc::internal:
      return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::UNKNOWN;
}

errc errc_from_grpc(grpc::StatusCode c) noexcept {
  switch (c) {
    case grpc::StatusCode::OK:
      return errc::ok;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      return errc::invalid_argument;
    case grpc::StatusCode::NOT_FOUND:
      return errc::not_found;
    case grpc::StatusCode::ALREADY_EXISTS:
      return errc::already_exists;
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::ABORTED:
      return errc::cancelled;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return errc::deadline_exceeded;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return errc::resource_exhausted;
    case grpc::StatusCode::UNAVAILABLE:
      return errc::unavailable;
    case grpc::StatusCode::FAILED_PRECONDITION:
      return errc::failed_precondition;
    case grpc::StatusCode::UNIMPLEMENTED:
      return errc::unsupported;
    default:
      return errc::internal;
  }
}

grpc::Status to_grpc(const status& s) {
  if (s) return grpc::Status::OK;
  return grpc::Status(grpc_code(s.code()), s.to_string());
}

status from_grpc(const grpc::Status& s) {
  if (s.ok()) return status::ok();
  const std::string& msg = s.error_message();
  // "<errc name>: <message>", where the name is a code that travels as this gRPC code.
  if (const auto colon = msg.find(": "); colon != std::string::npos)
    if (const auto c = errc_from_name(std::string_view(msg).substr(0, colon));
        c && *c != errc::ok && grpc_code(*c) == s.error_code())
      return status(*c, msg.substr(colon + 2));
  return status(errc_from_grpc(s.error_code()), msg);
}

}  // namespace cuzk::service
