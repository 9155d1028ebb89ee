// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the .wtns reader (formats/wtns.hpp) on arbitrary bytes.
//
// binfile::from_bytes with wtns::open's magic and version, wtns::from_binfile, then what the
// engine asks of a witness at submit (engine/jobs/witness.cpp: check_fits against a key, then
// validate). In an owned heap buffer, as zkey_fuzz.cpp says why.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/binfile.hpp"
#include "formats/wtns.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace cuzk::formats;
  auto f = binfile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.wtns", "wtns", 2);
  if (!f) return 0;
  const auto w = wtns::from_binfile(std::move(*f));
  if (!w) return 0;
  FUZZ_REQUIRE(w->size() == w->header().n_witness);
  const bool valid = w->validate().is_ok();
  // Every value is read back the way the prover reads it (engine/jobs/witness.cpp: read_witness).
  for (std::size_t i = 0; i < w->size(); ++i) {
    if (valid) FUZZ_REQUIRE(w->value(i) < w->header().prime);
  }
  // A witness fits a key of its own curve and length, and no key of the other curve.
  const auto& h = w->header();
  const auto other = h.curve == curve_id::bn254 ? curve_id::bls12_381 : curve_id::bn254;
  FUZZ_REQUIRE(w->check_fits(h.curve, h.n_witness, "the fuzz key").is_ok());
  FUZZ_REQUIRE(!w->check_fits(other, h.n_witness, "the fuzz key").is_ok());
  return 0;
}
