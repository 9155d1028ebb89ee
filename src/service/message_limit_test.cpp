// SPDX-License-Identifier: MIT OR Apache-2.0
// The gRPC message limit: an explicit max_message_mib as given, else the largest witness of the
// keys registered at start with room for the other fields, never below 4 MiB nor above 2047 MiB;
// and the transport's memory quota that follows from it.
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
  EXPECT_EQ(message_limit_bytes(64, {}), 64 * mib);
  EXPECT_EQ(message_limit_bytes(8, {circuit(1u << 22)}), 8 * mib);
}

// Issue 20, fault 14: with a 1024 MiB default a 200 MB witness for a 520-variable key cost the
// daemon 586 MB before it was refused. Derived, the limit is what that key's witness can be.
TEST(message_limit, derived_from_the_largest_key_registered) {
  EXPECT_EQ(message_limit_bytes(0, {}), 4 * mib);               // no keys: gRPC's default
  EXPECT_EQ(message_limit_bytes(0, {circuit(520)}), 4 * mib);   // a small key: the floor
  // 2^20 values: 76 + 32 MiB + 1 MiB (max_witness_bytes) + 64 KiB, rounded up: 34 MiB.
  EXPECT_EQ(message_limit_bytes(0, {circuit(520), circuit(1u << 20), circuit(1000)}), 34 * mib);
  EXPECT_EQ(message_limit_bytes(0, {circuit(1u << 30)}), 2047 * mib);  // what gRPC's int holds
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
