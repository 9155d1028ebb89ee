// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 .zkey reader and writer on the snarkjs fixtures of both curves: header facts,
// section sizes, in-place point spans, coefficients checked against the .r1cs they were made from
// (which also pins the "double Montgomery" decoding), the verification key matching snarkjs's
// export, the writer reproducing snarkjs's file byte for byte, and every malformed key refused with
// the file, section and field named.
#include "formats/zkey.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "curves/per_curve_test.hpp"
#include "ec/test_points.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/r1cs.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey_writer.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

struct key_facts {
  bool poseidon;
  uint32_t n_vars, n_public, domain_size, n_coefs;
};
constexpr key_facts multiplier{false, 9, 3, 8, 10};
constexpr key_facts poseidon{true, 520, 3, 1024, 490};

template <class C>
class ZkeyTest : public ::testing::Test {
 protected:
  using g1a = g1_affine<C>;
  using g2a = g2_affine<C>;
  static constexpr std::size_t g1_size = sizeof(g1a), g2_size = sizeof(g2a), nq = C::fq::num_bytes;
  // Offset of alpha1 in section 2: n8q, q, n8r, r, nVars, nPublic, domainSize.
  static constexpr std::size_t alpha1_at = 4 + nq + 4 + 32 + 12;

  static std::string path(bool poseidon_circuit = false) {
    return fixture_dir<C>(poseidon_circuit) + "/circuit.zkey";
  }
  static std::vector<raw_section> sections() { return split_sections(read_bytes(path())); }
  static result<zkey<C>> open_modified(const std::vector<raw_section>& secs) {
    auto f = binfile::from_bytes(join_sections("zkey", 1, secs), "k.zkey", "zkey", 1);
    if (!f) return f.error();
    return zkey<C>::from_binfile(std::move(*f));
  }
};
TYPED_TEST_SUITE(ZkeyTest, both_curves);

TYPED_TEST(ZkeyTest, FixtureFacts) {
  using C = TypeParam;
  for (const auto& facts : {multiplier, poseidon}) {
    const auto k = zkey<C>::open(this->path(facts.poseidon));
    ASSERT_TRUE(k.is_ok()) << k.error().to_string();
    const auto& h = k->header();
    EXPECT_EQ(h.n8q, C::fq::num_bytes);
    EXPECT_EQ(h.n8r, 32u);
    EXPECT_EQ(h.n_vars, facts.n_vars);
    EXPECT_EQ(h.n_public, facts.n_public);
    EXPECT_EQ(h.domain_size, facts.domain_size);
    EXPECT_EQ(h.gamma2, g2_group<C>::generator);  // snarkjs keeps gamma = 1
    EXPECT_EQ(k->ic().size(), facts.n_public + 1);
    EXPECT_EQ(k->a().size(), facts.n_vars);
    EXPECT_EQ(k->b1().size(), facts.n_vars);
    EXPECT_EQ(k->b2().size(), facts.n_vars);
    EXPECT_EQ(k->c().size(), facts.n_vars - facts.n_public - 1);
    EXPECT_EQ(k->h().size(), facts.domain_size);
    EXPECT_EQ(k->coef_records().size(), facts.n_coefs);
    EXPECT_EQ(k->cs_hash().size(), 64u);
    EXPECT_EQ(k->n_contributions(), 1u);  // the fixtures' one beacon
    EXPECT_TRUE(k->validate_coefs().is_ok());
    const auto v = k->validate_points(subgroup_check::check);
    EXPECT_TRUE(v.is_ok()) << v.to_string();

    // Wire 0 (the constant one) is in A through its extra row; some signal is absent from B.
    EXPECT_FALSE(k->a()[0].is_infinity());
    EXPECT_TRUE(std::any_of(k->b2().begin(), k->b2().end(), [](const auto& p) { return p.is_infinity(); }));
    EXPECT_EQ(detect_curve(this->path(facts.poseidon)).value(), curve_id_of<C>);
  }
}

