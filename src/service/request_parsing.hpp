// SPDX-License-Identifier: MIT OR Apache-2.0
// How the daemon's gRPC server parses the requests that carry strings, so that a string field
// that is not UTF-8 is refused by its name and byte, not with an empty INTERNAL.
//
// Why here: protobuf refuses to parse a proto3 `string` field that is not UTF-8, and gRPC's
// generated handlers answer a request that does not parse with INTERNAL and protobuf's
// InitializationErrorString(), which is empty for proto3: the client of a document with one
// stray byte (input JSON in Latin-1, a path from a non-UTF-8 file system) got "INTERNAL: " and
// nothing else. C++ clients send such strings (protobuf only logs an error when it serializes
// one). The fields stay `string` in the protocol, so Python's and JavaScript's clients keep
// their types.
//
// What: gRPC looks up a message's (de)serialization in grpc::SerializationTraits; its generated
// code asks for the traits of protobuf::MessageLite, the base of every message (one instantiation
// for all of them), so that is the specialization below. It parses as gRPC's own does and, only
// when that fails, reads the bytes again without a schema (protobuf's UnknownFieldSet) to find the
// first string field that is not UTF-8: INVALID_ARGUMENT "partition 0: input JSON: not UTF-8 at
// byte 17", "circuit: ...". A request that fails for another reason is INVALID_ARGUMENT "request:
// not a valid <type>"; a reply the client cannot parse stays INTERNAL, with the same words.
//
// The specialization must be seen wherever gRPC's templates are instantiated for messages, or two
// definitions of the traits would meet in one program: cuzk_service's targets, and every target
// that links it, are compiled with this header included first (src/service/CMakeLists.txt).
#pragma once

#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

namespace cuzk::service {

// The first string field of `wire` (a serialized message of type `type`), at any depth, that is
// not UTF-8, as "<field>: not UTF-8 at byte N" (N within the field's value); "" when there is
// none. Fields are named as the daemon's messages name them: "partition 0: input JSON",
// "partition 1: path", "circuit".
std::string first_non_utf8_field(const google::protobuf::Descriptor& type, std::string_view wire);

// Parses `buffer` into `msg` as gRPC does; when it does not parse, a status naming the field that
// is not UTF-8 (or the message type): INVALID_ARGUMENT for a request (a message whose name ends
// in "Request"), INTERNAL for a reply. Clears the buffer either way.
grpc::Status parse_message(grpc::ByteBuffer* buffer, grpc::protobuf::MessageLite* msg);

}  // namespace cuzk::service

namespace grpc {

template <>
class SerializationTraits<grpc::protobuf::MessageLite, void> {
 public:
  static Status Serialize(const grpc::protobuf::MessageLite& msg, ByteBuffer* bb, bool* own_buffer) {
    return GenericSerialize<ProtoBufferWriter, grpc::protobuf::MessageLite>(msg, bb, own_buffer);
  }
  static Status Deserialize(ByteBuffer* buffer, grpc::protobuf::MessageLite* msg) {
    return cuzk::service::parse_message(buffer, msg);
  }
};

}  // namespace grpc
