// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis against a dense, obviously-correct evaluation: random sparse matrices given as
// unsorted records with repeats and empty rows, read both from memory and from the zkey's byte
// layout; error cases name the bad record; results do not depend on the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "curves/per_curve_test.hpp"
#include "synth/constraint_matrices.hpp"
#include "synth/evaluate_abc.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::synth {
namespace {

template <class Curve> using synth_test = per_curve_test<Curve>;
TYPED_TEST_SUITE(synth_test, both_curves);

template <class Fr>
struct random_system {
  std::size_t rows, n_vars, domain;
  std::vector<zkey_coefficient<Fr>> records;
  std::map<std::pair<uint32_t, uint32_t>, Fr> dense[2];  // (row, col) -> true coefficient
  std::vector<typename Fr::repr> witness;                // plain integers, as in a .wtns
};

// Coefficients are small or random; some rows are empty; about a third of the records repeat an
// earlier (matrix, row, col) with a new value, which must add.
template <class Fr>
random_system<Fr> make_random(std::mt19937_64& rng, std::size_t rows, std::size_t n_vars,
                              std::size_t domain) {
  random_system<Fr> s{rows, n_vars, domain, {}, {}, {}};
  for (std::size_t i = 0; i < 6 * rows; ++i) {
    uint32_t matrix = static_cast<uint32_t>(rng() % 2);
    uint32_t row = static_cast<uint32_t>(rng() % rows);
    if (row % 5 == 3) continue;  // empty rows
    uint32_t col = static_cast<uint32_t>(rng() % n_vars);
    if (!s.records.empty() && rng() % 3 == 0) {
      const auto& prev = s.records[rng() % s.records.size()];
      matrix = prev.matrix;
      row = prev.constraint;
      col = prev.signal;
    }
    const Fr c = rng() % 2 ? Fr::from_uint(rng() % 4) : Fr::random(rng);
    s.records.push_back({matrix, row, col, value_times_r(c).montgomery()});
    auto [it, fresh] = s.dense[matrix].try_emplace({row, col}, c);
    if (!fresh) it->second += c;
  }
  // Make sure the last row is present so the row count is known.
  s.records.push_back({0, static_cast<uint32_t>(rows - 1), 0, value_times_r(Fr::one()).montgomery()});
  s.dense[0][{static_cast<uint32_t>(rows - 1), 0}] += Fr::one();
  // Zeros (which evaluation skips) and ones, their neighbours 2 and r - 1, and random values.
  for (std::size_t i = 0; i < n_vars; ++i) {
    const auto kind = rng() % 5;
    const Fr w = kind == 0   ? Fr::zero()
                 : kind == 1 ? Fr::one()
                 : kind == 2 ? Fr::from_uint(2)
                 : kind == 3 ? Fr::zero() - Fr::one()
                             : Fr::random(rng);
    s.witness.push_back(w.to_canonical());
  }
  return s;
}

template <class Fr>
std::vector<Fr> dense_eval(const std::map<std::pair<uint32_t, uint32_t>, Fr>& d, std::size_t len,
                           const std::vector<typename Fr::repr>& w) {
  std::vector<Fr> out(len);
  for (const auto& [rc, c] : d) out[rc.first] += c * *Fr::from_canonical(w[rc.second]);
  return out;
}

template <class Fr>
std::vector<uint8_t> encode_section(const std::vector<zkey_coefficient<Fr>>& recs) {
  std::vector<uint8_t> out;
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put32(static_cast<uint32_t>(recs.size()));
  for (const auto& r : recs) {
    put32(r.matrix);
    put32(r.constraint);
    put32(r.signal);
    uint8_t buf[Fr::num_bytes];
    r.value.to_bytes_le(buf);
    out.insert(out.end(), buf, buf + Fr::num_bytes);
  }
  return out;
}

TYPED_TEST(synth_test, matches_dense_evaluation) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(1);
  for (const std::size_t rows : {1, 2, 37, 500}) {
    const std::size_t domain = std::bit_ceil(rows) * 2;
    auto s = make_random<Fr>(rng, rows, 1 + rows / 2, domain);
    auto m = matrices_from_records<Fr>(s.records, s.n_vars, s.domain);
    ASSERT_TRUE(m.is_ok()) << m.error().to_string();
    EXPECT_EQ(m->a.rows, rows);
    std::vector<Fr> a(domain, Fr::one()), b(domain, Fr::one()), c(domain, Fr::one());  // overwritten
    ASSERT_TRUE(evaluate_abc<Fr>(*m, s.witness, a, b, c).is_ok());
    const auto ea = dense_eval(s.dense[0], domain, s.witness);
    const auto eb = dense_eval(s.dense[1], domain, s.witness);
    for (std::size_t r = 0; r < domain; ++r) {
      ASSERT_EQ(a[r], ea[r]) << "row " << r;
      ASSERT_EQ(b[r], eb[r]) << "row " << r;
      ASSERT_EQ(c[r], ea[r] * eb[r]) << "row " << r;
    }
  }
}