// Spans lie in the mapping when their section is 8-byte aligned, in an owned copy otherwise.
TYPED_TEST(ZkeyTest, InPlaceWhereAligned) {
  using C = TypeParam;
  const auto k = zkey<C>::open(this->path());
  ASSERT_TRUE(k.is_ok());
  const auto file = k->file().bytes();
  const auto in_file = [&](const void* p) { return p >= file.data() && p < file.data() + file.size(); };
  std::size_t copied = 0;
  const auto check = [&](uint32_t id, const void* data, std::size_t bytes) {
    const auto e = k->file().entry(id).value();
    EXPECT_EQ(in_file(data), e.offset % 8 == 0) << "section " << id;
    if (in_file(data)) {
      EXPECT_EQ(static_cast<const uint8_t*>(data), file.data() + e.offset);
    } else {
      copied += bytes;
    }
    EXPECT_EQ(std::memcmp(data, file.data() + e.offset, bytes), 0) << "section " << id;
  };
  check(zkey_ic, k->ic().data(), k->ic().size_bytes());
  check(zkey_a, k->a().data(), k->a().size_bytes());
  check(zkey_b1, k->b1().data(), k->b1().size_bytes());
  check(zkey_b2, k->b2().data(), k->b2().size_bytes());
  check(zkey_c, k->c().data(), k->c().size_bytes());
  check(zkey_h, k->h().data(), k->h().size_bytes());
  EXPECT_EQ(copied, k->copied_bytes());
  EXPECT_GT(copied, 0u);  // sections alternate: the fixtures have both kinds
  EXPECT_TRUE(in_file(k->coef_records().data()));
}

// zkey coefficients = the r1cs's A and B entries, plus (0, m + s, s, 1) for s <= nPublic.
TYPED_TEST(ZkeyTest, CoefficientsAreTheR1csMatrices) {
  using C = TypeParam;
  using fr = typename C::fr;
  using entry = std::tuple<uint32_t, uint32_t, uint32_t, ff::bigint<4>>;
  for (const bool p : {false, true}) {
    const auto k = zkey<C>::open(this->path(p));
    const auto r = r1cs::open(fixture_dir<C>(p) + "/circuit.r1cs");
    ASSERT_TRUE(k.is_ok() && r.is_ok());
    std::vector<entry> want;
    uint32_t j = 0;
    for (const auto& c : r->constraints()) {
      for (std::size_t i = 0; i < c.a.size(); ++i)
        want.emplace_back(0, j, c.a[i].wire, c.a[i].coef->integer());
      for (std::size_t i = 0; i < c.b.size(); ++i)
        want.emplace_back(1, j, c.b[i].wire, c.b[i].coef->integer());
      ++j;
    }
    for (uint32_t s = 0; s <= k->n_public(); ++s) want.emplace_back(0, j + s, s, ff::bigint<4>::from_u64(1));
    EXPECT_EQ(k->coef_records().size(), want.size());  // nnz(A) + nnz(B) + nPublic + 1
    std::vector<entry> got;
    for (std::size_t i = 0; i < k->coef_records().size(); ++i) {
      const auto c = k->coef(i);
      ASSERT_TRUE(c.is_ok()) << c.error().to_string();
      got.emplace_back(c->matrix, c->constraint, c->signal, c->value.to_canonical());
      // The raw record times a plain witness value is the product in Montgomery form.
      const auto raw = k->coef_records()[i].value.integer();
      const fr w = fr::from_uint(12345);
      EXPECT_EQ(fr::from_montgomery(raw) * fr::from_montgomery(w.to_canonical()), c->value * w);
    }
    // Sorted by constraint in the file (snarkjs's writeZKey order).
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), [](const entry& x, const entry& y) {
      return std::get<1>(x) < std::get<1>(y);
    }));
    std::sort(want.begin(), want.end(), [](const entry& x, const entry& y) { return x < y; });
    std::sort(got.begin(), got.end(), [](const entry& x, const entry& y) { return x < y; });
    EXPECT_TRUE(want == got);
  }
}

// The key's verifying part is what `snarkjs zkey export verificationkey` wrote.
TYPED_TEST(ZkeyTest, VerificationKeyMatchesSnarkjsExport) {
  using C = TypeParam;
  for (const bool p : {false, true}) {
    const auto k = zkey<C>::open(this->path(p));
    ASSERT_TRUE(k.is_ok());
    const std::string vk_path = fixture_dir<C>(p) + "/verification_key.json";
    auto vk = verification_key_of(*k);
    vk.alphabeta_12 =
        read_verification_key_json<C>(vk_path)->alphabeta_12;  // e(α, β): not the format layer's
    EXPECT_EQ(verification_key_to_json(vk), read_text(vk_path));
  }
}

TYPED_TEST(ZkeyTest, WriterReproducesSnarkjsBytes) {
  using C = TypeParam;
  for (const bool p : {false, true}) {
    const auto k = zkey<C>::open(this->path(p));
    ASSERT_TRUE(k.is_ok());
    const auto data = key_data_of(*k);
    ASSERT_TRUE(data.is_ok()) << data.error().to_string();
    const std::string out = temp_path("rt.zkey");
    const auto w = write_zkey(out, *data);
    ASSERT_TRUE(w.is_ok()) << w.to_string();
    EXPECT_TRUE(read_bytes(out) == read_bytes(this->path(p)));
    std::filesystem::remove(out);
  }
}

