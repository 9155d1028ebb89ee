// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the verification_key.json reader (formats/verification_key.hpp) on arbitrary
// text, as each curve reads it. A key it accepts must survive the writer: its text, read again and
// written again, is the same text (the key has no operator==; its JSON is its whole content,
// vk_alphabeta_12 included).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/verification_key.hpp"
#include "fuzz_check.hpp"

namespace cuzk::formats {
namespace {

template <class C>
void read_as(std::string_view text) {
  const auto vk = verification_key_from_json<C>(text, "fuzz.json");
  if (!vk) return;
  FUZZ_REQUIRE(vk->ic.size() >= 1);
  const std::string written = verification_key_to_json(*vk);
  const auto again = verification_key_from_json<C>(written, "fuzz.json");
  FUZZ_REQUIRE(again.is_ok() && verification_key_to_json(*again) == written);
}

}  // namespace
}  // namespace cuzk::formats

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cuzk::formats::read_as<cuzk::bn254>(text);
  cuzk::formats::read_as<cuzk::bls12_381>(text);
  return 0;
}
