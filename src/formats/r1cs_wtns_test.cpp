// SPDX-License-Identifier: MIT OR Apache-2.0
// .r1cs and .wtns on the snarkjs fixtures of both curves: headers as `snarkjs r1cs info` and
// `snarkjs wtns export json` report them, and, as an independent check of both readers, every
// constraint of each circuit holds for its witness (A·w ∘ B·w = C·w in Fr). Then every malformed
// input each reader must refuse, with the file and field in the message.
#include <gtest/gtest.h>

#include "curves/per_curve_test.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

// Facts of the two fixture circuits (tests/data/README.md; snarkjs r1cs info).
struct circuit_facts {
  bool poseidon;
  uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in;
  uint64_t n_labels;
  uint32_t n_constraints;
};
constexpr circuit_facts multiplier{false, 9, 1, 2, 2, 9, 4};
constexpr circuit_facts poseidon{true, 520, 1, 2, 0, 771, 517};

template <class C> using R1csWtnsTest = per_curve_test<C>;
TYPED_TEST_SUITE(R1csWtnsTest, both_curves);

template <class C>
typename C::fr eval(const linear_combination& lc, const wtns& w) {
  using fr = typename C::fr;
  fr acc = fr::zero();
  for (std::size_t i = 0; i < lc.size(); ++i) {
    const auto t = lc[i];
    acc += fr::from_canonical_unchecked(t.coef->integer()) * fr::from_canonical_unchecked(w.value(t.wire));
  }
  return acc;
}

TYPED_TEST(R1csWtnsTest, FixturesSatisfied) {
  using C = TypeParam;
  using fr = typename C::fr;
  for (const auto& facts : {multiplier, poseidon}) {
    const std::string dir = fixture_dir<C>(facts.poseidon);
    const auto r = r1cs::open(dir + "/circuit.r1cs");
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    const auto& h = r->header();
    EXPECT_EQ(h.curve, curve_id_of<C>);
    EXPECT_EQ(h.n8, 32u);
    EXPECT_EQ(h.prime, fr::modulus);
    EXPECT_EQ(h.n_wires, facts.n_wires);
    EXPECT_EQ(h.n_pub_out, facts.n_pub_out);
    EXPECT_EQ(h.n_pub_in, facts.n_pub_in);
    EXPECT_EQ(h.n_prv_in, facts.n_prv_in);
    EXPECT_EQ(h.n_labels, facts.n_labels);
    EXPECT_EQ(h.n_constraints, facts.n_constraints);

    const auto w = wtns::open(dir + "/circuit.wtns");
    ASSERT_TRUE(w.is_ok()) << w.error().to_string();
    EXPECT_EQ(w->header().curve, curve_id_of<C>);
    EXPECT_EQ(w->header().n_witness, facts.n_wires);
    ASSERT_EQ(w->size(), facts.n_wires);
    EXPECT_TRUE(w->validate().is_ok());
    EXPECT_EQ(w->value(0), fr::repr::from_u64(1));
    EXPECT_TRUE(w->check_fits(curve_id_of<C>, facts.n_wires, "k.zkey").is_ok());

    std::size_t n = 0, terms = 0;
    for (const auto& c : r->constraints()) {
      EXPECT_EQ(eval<C>(c.a, *w) * eval<C>(c.b, *w), eval<C>(c.c, *w)) << dir << " constraint " << n;
      terms += c.a.size() + c.b.size() + c.c.size();
      ++n;
    }
    EXPECT_EQ(n, facts.n_constraints);
    EXPECT_GT(terms, n);
  }
  // The multiplier's public signals [out, c, d], as its public.json has them.
  const auto w = wtns::open(fixture_dir<C>(false) + "/circuit.wtns");
  EXPECT_EQ(w->value(1), fr::repr::from_u64(172));
  EXPECT_EQ(w->value(2), fr::repr::from_u64(5));
  EXPECT_EQ(w->value(3), fr::repr::from_u64(7));
}

TYPED_TEST(R1csWtnsTest, WitnessAgainstAKey) {
  using C = TypeParam;
  const auto w = wtns::open(fixture_dir<C>(false) + "/circuit.wtns");
  ASSERT_TRUE(w.is_ok());
  const curve_id other = curve_id_of<C> == curve_id::bn254 ? curve_id::bls12_381 : curve_id::bn254;
  EXPECT_FORMAT_ERROR(w->check_fits(curve_id_of<C>, 10, "k.zkey"), errc::invalid_argument, "circuit.wtns",
                      "witness length mismatch", "k.zkey", "nVars = 10");
  EXPECT_FORMAT_ERROR(w->check_fits(other, 9, "k.zkey"), errc::invalid_argument, "circuit.wtns",
                      curve_name(other));
}

TYPED_TEST(R1csWtnsTest, WitnessLengthMismatch) {
  using C = TypeParam;
  auto secs = split_sections(read_bytes(fixture_dir<C>(false) + "/circuit.wtns"));
  auto& values = find_section(secs, 2).payload;
  values.resize(values.size() - 32);
  EXPECT_FORMAT_ERROR(
      wtns::from_binfile(binfile::from_bytes(join_sections("wtns", 2, secs), "w.wtns", "wtns", 2).value()),
      errc::format_error, "w.wtns", "section 2", "witness length mismatch", "9 values (288 bytes)",
      "256 bytes");
}

