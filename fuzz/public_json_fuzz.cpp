// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the public.json reader (formats/public_signals.hpp) on arbitrary text, as each
// curve reads it. Signals it accepts must survive the writer: reading public_to_json's text gives
// the same values back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/public_signals.hpp"
#include "fuzz_check.hpp"

namespace cuzk::formats {
namespace {

template <class C>
void read_as(std::string_view text) {
  const auto s = public_from_json<C>(text, "fuzz.json");
  if (!s) return;
  const auto again = public_from_json<C>(public_to_json<C>(*s), "fuzz.json");
  FUZZ_REQUIRE(again.is_ok() && *again == *s);
}

}  // namespace
}  // namespace cuzk::formats

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cuzk::formats::read_as<cuzk::bn254>(text);
  cuzk::formats::read_as<cuzk::bls12_381>(text);
  return 0;
}
