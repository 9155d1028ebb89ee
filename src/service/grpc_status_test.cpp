// SPDX-License-Identifier: MIT OR Apache-2.0
// errc <-> gRPC codes: the table each engine code travels as (written out here, independently of the
// switch in grpc_status.cpp), the lossless round trip daemon -> wire -> client for every code, and
// statuses that did not come from the daemon.
#include "service/grpc_status.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::service {
namespace {

using grpc::StatusCode;

TEST(grpc_status, every_engine_code_has_its_grpc_code) {
  const std::vector<std::pair<errc, StatusCode>> table = {
      {errc::ok, StatusCode::OK},
      {errc::invalid_argument, StatusCode::INVALID_ARGUMENT},
      {errc::parse_error, StatusCode::INVALID_ARGUMENT},
      {errc::out_of_range, StatusCode::INVALID_ARGUMENT},
      {errc::not_on_curve, StatusCode::INVALID_ARGUMENT},
      {errc::not_in_subgroup, StatusCode::INVALID_ARGUMENT},
      {errc::verification_failed, StatusCode::INTERNAL},
      {errc::format_error, StatusCode::INVALID_ARGUMENT},
      {errc::io_error, StatusCode::FAILED_PRECONDITION},
      {errc::cuda_error, StatusCode::INTERNAL},
      {errc::unsupported, StatusCode::UNIMPLEMENTED},
      {errc::internal, StatusCode::INTERNAL},
      {errc::not_found, StatusCode::NOT_FOUND},
      {errc::already_exists, StatusCode::ALREADY_EXISTS},
      {errc::cancelled, StatusCode::CANCELLED},
      {errc::deadline_exceeded, StatusCode::DEADLINE_EXCEEDED},
      {errc::resource_exhausted, StatusCode::RESOURCE_EXHAUSTED},
      {errc::unavailable, StatusCode::UNAVAILABLE},
      {errc::failed_precondition, StatusCode::FAILED_PRECONDITION},
  };
  ASSERT_EQ(table.size(), static_cast<std::size_t>(errc_count)) << "a code was added: extend the table";
  for (const auto& [e, g] : table) EXPECT_EQ(grpc_code(e), g) << errc_name(e);
}

TEST(grpc_status, every_code_survives_the_round_trip) {
  for (int i = 1; i < errc_count; ++i) {
    const status in(static_cast<errc>(i), "job 7: unknown");
    const grpc::Status wire = to_grpc(in);
    EXPECT_EQ(wire.error_code(), grpc_code(in.code()));
    EXPECT_EQ(wire.error_message(), in.to_string());
    const status out = from_grpc(wire);
    EXPECT_EQ(out.code(), in.code()) << errc_name(in.code());
    EXPECT_EQ(out.message(), in.message());
  }
  EXPECT_TRUE(to_grpc(status::ok()).ok());
  EXPECT_TRUE(from_grpc(grpc::Status::OK).is_ok());
  EXPECT_EQ(from_grpc(to_grpc(status(errc::io_error, ""))).code(), errc::io_error);  // empty message
}

// A message quoting a client's text is cut where gRPC's encoding of it would pass the bound, at
// the start of a letter, saying how much was left out; its code and its start survive. A 3,980-byte
// path of 'é' (7,960 bytes of text, ~24 KB encoded) once reached the client as RESOURCE_EXHAUSTED
// ("received initial metadata size exceeds limit") instead of the daemon's refusal.
TEST(grpc_status, a_message_too_long_for_the_wire_is_cut_and_says_so) {
  std::string path;
  for (int i = 0; i < 3980; ++i) path += "\xc3\xa9";
  const status refused(errc::failed_precondition, "witness path \"" + path + "\": refused");
  const grpc::Status wire = to_grpc(refused);
  const std::string& m = wire.error_message();
  std::size_t encoded = 0;
  for (const char ch : m) {
    const auto b = static_cast<unsigned char>(ch);
    encoded += b >= 0x20 && b < 0x7f && b != '%' ? 1 : 3;
  }
  EXPECT_LE(encoded, max_wire_message_bytes);
  EXPECT_EQ(m.rfind("failed_precondition: witness path \"\xc3\xa9", 0), 0u) << m.substr(0, 60);
  const std::size_t note = m.find("... (");
  ASSERT_NE(note, std::string::npos);
  EXPECT_EQ(note % 2, std::string("failed_precondition: witness path \"").size() % 2) << "cut inside a letter";
  EXPECT_NE(m.find(" bytes more)", note), std::string::npos);
  const status back = from_grpc(wire);
  EXPECT_EQ(back.code(), errc::failed_precondition);
  // Printable text at the bound is sent whole; one byte more is cut.
  const std::string prefix = "failed_precondition: ";
  const status at_bound(errc::failed_precondition, std::string(max_wire_message_bytes - prefix.size(), 'a'));
  EXPECT_EQ(to_grpc(at_bound).error_message(), at_bound.to_string());
  const status over(errc::failed_precondition, std::string(max_wire_message_bytes - prefix.size() + 1, 'a'));
  EXPECT_NE(to_grpc(over).error_message().find(" bytes more)"), std::string::npos);
}

TEST(grpc_status, statuses_from_elsewhere_map_by_their_grpc_code) {
  // gRPC's own, when no daemon listens.
  const status down = from_grpc(grpc::Status(StatusCode::UNAVAILABLE, "failed to connect to all addresses"));
  EXPECT_EQ(down.code(), errc::unavailable);
  EXPECT_EQ(down.message(), "failed to connect to all addresses");
  // A code name in front that does not travel as this gRPC code is just text.
  const status odd = from_grpc(grpc::Status(StatusCode::INVALID_ARGUMENT, "not_found: x"));
  EXPECT_EQ(odd.code(), errc::invalid_argument);
  EXPECT_EQ(odd.message(), "not_found: x");
  EXPECT_EQ(from_grpc(grpc::Status(StatusCode::NOT_FOUND, "no such thing")).code(), errc::not_found);
  EXPECT_EQ(from_grpc(grpc::Status(StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded")).code(),
            errc::deadline_exceeded);
  EXPECT_EQ(from_grpc(grpc::Status(StatusCode::UNKNOWN, "?")).code(), errc::internal);
  EXPECT_EQ(from_grpc(grpc::Status(StatusCode::DATA_LOSS, "?")).code(), errc::internal);
}

// A message over the daemon's gRPC limit is refused by gRPC in its own words; the client says
// which limit, both sizes and the config key that admits it (max_message_mib at the size, in MiB
// rounded up), not a path option the daemon may have off.
TEST(grpc_status, a_message_over_the_limit_names_the_limit_and_the_key_that_admits_it) {
  const status big = from_grpc(grpc::Status(StatusCode::RESOURCE_EXHAUSTED,
                                            "Received message larger than max (200000096 vs. 4194304)"));
  EXPECT_EQ(big.code(), errc::resource_exhausted);
  EXPECT_EQ(big.message(),
            "message: expected at most 4194304 bytes (the daemon's message limit), found 200000096: set "
            "max_message_mib = 191 in the daemon's config to admit it");
  // Past what gRPC's int holds nothing admits it inline.
  const status huge = from_grpc(grpc::Status(StatusCode::RESOURCE_EXHAUSTED,
                                             "Received message larger than max (3000000000 vs. 268435456)"));
  EXPECT_NE(huge.message().find("found 3000000000: a message over 2047 MiB cannot go inline"), std::string::npos)
      << huge.message();
  // Cut off while it arrived: the daemon's transport quota.
  const status cut =
      from_grpc(grpc::Status(StatusCode::RESOURCE_EXHAUSTED, "Received RST_STREAM with error code 11"));
  EXPECT_EQ(cut.code(), errc::resource_exhausted);
  EXPECT_EQ(cut.message().rfind("message: refused while it arrived: the daemon's memory for requests", 0), 0u)
      << cut.message();
  // Another RESOURCE_EXHAUSTED (the engine's, or gRPC's with other words) keeps its message.
  const status other = from_grpc(grpc::Status(StatusCode::RESOURCE_EXHAUSTED, "Received message larger"));
  EXPECT_EQ(other.message(), "Received message larger");
}

TEST(grpc_status, code_names_are_distinct_and_invert) {
  std::set<std::string> names;
  for (int i = 0; i < errc_count; ++i) {
    const std::string n = errc_name(static_cast<errc>(i));
    EXPECT_NE(n, "unknown") << i;
    EXPECT_TRUE(names.insert(n).second) << n;
    EXPECT_EQ(errc_from_name(n), static_cast<errc>(i));
  }
  EXPECT_STREQ(errc_name(static_cast<errc>(errc_count)), "unknown");
  EXPECT_FALSE(errc_from_name("unknown").has_value());
  EXPECT_FALSE(errc_from_name("").has_value());
}

}  // namespace
}  // namespace cuzk::service
