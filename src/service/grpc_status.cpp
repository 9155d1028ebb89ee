// SPDX-License-Identifier: MIT OR Apache-2.0
// errc <-> gRPC status codes (see grpc_status.hpp).
#include "service/grpc_status.hpp"

#include "service/message_limit.hpp"

#include <charconv>
#include <optional>
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

namespace {

// gRPC percent-encodes a status message's bytes outside printable ASCII, and '%' itself.
std::size_t wire_bytes(unsigned char b) noexcept { return b >= 0x20 && b < 0x7f && b != '%' ? 1 : 3; }

// `text` cut where its encoding would pass max_wire_message_bytes less room for the note of the
// cut, at the start of a UTF-8 sequence, with the note.
std::string fit_for_the_wire(const std::string& text) {
  std::size_t encoded = 0;
  for (const char ch : text) encoded += wire_bytes(static_cast<unsigned char>(ch));
  if (encoded <= max_wire_message_bytes) return text;
  constexpr std::size_t room_for_note = 64;
  std::size_t cut = 0;
  for (encoded = 0; cut < text.size(); ++cut) {
    const std::size_t next = encoded + wire_bytes(static_cast<unsigned char>(text[cut]));
    if (next > max_wire_message_bytes - room_for_note) break;
    encoded = next;
  }
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a letter
  return text.substr(0, cut) + "... (" + std::to_string(text.size() - cut) + " bytes more)";
}

}  // namespace

grpc::Status to_grpc(const status& s) {
  if (s) return grpc::Status::OK;
  return grpc::Status(grpc_code(s.code()), fit_for_the_wire(s.to_string()));
}

namespace {

// gRPC's refusal of a message over the receiver's limit, "Received message larger than max (<size>
// vs. <limit>)", in cuzk's words: what was expected, what was found, and the config key that admits
// it. For a request, the receiver is the daemon and the limit its own (message_limit.hpp): an
// explicit max_message_mib, or the ceiling of a derived one; max_message_mib set to the size admits
// the message either way. Whether the daemon reads witnesses by path is its config's business
// (witness_dirs), unknown here, so sending by path is not offered.
std::optional<status> grpc_message_too_large(const grpc::Status& s) {
  constexpr std::string_view head = "Received message larger than max (";
  const std::string& msg = s.error_message();
  if (s.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED || msg.rfind(head, 0) != 0) return std::nullopt;
  const auto vs = msg.find(" vs. ", head.size());
  const auto close = msg.find(')', head.size());
  if (vs == std::string::npos || close == std::string::npos || close < vs) return std::nullopt;
  const std::string_view found = std::string_view(msg).substr(head.size(), vs - head.size());
  const std::string_view limit = std::string_view(msg).substr(vs + 5, close - vs - 5);
  int64_t f = 0, l = 0;
  if (std::from_chars(found.data(), found.data() + found.size(), f).ec != std::errc{} ||
      std::from_chars(limit.data(), limit.data() + limit.size(), l).ec != std::errc{})
    return std::nullopt;
  return message_too_large(l, f, false);
}

// The daemon's transport reset the stream while the message arrived (ENHANCE_YOUR_CALM, HTTP/2
// code 11): its memory for requests in flight ran out (message_limit.hpp).
std::optional<status> stream_cut_off(const grpc::Status& s) {
  if (s.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED ||
      s.error_message() != "Received RST_STREAM with error code 11")
    return std::nullopt;
  return status(errc::resource_exhausted,
                "message: refused while it arrived: the daemon's memory for requests in flight is full (a "
                "message over its message limit, or many large ones at once): retry, or raise "
                "request_memory_mib in the daemon's config");
}

}  // namespace

status from_grpc(const grpc::Status& s) {
  if (s.ok()) return status::ok();
  if (auto big = grpc_message_too_large(s)) return *big;
  if (auto cut = stream_cut_off(s)) return *cut;
  const std::string& msg = s.error_message();
  // "<errc name>: <message>", where the name is a code that travels as this gRPC code.
  if (const auto colon = msg.find(": "); colon != std::string::npos)
    if (const auto c = errc_from_name(std::string_view(msg).substr(0, colon));
        c && *c != errc::ok && grpc_code(*c) == s.error_code())
      return status(*c, msg.substr(colon + 2));
  return status(errc_from_grpc(s.error_code()), msg);
}

}  // namespace cuzk::service
