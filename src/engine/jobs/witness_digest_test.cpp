// SPDX-License-Identifier: MIT OR Apache-2.0
// witness_digest: its value is stored with every job, so it must not change between builds; the
// expected values are xxhsum -H2's (the xxHash project's command) and FNV-1a's published "abc".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/jobs/witness.hpp"

namespace cuzk::engine {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(witness_digest, is_xxh3_128_in_the_canonical_order) {
  EXPECT_EQ(witness_digest(bytes_of("")), "xxh3-128:99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(witness_digest(bytes_of("abc")), "xxh3-128:06b05ab6733a618578af5f94892f3950");
  const std::vector<uint8_t> zeros(1000000, 0);
  EXPECT_EQ(witness_digest(zeros), "xxh3-128:ef233fc372a159319d648391f361d99a");
}

TEST(witness_digest, matches_the_same_bytes_and_not_others) {
  const std::string a = "witness bytes", b = "witness bytez";
  EXPECT_TRUE(witness_digest_matches(witness_digest(bytes_of(a)), bytes_of(a)));
  EXPECT_FALSE(witness_digest_matches(witness_digest(bytes_of(a)), bytes_of(b)));
}

TEST(witness_digest, a_digest_stored_before_xxh3_is_compared_as_fnv1a) {
  EXPECT_TRUE(witness_digest_matches("fnv1a64:e71fa2190541574b", bytes_of("abc")));
  EXPECT_FALSE(witness_digest_matches("fnv1a64:e71fa2190541574b", bytes_of("abd")));
}

TEST(witness_digest, empty_matches_anything_and_an_unknown_scheme_nothing) {
  EXPECT_TRUE(witness_digest_matches("", bytes_of("abc")));
  EXPECT_FALSE(witness_digest_matches("sha256:ba7816bf", bytes_of("abc")));
  EXPECT_FALSE(witness_digest_matches("xxh3-128:", bytes_of("abc")));
}

}  // namespace
}  // namespace cuzk::engine