TYPED_TEST(ZkeyTest, WriterSortsAndDefaultsSection10) {
  using C = TypeParam;
  const auto k = zkey<C>::open(this->path());
  auto data = key_data_of(*k).value();
  std::reverse(data.coefs.begin(), data.coefs.end());
  data.cs_hash = {};
  data.n_contributions = 0;
  data.contributions.clear();
  const std::string out = temp_path("sorted.zkey");
  ASSERT_TRUE(write_zkey(out, data).is_ok());
  const auto back = zkey<C>::open(out);
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(back->n_contributions(), 0u);
  EXPECT_TRUE(std::all_of(back->cs_hash().begin(), back->cs_hash().end(), [](uint8_t b) { return b == 0; }));
  for (std::size_t i = 1; i < back->coef_records().size(); ++i) {
    EXPECT_LE(back->coef_records()[i - 1].constraint, back->coef_records()[i].constraint);
  }
  // Sections 1..9 other than the coefficients' order are unchanged.
  const auto a = split_sections(read_bytes(out)), b = split_sections(read_bytes(this->path()));
  for (uint32_t id : {1u, 2u, 3u, 5u, 6u, 7u, 8u, 9u}) {
    EXPECT_TRUE(find_section(const_cast<std::vector<raw_section>&>(a), id).payload ==
                find_section(const_cast<std::vector<raw_section>&>(b), id).payload)
        << "section " << id;
  }
  std::filesystem::remove(out);

  data.h.pop_back();
  EXPECT_FORMAT_ERROR(write_zkey(out, data), errc::invalid_argument, "h has 7 points", "domainSize = 8");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TYPED_TEST(ZkeyTest, SectionSizeMismatch) {
  auto secs = this->sections();
  auto& a = find_section(secs, zkey_a).payload;
  a.resize(a.size() - this->g1_size);
  EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "k.zkey", "section 5 (A)",
                      ("expected " + std::to_string(9 * this->g1_size) + " bytes").c_str(), "nVars = 9",
                      ("found " + std::to_string(8 * this->g1_size)).c_str());
  secs = this->sections();
  find_section(secs, zkey_coefs).payload.push_back(0);
  EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "section 4 (coefs)",
                      "expected 444 bytes", "found 445");
  secs = this->sections();
  find_section(secs, zkey_h).payload.resize(4 * this->g1_size);
  EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "section 9 (H)", "domainSize = 8");
}

TYPED_TEST(ZkeyTest, DuplicatedAndMissingSections) {
  auto secs = this->sections();
  secs.push_back(find_section(secs, zkey_b2));
  EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "k.zkey", "section 7 (B2)",
                      "duplicated");
  secs = this->sections();
  secs.erase(std::find_if(secs.begin(), secs.end(), [](const raw_section& s) { return s.type == zkey_c; }));
  EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "k.zkey", "section 8 (C)", "missing");
  // Order does not matter: snarkjs's `zkey new` order opens as well as 1..10.
  secs = this->sections();
  std::vector<raw_section> shuffled;
  for (uint32_t id : {1u, 2u, 4u, 3u, 9u, 8u, 5u, 6u, 7u, 10u}) shuffled.push_back(find_section(secs, id));
  const auto k = this->open_modified(shuffled);
  ASSERT_TRUE(k.is_ok()) << k.error().to_string();
  EXPECT_TRUE(k->validate_points(subgroup_check::check).is_ok());
}

TYPED_TEST(ZkeyTest, HeaderRejections) {
  using C = TypeParam;
  const std::size_t at = this->alpha1_at;
  {  // coordinate >= q (stored Montgomery x of alpha1 = q)
    auto secs = this->sections();
    C::fq::modulus.to_bytes_le(find_section(secs, zkey_header).payload.data() + at);
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::out_of_range, "k.zkey", "section 2 (header)",
                        "alpha1", "G1 x", "not below the modulus q");
  }
  {  // off the curve: y of delta2 changed
    auto secs = this->sections();
    auto& h = find_section(secs, zkey_header).payload;
    h[at + 3 * this->g1_size + 3 * this->g2_size - 2 * this->nq] ^= 1;
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::not_on_curve, "k.zkey", "delta2",
                        "not on the curve");
  }
  {  // protocol 2
    auto secs = this->sections();
    find_section(secs, zkey_protocol).payload[0] = 2;
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::unsupported, "k.zkey", "protocol 2 (PLONK)");
  }
  {  // domainSize not a power of two
    auto secs = this->sections();
    find_section(secs, zkey_header).payload[at - 4] = 6;
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "k.zkey", "domainSize 6");
  }
  {  // r of the other curve: q and r disagree
    auto secs = this->sections();
    const auto other_r = std::is_same_v<C, bn254> ? bls12_381::fr::modulus : bn254::fr::modulus;
    other_r.to_bytes_le(find_section(secs, zkey_header).payload.data() + 4 + this->nq + 4);
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::format_error, "k.zkey", "q is", "but r is");
  }
  {  // a prime of neither curve
    auto secs = this->sections();
    find_section(secs, zkey_header).payload[4] ^= 2;
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::unsupported, "k.zkey", "base field prime q",
                        "neither");
  }
}

