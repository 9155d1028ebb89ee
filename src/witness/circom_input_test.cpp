// SPDX-License-Identifier: MIT OR Apache-2.0
// input.json by circom's rules (circom_input.hpp): names and their hashes, flattening, every
// accepted spelling of a value and its reduction modulo p, and the refusals with their messages.
#include "witness/circom_input.hpp"

#include <gtest/gtest.h>

#include "witness/fnv1a.hpp"

namespace cuzk::witness {
namespace {

// BN254's r as 8 little-endian 32-bit words.
const std::vector<uint32_t> bn254_r = {0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848,
                                       0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};

std::vector<uint32_t> word_value(uint32_t low) {
  std::vector<uint32_t> v(8, 0);
  v[0] = low;
  return v;
}

std::vector<uint32_t> r_minus(uint32_t k) {
  auto v = bn254_r;
  v[0] -= k;  // r's low word is far above the k used here
  return v;
}

std::vector<uint32_t> value_of(const input_signal& s, std::size_t i) {
  return {s.words.begin() + static_cast<long>(i * 8), s.words.begin() + static_cast<long>((i + 1) * 8)};
}

result<std::vector<input_signal>> parse(std::string_view text) { return parse_circom_input(text, "input.json", bn254_r); }

std::string error_of(std::string_view text) {
  auto r = parse(text);
  EXPECT_FALSE(r.is_ok()) << text;
  return r ? "" : r.error().message();
}

TEST(CircomInput, NamesHashLikeWitnessCalculatorJs) {
  // fnvHash() of circom's witness_calculator.js, run in Node.
  EXPECT_EQ(fnv1a_64("in"), 0x08b73807b55c4bbeull);
  EXPECT_EQ(fnv1a_64("cube"), 0x4c5f6190acb3dc80ull);
  EXPECT_EQ(fnv1a_64("main.x"), 0xaa4c4273e9994ddeull);
}

TEST(CircomInput, ArraysFlattenInRowMajorOrder) {
  auto r = parse(R"({"m": [["1", "2", "3"], [4, 5, "6"]], "k": 7})");
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "m");
  EXPECT_EQ((*r)[0].name_hash, fnv1a_64("m"));
  ASSERT_EQ((*r)[0].count, 6u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(value_of((*r)[0], i), word_value(i + 1)) << i;
  EXPECT_EQ((*r)[1].name, "k");
  EXPECT_EQ(value_of((*r)[1], 0), word_value(7));
}

TEST(CircomInput, ValuesReduceModuloThePrime) {
  const std::string r_dec = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
  auto r = parse(R"({"a": ["-1", "0x10", "0XfF", ")" + r_dec + R"(", "0", -3, 1e3, "00012"],)"
                 R"( "b": ")" + r_dec + r_dec + R"("})");
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  const auto& a = (*r)[0];
  EXPECT_EQ(value_of(a, 0), r_minus(1));
  EXPECT_EQ(value_of(a, 1), word_value(16));
  EXPECT_EQ(value_of(a, 2), word_value(255));
  EXPECT_EQ(value_of(a, 3), word_value(0));  // r itself
  EXPECT_EQ(value_of(a, 4), word_value(0));
  EXPECT_EQ(value_of(a, 5), r_minus(3));
  EXPECT_EQ(value_of(a, 6), word_value(1000));
  EXPECT_EQ(value_of(a, 7), word_value(12));
  // r * 10^77 + r = 0 mod r: a string far longer than the field.
  EXPECT_EQ(value_of((*r)[1], 0), word_value(0));
}

TEST(CircomInput, ObjectsNameBusMembers) {
  auto r = parse(R"({"in": {"x": 1, "y": [2, 3]}, "arr": [{"v": 4}, {"v": 5}]})");
  ASSERT_TRUE(r.is_ok()) << r.error().message();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].name, "in.x");
  EXPECT_EQ((*r)[1].name, "in.y");
  EXPECT_EQ((*r)[1].count, 2u);
  EXPECT_EQ((*r)[2].name, "arr[0].v");
  EXPECT_EQ((*r)[3].name, "arr[1].v");
  EXPECT_EQ(value_of((*r)[3], 0), word_value(5));
}

TEST(CircomInput, BadValuesAreNamedWithTheirIndex) {
  EXPECT_EQ(error_of(R"({"m": [["1", "2"], ["3", "x4"]]})"),
            "input.json: m[1][1]: expected a decimal string (optionally negative) or a 0x-prefixed hex string, "
            "found \"x4\"");
  EXPECT_EQ(error_of(R"({"k": 1.5})"), "input.json: k: expected an integer, found 1.5");
  EXPECT_EQ(error_of(R"({"k": 9007199254740993})"),
            "input.json: k: the number 9007199254740993 is beyond 2^53, where JavaScript (and so snarkjs) rounds it: "
            "write it as a decimal string");
  EXPECT_EQ(error_of(R"({"k": true})"),
            "input.json: k: expected a field element (a decimal string, a 0x-hex string or an integer), found boolean true");
  EXPECT_EQ(error_of(R"({"k": null})"),
            "input.json: k: expected a field element (a decimal string, a 0x-hex string or an integer), found null");
  EXPECT_EQ(error_of(R"({"k": ""})"),
            "input.json: k: expected a decimal string (optionally negative) or a 0x-prefixed hex string, found \"\"");
  EXPECT_EQ(error_of(R"({"k": "-0x1"})"),
            "input.json: k: expected a decimal string (optionally negative) or a 0x-prefixed hex string, found \"-0x1\"");
}

TEST(CircomInput, TheFileMustBeAnObjectAndArraysNotMixBuses) {
  EXPECT_EQ(error_of(R"(["1"])"), "input.json: expected a JSON object of input signals, found array");
  EXPECT_EQ(error_of(R"({"m": ["1", {"a": 2}]})"),
            "input.json: m: mixes values and objects (m[0] is a value, m[1] an object)");
  EXPECT_NE(error_of(R"({"m": [1, 2)").find("input.json: not valid JSON"), std::string::npos);
}

// docs/HARDENING.md, finding 27: a byte that is not UTF-8 is named by its offset, inside a string
// or between values, and the message is itself UTF-8 (the parser's own quoted the byte).
TEST(CircomInput, TextThatIsNotUtf8IsNamedByItsByte) {
  EXPECT_EQ(error_of("{\"k\": \"12345\xff\"}"), "input.json: not UTF-8 at byte 12");
  EXPECT_EQ(error_of("{\"k\": 1}\xff"), "input.json: not UTF-8 at byte 8");
  EXPECT_EQ(error_of("{\"caf\xc3\xa9\": \"\xed\xa0\x80\"}"), "input.json: not UTF-8 at byte 11");
}

}  // namespace
}  // namespace cuzk::witness