TYPED_TEST(R1csWtnsTest, WitnessValueNotBelowR) {
  using C = TypeParam;
  auto secs = split_sections(read_bytes(fixture_dir<C>(true) + "/circuit.wtns"));
  auto& values = find_section(secs, 2).payload;
  // w[300] = r: the smallest non-canonical value.
  C::fr::modulus.to_bytes_le(values.data() + 300 * 32);
  const auto w =
      wtns::from_binfile(binfile::from_bytes(join_sections("wtns", 2, secs), "w.wtns", "wtns", 2).value());
  ASSERT_TRUE(w.is_ok());  // checked on demand
  EXPECT_FORMAT_ERROR(w->validate(), errc::out_of_range, "w.wtns", "w[300]", "not below r");
  // An earlier bad value is the one reported.
  std::fill(values.begin() + 100 * 32, values.begin() + 101 * 32, 0xff);
  const auto w2 =
      wtns::from_binfile(binfile::from_bytes(join_sections("wtns", 2, secs), "w.wtns", "wtns", 2).value());
  EXPECT_FORMAT_ERROR(w2->validate(), errc::out_of_range, "w[100]");
}

// A prime of neither curve (the Goldilocks prime, as circom --prime goldilocks writes it).
TYPED_TEST(R1csWtnsTest, PrimeOfNeitherCurve) {
  using C = TypeParam;
  for (const char* file : {"circuit.r1cs", "circuit.wtns"}) {
    const bool is_r1cs = file[8] == 'r';
    auto secs = split_sections(read_bytes(fixture_dir<C>(false) + "/" + file));
    auto& header = find_section(secs, 1).payload;
    std::vector<uint8_t> h{8, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};  // n8 = 8, p = 2^64 - 2^32 + 1
    h.insert(h.end(), header.begin() + 36, header.end());
    header = h;
    const auto b = join_sections(is_r1cs ? "r1cs" : "wtns", is_r1cs ? 1 : 2, secs);
    if (is_r1cs) {
      EXPECT_FORMAT_ERROR(r1cs::from_binfile(binfile::from_bytes(b, file, "r1cs", 1).value()),
                          errc::unsupported, file, "18446744069414584321", "neither bn254's");
    } else {
      EXPECT_FORMAT_ERROR(wtns::from_binfile(binfile::from_bytes(b, file, "wtns", 2).value()),
                          errc::unsupported, file, "18446744069414584321", "neither bn254's");
    }
  }
}

// Offset of constraint 0's A, term 0: section 2 starts with A's count (u32), then (wire, coef).
TYPED_TEST(R1csWtnsTest, WireIdAndCoefficientChecked) {
  using C = TypeParam;
  const auto good = split_sections(read_bytes(fixture_dir<C>(false) + "/circuit.r1cs"));
  {
    auto secs = good;
    auto& cons = find_section(secs, 2).payload;
    const uint32_t wire = 9;  // nWires
    std::memcpy(cons.data() + 4, &wire, 4);
    EXPECT_FORMAT_ERROR(
        r1cs::from_binfile(binfile::from_bytes(join_sections("r1cs", 1, secs), "c.r1cs", "r1cs", 1).value()),
        errc::out_of_range, "c.r1cs", "section 2", "constraint 0 A term 0", "wire id 9", "nWires = 9");
  }
  {
    auto secs = good;
    auto& cons = find_section(secs, 2).payload;
    C::fr::modulus.to_bytes_le(cons.data() + 8);
    EXPECT_FORMAT_ERROR(
        r1cs::from_binfile(binfile::from_bytes(join_sections("r1cs", 1, secs), "c.r1cs", "r1cs", 1).value()),
        errc::out_of_range, "c.r1cs", "constraint 0 A term 0", "coefficient", "not below r");
  }
  {
    auto secs = good;
    find_section(secs, 2).payload.push_back(0);  // one byte too many
    EXPECT_FORMAT_ERROR(
        r1cs::from_binfile(binfile::from_bytes(join_sections("r1cs", 1, secs), "c.r1cs", "r1cs", 1).value()),
        errc::format_error, "c.r1cs", "section 2", "1 more");
  }
  {
    auto secs = good;
    auto& cons = find_section(secs, 2).payload;
    cons.resize(cons.size() - 10);
    EXPECT_FORMAT_ERROR(
        r1cs::from_binfile(binfile::from_bytes(join_sections("r1cs", 1, secs), "c.r1cs", "r1cs", 1).value()),
        errc::format_error, "c.r1cs", "section 2");
  }
  {
    auto secs = good;
    secs.erase(secs.begin());  // section 2 is first in circom's order
    EXPECT_FORMAT_ERROR(
        r1cs::from_binfile(binfile::from_bytes(join_sections("r1cs", 1, secs), "c.r1cs", "r1cs", 1).value()),
        errc::format_error, "c.r1cs", "section 2", "missing");
  }
}

}  // namespace
}  // namespace cuzk::formats
