// SPDX-License-Identifier: MIT OR Apache-2.0
// counting_arena: what it hands out are real device buffers of the asked sizes, and its count is
// their bytes' sum; empty and failed allocations count nothing.
#include "gpu/counting_arena.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu/device_test_util.hpp"

namespace cuzk::gpu {
namespace {

TEST(CountingArena, CountsTheBytesOfWhatItHandsOut) {
  CUZK_REQUIRE_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  counting_arena arena;
  EXPECT_EQ(arena.bytes(), 0u);
  auto words = arena.allocate<uint32_t>(1000);
  auto wide = arena.allocate<uint64_t>(3);
  auto none = arena.allocate<uint64_t>(0);
  ASSERT_TRUE(words.is_ok() && wide.is_ok() && none.is_ok());
  EXPECT_EQ(words->bytes(), 4000u);
  EXPECT_EQ(arena.bytes(), 4000u + 24u);
  EXPECT_EQ(arena.allocations(), 2u);
  // The buffers are device memory of that size: a round trip through them keeps the values.
  std::vector<uint32_t> in(1000), out(1000);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 2654435761u;
  ASSERT_TRUE(words->copy_from_host(in.data(), in.size()).is_ok());
  ASSERT_TRUE(words->copy_to_host(out.data(), out.size()).is_ok());
  EXPECT_EQ(out, in);
  // More than any device holds: refused, and not counted.
  auto huge = arena.allocate<std::byte>(std::size_t{1} << 50);
  EXPECT_FALSE(huge.is_ok());
  EXPECT_EQ(arena.bytes(), 4024u);
  EXPECT_EQ(arena.allocations(), 2u);
  // Without an arena, allocate_in counts nowhere.
  auto plain = allocate_in<uint32_t>(nullptr, 10);
  ASSERT_TRUE(plain.is_ok());
  EXPECT_EQ(plain->bytes(), 40u);
  auto counted = allocate_in<uint32_t>(&arena, 10);
  ASSERT_TRUE(counted.is_ok());
  EXPECT_EQ(arena.bytes(), 4064u);
}

}  // namespace
}  // namespace cuzk::gpu