TYPED_TEST(synth_test, rows_are_sorted_and_merged) {
  using Fr = typename TypeParam::fr;
  const Fr two = Fr::from_uint(2);
  std::vector<zkey_coefficient<Fr>> recs = {
      {0, 1, 3, value_times_r(two).montgomery()},        {0, 1, 0, value_times_r(Fr::one()).montgomery()},
      {0, 1, 3, value_times_r(two).montgomery()},        {1, 0, 2, value_times_r(Fr::one()).montgomery()},
      {1, 0, 2, value_times_r(-Fr::one()).montgomery()},  // cancels: dropped
  };
  auto m = matrices_from_records<Fr>(recs, 4, 4);
  ASSERT_TRUE(m.is_ok());
  ASSERT_EQ(m->a.rows, 2u);
  EXPECT_EQ(m->a.row_cols(0).size(), 0u);
  ASSERT_EQ(m->a.row_cols(1).size(), 2u);
  EXPECT_EQ(m->a.row_cols(1)[0], 0u);
  EXPECT_EQ(m->a.row_cols(1)[1], 3u);
  EXPECT_EQ(m->a.row_values(1)[1], value_times_r(two + two));
  EXPECT_EQ(m->b.nnz(), 0u);
}

// Large enough for the rows' sort and merge to run in many pieces on every thread of the pool: each
// matrix is the records' sums, row by row, sorted by column, with no zero entry; from records with
// repeats (merged, some to zero and dropped) and from records without, shuffled (rows met in no
// order; nothing to compact).
TYPED_TEST(synth_test, a_build_on_many_threads_is_the_sum_of_the_records) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(7);
  const auto s = make_random<Fr>(rng, 50'000, 20'000, std::size_t{1} << 16);
  for (const bool repeats : {true, false}) {
    std::vector<zkey_coefficient<Fr>> records = s.records;
    if (!repeats) {
      records.clear();
      for (uint32_t which = 0; which < 2; ++which)
        for (const auto& [rc, c] : s.dense[which])
          if (!c.is_zero()) records.push_back({which, rc.first, rc.second, value_times_r(c).montgomery()});
      std::shuffle(records.begin(), records.end(), rng);
    }
    auto m = matrices_from_records<Fr>(records, s.n_vars, s.domain);
    ASSERT_TRUE(m.is_ok()) << m.error().to_string();
    for (uint32_t which = 0; which < 2; ++which) {
      const csr_matrix<Fr>& csr = which == 0 ? m->a : m->b;
      std::vector<std::tuple<uint32_t, uint32_t, Fr>> expected, built;
      for (const auto& [rc, c] : s.dense[which])
        if (!c.is_zero()) expected.emplace_back(rc.first, rc.second, value_times_r(c));
      for (std::size_t r = 0; r < csr.rows; ++r)
        for (std::size_t k = csr.row_start[r]; k < csr.row_start[r + 1]; ++k)
          built.emplace_back(static_cast<uint32_t>(r), csr.col[k], csr.value[k]);
      ASSERT_EQ(built.size(), expected.size()) << "matrix " << which << (repeats ? ", repeats" : "");
      for (std::size_t k = 0; k < built.size(); ++k)
        ASSERT_TRUE(built[k] == expected[k]) << "matrix " << which << ", entry " << k << (repeats ? ", repeats" : "");
    }
  }
}

