// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the .zkey reader (formats/zkey.hpp) on arbitrary bytes, as each curve reads it.
//
// The bytes go through binfile::from_bytes with the magic and version zkey<C>::open uses, then
// zkey<C>::from_binfile, then the checks open() leaves for later (every point, every coefficient
// record). An owned heap buffer rather than a file: no file system work per input, and ASan sees a
// read past the end (a mapping would have the rest of the page behind it).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/binfile.hpp"
#include "formats/zkey.hpp"
#include "fuzz_check.hpp"

namespace cuzk::formats {
namespace {

template <class C>
void read_as(const uint8_t* data, std::size_t size) {
  auto f = binfile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.zkey", "zkey", 1);
  if (!f) return;
  const auto k = zkey<C>::from_binfile(std::move(*f));
  if (!k) return;
  // The spans open() promises: their lengths are the header's.
  FUZZ_REQUIRE(k->ic().size() == uint64_t{k->n_public()} + 1);
  FUZZ_REQUIRE(k->a().size() == k->n_vars() && k->b1().size() == k->n_vars() && k->b2().size() == k->n_vars());
  FUZZ_REQUIRE(k->h().size() == k->domain_size());
  (void)k->validate_points(subgroup_check::check);
  const bool coefs_ok = k->validate_coefs().is_ok();
  for (std::size_t i = 0; i < k->coef_records().size(); ++i) {
    const auto c = k->coef(i);
    // validate_coefs() is every coef() check: it passes only when each record does.
    if (coefs_ok) FUZZ_REQUIRE(c.is_ok());
  }
}

}  // namespace
}  // namespace cuzk::formats

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  cuzk::formats::read_as<cuzk::bn254>(data, size);
  cuzk::formats::read_as<cuzk::bls12_381>(data, size);
  return 0;
}
