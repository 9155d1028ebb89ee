// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the proof.json reader (formats/proof.hpp) on arbitrary text, as each curve
// reads it. A proof it accepts must survive the writer: reading proof_to_json's text gives the same
// proof back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/proof.hpp"
#include "fuzz_check.hpp"

namespace cuzk::formats {
namespace {

template <class C>
void read_as(std::string_view text) {
  const auto p = proof_from_json<C>(text, "fuzz.json");
  if (!p) return;
  const auto again = proof_from_json<C>(proof_to_json(*p), "fuzz.json");
  FUZZ_REQUIRE(again.is_ok() && *again == *p);
}

}  // namespace
}  // namespace cuzk::formats

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cuzk::formats::read_as<cuzk::bn254>(text);
  cuzk::formats::read_as<cuzk::bls12_381>(text);
  return 0;
}
