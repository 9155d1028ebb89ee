// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the .r1cs reader (formats/r1cs.hpp) on arbitrary bytes.
//
// binfile::from_bytes with r1cs::open's magic and version, r1cs::from_binfile, then a walk over
// every constraint: open() validates section 2 once so that iteration can be unchecked, and the
// walk holds it to that (every term inside the buffer, which ASan watches; every wire below
// nWires; every coefficient below r; exactly nConstraints constraints). In an owned heap buffer,
// as zkey_fuzz.cpp says why.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/binfile.hpp"
#include "formats/r1cs.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace cuzk::formats;
  auto f = binfile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.r1cs", "r1cs", 1);
  if (!f) return 0;
  const auto r = r1cs::from_binfile(std::move(*f));
  if (!r) return 0;
  const auto& h = r->header();
  uint64_t constraints = 0;
  for (const auto& c : r->constraints()) {
    ++constraints;
    for (const auto* lc : {&c.a, &c.b, &c.c}) {
      for (std::size_t t = 0; t < lc->size(); ++t) {
        const auto term = (*lc)[t];
        FUZZ_REQUIRE(term.wire < h.n_wires);
        FUZZ_REQUIRE(term.coef->integer() < h.prime);
      }
    }
  }
  FUZZ_REQUIRE(constraints == h.n_constraints);
  return 0;
}
