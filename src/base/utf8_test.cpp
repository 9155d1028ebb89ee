// SPDX-License-Identifier: MIT OR Apache-2.0
// first_invalid_utf8 (utf8.hpp) on the edges of Unicode's table 3-7: the first and last code
// point of every sequence length, overlong forms, surrogates, past U+10FFFF, stray and missing
// continuation bytes; and the offset found past the eight-byte ASCII stride.
#include "base/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cuzk {
namespace {

TEST(utf8, well_formed_text_has_no_invalid_byte) {
  for (const std::string& s :
       {std::string(), std::string("plain ascii {\"x\": 1}"), std::string("\x7f"), std::string("\xc2\x80"),
        std::string("\xdf\xbf"), std::string("\xe0\xa0\x80"), std::string("\xed\x9f\xbf"),
        std::string("\xee\x80\x80"), std::string("\xef\xbf\xbf"), std::string("\xf0\x90\x80\x80"),
        std::string("\xf4\x8f\xbf\xbf"), std::string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80")})
    EXPECT_EQ(first_invalid_utf8(s), std::nullopt) << s;
  EXPECT_EQ(first_invalid_utf8(std::string("a\0b", 3)), std::nullopt);
}

TEST(utf8, the_first_byte_of_an_ill_formed_sequence_is_named) {
  const struct {
    std::string text;
    std::size_t at;
  } cases[] = {
      {"\xff", 0},
      {"{\"x\": \"12345678\xff\"}", 15},
      {"\x80", 0},              // a continuation byte alone
      {"ab\xc0\x80", 2},        // overlong NUL
      {"\xc1\xbf", 0},          // overlong
      {"\xe0\x80\x80", 0},      // overlong
      {"\xe0\x9f\xbf", 0},      // overlong
      {"\xed\xa0\x80", 0},      // a surrogate
      {"\xed\xbf\xbf", 0},      // a surrogate
      {"\xf0\x80\x80\x80", 0},  // overlong
      {"\xf4\x90\x80\x80", 0},  // past U+10FFFF
      {"\xf5\x80\x80\x80", 0},
      {"x\xe2\x82", 1},     // cut short at the end
      {"\xe2\x28\xa1", 0},  // a continuation missing
      {"\xc3\xa9\xc3", 2},
  };
  for (const auto& c : cases) EXPECT_EQ(first_invalid_utf8(c.text), c.at) << c.text;
  std::string long_text(1000, 'a');
  long_text += "\xfe";
  long_text += std::string(20, 'b');
  EXPECT_EQ(first_invalid_utf8(long_text), 1000u);
}

}  // namespace
}  // namespace cuzk
