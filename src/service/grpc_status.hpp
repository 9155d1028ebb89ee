// SPDX-License-Identifier: MIT OR Apache-2.0
// Engine statuses on the wire: errc <-> grpc::StatusCode, both ways.
//
// The daemon answers an RPC that fails with the gRPC code that matches the engine's (NOT_FOUND for
// an unknown circuit or job, ALREADY_EXISTS for a request id taken by another circuit, UNAVAILABLE
// while draining, FAILED_PRECONDITION for a cancel of a job that already ended, ...), so any gRPC
// client can act on the code alone. Several engine codes share one gRPC code (parse_error,
// format_error, out_of_range: INVALID_ARGUMENT), so the message keeps the engine's own code in
// front ("format_error: partition 0: ..."), and from_grpc() takes it back from there: a status
// that went daemon -> wire -> client comes out as it went in. A status from anywhere else (gRPC's
// own, e.g. UNAVAILABLE when no daemon listens) maps by its gRPC code.
#pragma once

#include <grpcpp/grpcpp.h>

#include "base/result.hpp"

namespace cuzk::service {

grpc::StatusCode grpc_code(errc c) noexcept;
// The code a client should see for a gRPC code; UNKNOWN and anything unmatched: internal.
errc errc_from_grpc(grpc::StatusCode c) noexcept;

// ok -> OK; otherwise grpc_code(s.code()) with s.to_string() as the message, cut where gRPC's
// encoding of it (each byte other than printable ASCII sent as 3: "%C3") would pass
// max_wire_message_bytes, with how many bytes were left out. A message quoting what a client sent
// (a 4 KB path of non-ASCII letters) would otherwise pass the client's 8 KiB limit on metadata,
// and the client would see RESOURCE_EXHAUSTED "received initial metadata size exceeds limit"
// instead of the refusal.
inline constexpr std::size_t max_wire_message_bytes = 4096;
grpc::Status to_grpc(const status& s);
// The inverse of to_grpc, for the client side (see above).
status from_grpc(const grpc::Status& s);

}  // namespace cuzk::service
