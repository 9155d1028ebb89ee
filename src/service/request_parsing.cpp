// SPDX-License-Identifier: MIT OR Apache-2.0
// A request that does not parse, diagnosed; see request_parsing.hpp.
#include "service/request_parsing.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/impl/codegen/proto_buffer_reader.h>

#include <map>

#include "base/utf8.hpp"

namespace cuzk::service {

namespace {

namespace pb = google::protobuf;

// A field as the daemon's other messages name it: "partition 0" for the witness of a submit,
// "input JSON" for its text; other fields by their proto name, with the index of a repeated one.
std::string field_label(const pb::FieldDescriptor& f, int index) {
  if (f.name() == "partitions") return "partition " + std::to_string(index);
  if (f.name() == "input_json") return "input JSON";
  if (f.is_repeated()) return f.name() + "[" + std::to_string(index) + "]";
  return f.name();
}

std::string first_non_utf8(const pb::Descriptor& type, const pb::UnknownFieldSet& fields,
                           const std::string& prefix) {
  std::map<int, int> seen;  // values of each field number so far: the index of a repeated one
  for (int i = 0; i < fields.field_count(); ++i) {
    const pb::UnknownField& u = fields.field(i);
    const pb::FieldDescriptor* f = type.FindFieldByNumber(u.number());
    if (f == nullptr || u.type() != pb::UnknownField::TYPE_LENGTH_DELIMITED) continue;
    const std::string name = prefix + field_label(*f, seen[u.number()]++);
    if (f->type() == pb::FieldDescriptor::TYPE_STRING) {
      if (const auto at = first_invalid_utf8(u.length_delimited()))
        return name + ": not UTF-8 at byte " + std::to_string(*at);
    } else if (f->type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      pb::UnknownFieldSet inner;
      if (!inner.ParseFromString(u.length_delimited())) continue;
      std::string found = first_non_utf8(*f->message_type(), inner, name + ": ");
      if (!found.empty()) return found;
    }
  }
  return {};
}

}  // namespace

std::string first_non_utf8_field(const pb::Descriptor& type, std::string_view wire) {
  pb::UnknownFieldSet fields;
  if (!fields.ParseFromArray(wire.data(), static_cast<int>(wire.size()))) return {};
  return first_non_utf8(type, fields, "");
}

grpc::Status parse_message(grpc::ByteBuffer* buffer, grpc::protobuf::MessageLite* msg) {
  if (buffer == nullptr) return {grpc::StatusCode::INTERNAL, "No payload"};
  bool parsed = false;
  {
    grpc::ProtoBufferReader reader(buffer);
    if (!reader.status().ok()) return reader.status();
    parsed = msg->ParseFromZeroCopyStream(&reader);
  }
  if (parsed) {
    buffer->Clear();
    return grpc::Status::OK;
  }
  // Read again, as one block, only for a message that failed: its bytes are still in the buffer.
  const auto* full = dynamic_cast<const pb::Message*>(msg);
  const std::string type = msg->GetTypeName();
  std::string why;
  grpc::Slice whole;
  if (full != nullptr && buffer->DumpToSingleSlice(&whole).ok())
    why = first_non_utf8_field(*full->GetDescriptor(),
                               {reinterpret_cast<const char*>(whole.begin()), whole.size()});
  buffer->Clear();
  const bool request = type.ends_with("Request");
  if (why.empty()) why = std::string(request ? "request" : "reply") + ": not a valid " + type;
  if (!request) why = type + ": " + why;
  return {request ? grpc::StatusCode::INVALID_ARGUMENT : grpc::StatusCode::INTERNAL, why};
}

}  // namespace cuzk::service