TYPED_TEST(synth_test, zkey_bytes_give_the_same_matrices) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(2);
  auto s = make_random<Fr>(rng, 64, 40, 128);
  const auto bytes = encode_section(s.records);
  auto from_bytes = matrices_from_zkey<Fr>(bytes, s.n_vars, s.domain);
  auto from_mem = matrices_from_records<Fr>(s.records, s.n_vars, s.domain);
  ASSERT_TRUE(from_bytes.is_ok()) << from_bytes.error().to_string();
  EXPECT_EQ(from_bytes->a.row_start, from_mem->a.row_start);
  EXPECT_EQ(from_bytes->a.col, from_mem->a.col);
  EXPECT_EQ(from_bytes->a.value, from_mem->a.value);
  EXPECT_EQ(from_bytes->b.col, from_mem->b.col);
  EXPECT_EQ(from_bytes->b.value, from_mem->b.value);
}

TYPED_TEST(synth_test, bad_records_are_named) {
  using Fr = typename TypeParam::fr;
  const auto one = value_times_r(Fr::one()).montgomery();
  auto expect_error = [](const auto& r, const std::string& needle) {
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error().message().find(needle), std::string::npos) << r.error().to_string();
  };
  std::vector<zkey_coefficient<Fr>> recs = {{0, 0, 0, one}, {2, 0, 0, one}};
  expect_error(matrices_from_records<Fr>(recs, 4, 4), "record 1: matrix");
  recs = {{0, 4, 0, one}};
  expect_error(matrices_from_records<Fr>(recs, 4, 4), "constraint: expected < domainSize 4");
  recs = {{1, 0, 9, one}};
  expect_error(matrices_from_records<Fr>(recs, 4, 4), "signal: expected < nVars 4");
  recs = {{1, 0, 1, Fr::modulus}};
  expect_error(matrices_from_records<Fr>(recs, 4, 4), "value: expected < r");
  auto bytes = encode_section(std::vector<zkey_coefficient<Fr>>{{0, 0, 0, one}});
  bytes.pop_back();
  expect_error(matrices_from_zkey<Fr>(bytes, 4, 4), "size: expected");
  expect_error(matrices_from_zkey<Fr>(std::span<const uint8_t>(bytes.data(), 2), 4, 4), "nCoefs");
}

// The check runs in chunks on the pool: among many records, the error names the lowest bad one,
// whichever chunk finds its own first; no records at all make two empty matrices.
TYPED_TEST(synth_test, the_lowest_bad_record_of_many_is_named_and_none_is_empty) {
  using Fr = typename TypeParam::fr;
  const auto one = value_times_r(Fr::one()).montgomery();
  std::vector<zkey_coefficient<Fr>> recs(100000);
  for (std::size_t i = 0; i < recs.size(); ++i)
    recs[i] = {static_cast<uint32_t>(i % 2), static_cast<uint32_t>(i % 64), static_cast<uint32_t>(i % 7), one};
  recs[70001].signal = 9;  // later, and in another chunk
  recs[30002].matrix = 5;
  auto r = matrices_from_records<Fr>(recs, 8, 64);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.error().message().find("record 30002: matrix"), std::string::npos) << r.error().to_string();
  auto from_bytes = matrices_from_zkey<Fr>(encode_section(recs), 8, 64);
  ASSERT_FALSE(from_bytes.is_ok());
  EXPECT_EQ(from_bytes.error().message(), r.error().message());

  recs[30002].matrix = 1;
  recs[70001].signal = 6;
  auto good = matrices_from_zkey<Fr>(encode_section(recs), 8, 64);
  ASSERT_TRUE(good.is_ok()) << good.error().to_string();
  EXPECT_EQ(good->a.rows, 64u);
  EXPECT_EQ(good->b.rows, 64u);
  EXPECT_GT(good->a.nnz(), 0u);
  EXPECT_GT(good->b.nnz(), 0u);

  auto none = matrices_from_records<Fr>(std::vector<zkey_coefficient<Fr>>{}, 4, 4);
  ASSERT_TRUE(none.is_ok()) << none.error().to_string();
  EXPECT_EQ(none->a.rows, 0u);
  EXPECT_EQ(none->a.nnz(), 0u);
  EXPECT_EQ(none->b.nnz(), 0u);
}