TYPED_TEST(ZkeyTest, WrongCurve) {
  using C = TypeParam;
  using other = std::conditional_t<std::is_same_v<C, bn254>, bls12_381, bn254>;
  EXPECT_FORMAT_ERROR(zkey<other>::open(this->path()), errc::invalid_argument, "circuit.zkey",
                      (std::string("a ") + C::name + " key, read as " + other::name).c_str());
}

TYPED_TEST(ZkeyTest, BadPointsInSections) {
  using C = TypeParam;
  {  // A[1] off the curve: open is fine (sections are not scanned), validate_points is not
    auto secs = this->sections();
    find_section(secs, zkey_a).payload[this->g1_size + this->nq] ^= 1;
    const auto k = this->open_modified(secs);
    ASSERT_TRUE(k.is_ok());
    EXPECT_FORMAT_ERROR(k->validate_points(subgroup_check::skip), errc::not_on_curve, "k.zkey",
                        "section 5 (A)", "point 1");
  }
  {  // H[5].x >= q
    auto secs = this->sections();
    C::fq::modulus.to_bytes_le(find_section(secs, zkey_h).payload.data() + 5 * this->g1_size);
    const auto k = this->open_modified(secs);
    ASSERT_TRUE(k.is_ok());
    EXPECT_FORMAT_ERROR(k->validate_points(subgroup_check::skip), errc::out_of_range, "section 9 (H)",
                        "point 5", "not below the modulus q");
  }
  {  // B2[2] on the twist but outside G2
    std::mt19937_64 rng(7);
    typename g2_group<C>::affine p;
    do {
      p = ec::testing::random_curve_point<g2_group<C>>(rng);
    } while (g2_group<C>::in_subgroup_given_on_curve(p));
    auto secs = this->sections();
    std::memcpy(find_section(secs, zkey_b2).payload.data() + 2 * this->g2_size, &p, sizeof(p));
    const auto k = this->open_modified(secs);
    ASSERT_TRUE(k.is_ok());
    EXPECT_TRUE(k->validate_points(subgroup_check::skip).is_ok());
    EXPECT_FORMAT_ERROR(k->validate_points(subgroup_check::check), errc::not_in_subgroup, "section 7 (B2)",
                        "point 2");
  }
  {  // IC is checked at open
    auto secs = this->sections();
    find_section(secs, zkey_ic).payload[this->nq] ^= 1;
    EXPECT_FORMAT_ERROR(this->open_modified(secs), errc::not_on_curve, "k.zkey", "section 3 (IC)", "point 0");
  }
}

TYPED_TEST(ZkeyTest, BadCoefficientRecords) {
  using C = TypeParam;
  const auto with = [&](std::size_t record, std::size_t field_at, const std::vector<uint8_t>& bytes) {
    auto secs = this->sections();
    auto& c = find_section(secs, zkey_coefs).payload;
    std::copy(bytes.begin(), bytes.end(),
              c.begin() + static_cast<std::ptrdiff_t>(4 + record * 44 + field_at));
    return this->open_modified(secs).value();
  };
  const auto k1 = with(3, 0, {2, 0, 0, 0});
  EXPECT_FORMAT_ERROR(k1.coef(3), errc::out_of_range, "k.zkey", "section 4 (coefs)", "record 3", "matrix 2");
  EXPECT_FORMAT_ERROR(k1.validate_coefs(), errc::out_of_range, "record 3");
  EXPECT_FORMAT_ERROR(with(1, 4, {8, 0, 0, 0}).coef(1), errc::out_of_range, "record 1", "constraint 8",
                      "domainSize = 8");
  EXPECT_FORMAT_ERROR(with(2, 8, {9, 0, 0, 0}).coef(2), errc::out_of_range, "record 2", "signal 9",
                      "nVars = 9");
  std::vector<uint8_t> r(32);
  C::fr::modulus.to_bytes_le(r.data());
  const auto k4 = with(4, 12, r);
  EXPECT_FORMAT_ERROR(k4.coef(4), errc::out_of_range, "record 4", "not below r");
  EXPECT_TRUE(k4.coef(3).is_ok());
}

}  // namespace
}  // namespace cuzk::formats
