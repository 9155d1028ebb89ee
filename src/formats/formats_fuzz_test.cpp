// SPDX-License-Identifier: MIT OR Apache-2.0
// Random corruption of the binary fixtures (flipped bytes, overwritten words, truncation) must
// never crash a reader or read out of bounds: every corrupted file either opens and validates or
// is refused with a status. 200 cases per file kind on the small fixtures; fast enough for every
// build (run it under -fsanitize=address to check the "out of bounds" half as well).
// CUZK_FUZZ_SEED and CUZK_FUZZ_CASES override the seed and the count for longer local runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "curves/per_curve_test.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

std::vector<uint8_t> corrupt(std::vector<uint8_t> b, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  switch (pick(4)) {
    case 0:  // truncate
      b.resize(pick(b.size() + 1));
      break;
    case 1:  // flip a few bytes
      for (int i = 0, n = 1 + static_cast<int>(pick(4)); i < n; ++i)
        b[pick(b.size())] ^= static_cast<uint8_t>(1 + pick(255));
      break;
    case 2: {  // overwrite a 32-bit word with a boundary value (sizes and counts live in such words)
      static constexpr uint32_t values[] = {0, 1, 2, 0x7fffffff, 0xffffffff, 0x80000000, 3, 1024};
      const uint32_t v = values[pick(8)];
      const std::size_t at = pick(b.size() - 3);
      std::memcpy(b.data() + at, &v, 4);
      break;
    }
    default:  // append garbage
      b.insert(b.end(), 1 + pick(64), static_cast<uint8_t>(rng()));
  }
  return b;
}

template <class C>
void fuzz_zkey(const std::vector<uint8_t>& good, std::mt19937_64& rng, int& opened) {
  auto f = binfile::from_bytes(corrupt(good, rng), "f.zkey", "zkey", 1);
  if (!f) return;
  const auto k = zkey<C>::from_binfile(std::move(*f));
  if (!k) return;
  ++opened;
  (void)k->validate_points(subgroup_check::check);
  if (!k->validate_coefs()) return;
  for (std::size_t i = 0; i < k->coef_records().size(); ++i) ASSERT_TRUE(k->coef(i).is_ok());
}

template <class C> using FormatsFuzzTest = per_curve_test<C>;
TYPED_TEST_SUITE(FormatsFuzzTest, both_curves);

TYPED_TEST(FormatsFuzzTest, CorruptedFilesNeverCrash) {
  using C = TypeParam;
  std::mt19937_64 rng(env_or("CUZK_FUZZ_SEED", 20240917));
  const int cases = static_cast<int>(env_or("CUZK_FUZZ_CASES", 200));
  const std::string dir = fixture_dir<C>(false);
  const auto zk = read_bytes(dir + "/circuit.zkey"), rc = read_bytes(dir + "/circuit.r1cs"),
             wt = read_bytes(dir + "/circuit.wtns");
  int zkeys = 0, r1css = 0, wtnss = 0;
  for (int i = 0; i < cases; ++i) {
    fuzz_zkey<C>(zk, rng, zkeys);
    if (auto f = binfile::from_bytes(corrupt(rc, rng), "f.r1cs", "r1cs", 1)) {
      if (const auto r = r1cs::from_binfile(std::move(*f))) {
        ++r1css;
        std::size_t terms = 0;
        for (const auto& c : r->constraints()) {
          for (const auto* lc : {&c.a, &c.b, &c.c}) {
            for (std::size_t t = 0; t < lc->size(); ++t) ASSERT_LT((*lc)[t].wire, r->header().n_wires);
            terms += lc->size();
          }
        }
        (void)terms;
      }
    }
    if (auto f = binfile::from_bytes(corrupt(wt, rng), "f.wtns", "wtns", 2)) {
      if (const auto w = wtns::from_binfile(std::move(*f))) {
        ++wtnss;
        (void)w->validate();
      }
    }
  }
  // Some corruptions leave a readable file (a flipped point or witness byte), most do not.
  EXPECT_GT(zkeys + r1css + wtnss, 0);
  EXPECT_LT(zkeys, cases);
}

}  // namespace
}  // namespace cuzk::formats
