// SPDX-License-Identifier: MIT OR Apache-2.0
// The gRPC message limit: an explicit max_message_mib as given, else the largest witness of the
// keys registered with room for the other fields, never below 4 MiB nor above the ceiling; derived
// again as keys are registered; and the transport's memory quota that follows from it.
#include "service/message_limit.hpp"

#include <gtest/gtest.h>

namespace cuzk::service {
namespace {

engine::circuit_info circuit(uint32_t n_vars) {
  engine::circuit_info c;
  c.id = std::to_string(n_vars);
  c.key.n_vars = n_vars;
  return c;
}

constexpr int64_t mib = int64_t{1} << 20;

TEST(message_limit, an_explicit_value_wins) {
  EXPECT_EQ(message_limit_bytes(64, 256, {}), 64 * mib);
  EXPECT_EQ(message_limit_bytes(8, 256, {circuit(1u << 22)}), 8 * mib);
  EXPECT_EQ(message_limit_bytes(1000, 256, {}), 1000 * mib);  // the ceiling bounds a derived limit only
  EXPECT_EQ(transport_limit_bytes(8, 256), 8 * mib);
}

// With a 1024 MiB default a 200 MB witness for a 520-variable key cost the daemon 586 MB before it
// was refused. Derived, the limit is what the largest key's witness can be, up to the ceiling.
TEST(message_limit, derived_from_the_largest_key_registered) {
  EXPECT_EQ(message_limit_bytes(0, 256, {}), 4 * mib);               // no keys: gRPC's default
  EXPECT_EQ(message_limit_bytes(0, 256, {circuit(520)}), 4 * mib);   // a small key: the floor
  // 2^20 values: 76 + 32 MiB + 1 MiB (max_witness_bytes) + 64 KiB, rounded up: 34 MiB.
  EXPECT_EQ(message_limit_bytes(0, 256, {circuit(520), circuit(1u << 20), circuit(1000)}), 34 * mib);
  EXPECT_EQ(message_limit_bytes(0, 256, {circuit(1u << 30)}), 256 * mib);   // the ceiling
  EXPECT_EQ(message_limit_bytes(0, 2047, {circuit(1u << 30)}), 2047 * mib);  // what gRPC's int holds
  EXPECT_EQ(message_limit_bytes(0, 16, {circuit(1u << 20)}), 16 * mib);
  EXPECT_EQ(transport_limit_bytes(0, 256), 256 * mib);
}

// A key registered after the start: the limit and the quota follow it (the 8.45 MB .wtns of a
// 2^18-variable circuit was refused until a restart), and the change is reported once.
TEST(message_limit, follows_the_keys_as_they_are_registered) {
  std::vector<std::pair<int64_t, int64_t>> changes;
  message_limit::options o;
  o.on_change = [&](int64_t limit, int64_t memory) { changes.emplace_back(limit, memory); };
  message_limit l(std::move(o), {});
  EXPECT_EQ(l.bytes(), 4 * mib);
  EXPECT_EQ(l.request_memory(), 256 * mib);
  const std::size_t wtns_8mb = 76 + 32 * (std::size_t{1} << 18);
  EXPECT_EQ(l.admit(wtns_8mb).code(), errc::resource_exhausted);

  l.follow({circuit(520), circuit(1u << 18)});  // 8 MiB + 1 MiB + 64 KiB: 10 MiB
  EXPECT_EQ(l.bytes(), 10 * mib);
  EXPECT_TRUE(l.admit(wtns_8mb));
  l.follow({circuit(520), circuit(1u << 18)});  // no change, no report
  l.follow({circuit(1u << 22)});                // 130 MiB: the quota grows past its floor
  EXPECT_EQ(l.bytes(), 130 * mib);
  EXPECT_EQ(l.request_memory(), (8 * 130 + 32) * mib);
  l.follow({});  // the large key replaced by nothing: back to the floor
  EXPECT_EQ(l.bytes(), 4 * mib);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0], std::make_pair(10 * mib, 256 * mib));
  EXPECT_EQ(changes[2], std::make_pair(4 * mib, 256 * mib));

  // An explicit limit does not move.
  message_limit::options fixed;
  fixed.max_message_mib = 6;
  message_limit f(std::move(fixed), {});
  f.follow({circuit(1u << 22)});
  EXPECT_EQ(f.bytes(), 6 * mib);
}

// The refusal names the key that admits the message, and a path only where the daemon reads paths.
TEST(message_limit, a_refusal_names_max_message_mib_and_a_path_only_where_paths_are_on) {
  const status off = message_too_large(4 * mib, 8450000, false);
  EXPECT_EQ(off.code(), errc::resource_exhausted);
  EXPECT_EQ(off.message(),
            "message: expected at most 4194304 bytes (the daemon's message limit), found 8450000: set "
            "max_message_mib = 9 in the daemon's config to admit it");
  const status on = message_too_large(4 * mib, 8450000, true);
  EXPECT_NE(on.message().find("max_message_mib = 9 in the daemon's config to admit it, or send the witness by "
                              "path (--path) from one of its witness_dirs"),
            std::string::npos)
      << on.message();
}

// Room for eight messages of the limit at once and 32 MiB, at least 256 MiB; an explicit value
// wins. A larger message is cut off near this, not read whole.
TEST(message_limit, request_memory_is_eight_messages_and_32_mib) {
  EXPECT_EQ(request_memory_bytes(0, 4 * mib), 256 * mib);
  EXPECT_EQ(request_memory_bytes(0, 34 * mib), 304 * mib);
  EXPECT_EQ(request_memory_bytes(0, 1024 * mib), 8224 * mib);
  EXPECT_EQ(request_memory_bytes(40, 1024 * mib), 40 * mib);
}

}  // namespace
}  // namespace cuzk::service
