// SPDX-License-Identifier: MIT OR Apache-2.0
// key_vector_set: the words both ways, and the error for a word that is not a vector.
#include "groth16/key_vectors.hpp"

#include <gtest/gtest.h>

namespace cuzk::groth16 {
namespace {

TEST(KeyVectors, ReadsAndWritesTheWords) {
  EXPECT_EQ(key_vector_set().to_string(), "none");
  EXPECT_EQ(key_vector_set::all().to_string(), "all");
  const auto set = key_vector_set().with(key_vector::h).with(key_vector::b2);
  EXPECT_EQ(set.to_string(), "b2,h");
  EXPECT_TRUE(set.contains(key_vector::b2));
  EXPECT_FALSE(set.contains(key_vector::a));
  for (const char* text : {"none", "all", "a", "b2,h", "a,b1,c"}) {
    auto parsed = key_vector_set::parse(text, "--stream");
    ASSERT_TRUE(parsed.is_ok()) << text;
    EXPECT_EQ(parsed->to_string(), text);
  }
  auto every = key_vector_set::parse("h,c,b2,b1,a", "--stream");
  ASSERT_TRUE(every.is_ok());
  EXPECT_EQ(*every, key_vector_set::all());
  EXPECT_EQ(key_vector_set::all().without(key_vector::a).to_string(), "b1,b2,c,h");
}

TEST(KeyVectors, RefusesOtherWords) {
  for (const char* text : {"", "b3", "a,", "a,,b1", "ALL", "a b1"}) {
    auto parsed = key_vector_set::parse(text, "--stream");
    ASSERT_FALSE(parsed.is_ok()) << "'" << text << "'";
    EXPECT_NE(parsed.error().to_string().find("--stream: expected none, all or a list of a, b1, b2, c, h"),
              std::string::npos)
        << parsed.error().to_string();
  }
}

}  // namespace
}  // namespace cuzk::groth16
