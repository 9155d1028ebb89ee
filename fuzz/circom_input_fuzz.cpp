// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: a circuit's input.json read by circom's rules (witness/circom_input.hpp) on
// arbitrary text, with each curve's prime. What it accepts must be what the witness code can take:
// each signal named and hashed, n32 words per value, every value below the prime.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "witness/circom_input.hpp"
#include "witness/fnv1a.hpp"

namespace cuzk::witness {
namespace {

// r of BN254 and of BLS12-381, as circom's wasm gives them: 8 little-endian 32-bit words.
const std::vector<uint32_t> bn254_r = {0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848,
                                       0x8181585d, 0xb85045b6, 0xe131a029, 0x30644e72};
const std::vector<uint32_t> bls12_381_r = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                           0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};

bool below(const uint32_t* v, const std::vector<uint32_t>& p) {
  for (std::size_t i = p.size(); i-- > 0;)
    if (v[i] != p[i]) return v[i] < p[i];
  return false;
}

void read_with(std::string_view text, const std::vector<uint32_t>& prime) {
  const auto signals = parse_circom_input(text, "fuzz.json", prime);
  if (!signals) return;
  for (const auto& s : *signals) {
    FUZZ_REQUIRE(s.name_hash == fnv1a_64(s.name));
    FUZZ_REQUIRE(s.words.size() == s.count * prime.size());
    for (std::size_t i = 0; i < s.count; ++i) FUZZ_REQUIRE(below(s.words.data() + i * prime.size(), prime));
  }
}

}  // namespace
}  // namespace cuzk::witness

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cuzk::witness::read_with(text, cuzk::witness::bn254_r);
  cuzk::witness::read_with(text, cuzk::witness::bls12_381_r);
  return 0;
}
