// SPDX-License-Identifier: MIT OR Apache-2.0
// enum_names: a value's word, the value of a word, and what lies outside the enum.
#include "base/enum_names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cuzk {
namespace {

enum class colour { red, green, blue };
constexpr auto colours = words_of<colour::blue>({"red", "green", "blue"}, "no colour");

TEST(enum_names, every_value_has_its_word_and_every_word_its_value) {
  for (const colour c : {colour::red, colour::green, colour::blue}) {
    const auto back = colours.parse(colours.name(c));
    ASSERT_TRUE(back.has_value()) << colours.name(c);
    EXPECT_EQ(*back, c);
  }
  EXPECT_EQ(std::string(colours.name(colour::green)), "green");
}

TEST(enum_names, other_words_and_values_are_not_taken_for_one) {
  EXPECT_FALSE(colours.parse("Red").has_value());  // words match exactly
  EXPECT_FALSE(colours.parse("").has_value());
  EXPECT_FALSE(colours.parse("blue ").has_value());
  EXPECT_EQ(std::string(colours.name(static_cast<colour>(7))), "no colour");
  static_assert(colours.parse("blue") == colour::blue);  // usable at compile time
}

}  // namespace
}  // namespace cuzk