TYPED_TEST(synth_test, bad_buffers_and_witness_are_rejected) {
  using Fr = typename TypeParam::fr;
  std::vector<zkey_coefficient<Fr>> recs = {{0, 3, 1, value_times_r(Fr::one()).montgomery()}};
  auto m = matrices_from_records<Fr>(recs, 2, 8);
  ASSERT_TRUE(m.is_ok());
  std::vector<typename Fr::repr> w(2);
  std::vector<Fr> a(8), b(8), c(7), short_a(3), short_b(3), short_c(3);
  EXPECT_FALSE(evaluate_abc<Fr>(*m, w, a, b, c).is_ok());
  EXPECT_FALSE(evaluate_abc<Fr>(*m, w, short_a, short_b, short_c).is_ok());
  std::vector<typename Fr::repr> w3(3);
  std::vector<Fr> c8(8);
  EXPECT_FALSE(evaluate_abc<Fr>(*m, w3, a, b, c8).is_ok());
  EXPECT_TRUE(evaluate_abc<Fr>(*m, w, a, b, c8).is_ok());
}

TYPED_TEST(synth_test, same_result_on_one_thread) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(3);
  auto s = make_random<Fr>(rng, 20000, 5000, 32768);
  auto m = matrices_from_records<Fr>(s.records, s.n_vars, s.domain);
  ASSERT_TRUE(m.is_ok());
  std::vector<Fr> a(s.domain), b(s.domain), c(s.domain), a1(s.domain), b1(s.domain), c1(s.domain);
  thread_pool one(1), four(4);
  ASSERT_TRUE(evaluate_abc<Fr>(*m, s.witness, a, b, c, four).is_ok());
  ASSERT_TRUE(evaluate_abc<Fr>(*m, s.witness, a1, b1, c1, one).is_ok());
  EXPECT_EQ(a, a1);
  EXPECT_EQ(b, b1);
  EXPECT_EQ(c, c1);
}

// The zkey records of a constraint system, evaluated, give c = a∘b equal to C w row by row for a
// satisfying witness (and zero on the public-input rows and the padding).
template <class Fr>
void expect_c_matches(const constraint_system<Fr>& cs, const std::vector<typename Fr::repr>& witness) {
  ASSERT_TRUE(cs.is_satisfied(witness));
  const auto recs = cs.zkey_records();
  auto m = matrices_from_records<Fr>(recs, cs.n_vars, cs.domain_size());
  ASSERT_TRUE(m.is_ok()) << m.error().to_string();
  EXPECT_EQ(m->a.rows, cs.n_constraints + cs.n_public + 1);
  const std::size_t n = cs.domain_size();
  std::vector<Fr> a(n), b(n), c(n);
  ASSERT_TRUE(evaluate_abc<Fr>(*m, witness, a, b, c).is_ok());
  for (std::size_t r = 0; r < n; ++r) {
    Fr cw = Fr::zero();
    if (r < cs.n_constraints) {
      const auto cols = cs.c.row_cols(r);
      const auto vals = cs.c.row_values(r);
      for (std::size_t k = 0; k < cols.size(); ++k) cw += vals[k] * *Fr::from_canonical(witness[cols[k]]);
    }
    ASSERT_EQ(c[r], cw) << "row " << r;
    if (r >= cs.n_constraints && r <= cs.n_constraints + cs.n_public) {
      EXPECT_EQ(a[r], *Fr::from_canonical(witness[r - cs.n_constraints])) << "public-input row " << r;
    }
  }
}

TYPED_TEST(synth_test, synthetic_circuits_are_satisfied) {
  using Fr = typename TypeParam::fr;
  for (const auto kind : {witness_kind::dense, witness_kind::mostly_boolean}) {
    const auto circuit = make_synthetic_circuit<Fr>(10, kind, 7);
    EXPECT_EQ(circuit.cs.domain_size(), 1024u);
    EXPECT_EQ(circuit.cs.n_vars, circuit.witness.size());
    expect_c_matches(circuit.cs, circuit.witness);
    std::size_t bits = 0;
    for (const auto& v : circuit.witness) bits += v.is_zero() || v == Fr::one().to_canonical();
    if (kind == witness_kind::mostly_boolean) {
      EXPECT_GT(bits, circuit.witness.size() * 8 / 10);
    } else {
      EXPECT_LT(bits, circuit.witness.size() / 10);
    }
    auto bad = circuit.witness;
    bad.back() = Fr::from_uint(5).to_canonical();
    EXPECT_FALSE(circuit.cs.is_satisfied(bad));
  }
  const auto again = make_synthetic_circuit<Fr>(10, witness_kind::dense, 7);
  EXPECT_EQ(again.witness, make_synthetic_circuit<Fr>(10, witness_kind::dense, 7).witness);
}

}  // namespace
}  // namespace cuzk::synth
