// SPDX-License-Identifier: MIT OR Apache-2.0
// The values' dictionary (value_dictionary.hpp) and the one build_csr finds: every distinct value
// once, in the order first met, consecutive repeats and repeats far apart alike; none past the
// limit; each value's index is its place in the table; a build's dictionary holds exactly the
// values of its entries after the rows' merge (a sum that makes a new value, a cancelled entry's
// value gone).
#include "synth/value_dictionary.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "curves/per_curve_test.hpp"
#include "synth/csr_matrix.hpp"

namespace cuzk::synth {
namespace {

template <class Curve>
using value_dictionary_test = per_curve_test<Curve>;
TYPED_TEST_SUITE(value_dictionary_test, both_curves);

TYPED_TEST(value_dictionary_test, distinct_values_in_the_order_first_met) {
  using Fr = typename TypeParam::fr;
  const Fr one = Fr::one(), minus = -Fr::one(), two = Fr::from_uint(2);
  const std::vector<Fr> values = {one, one, minus, one, two, two, minus, Fr::zero(), one};
  const auto d = distinct_values<Fr>(values);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, (std::vector<Fr>{one, minus, two, Fr::zero()}));
  const value_index<Fr> index(*d);
  for (std::size_t i = 0; i < d->size(); ++i) EXPECT_EQ(index.of((*d)[i]), static_cast<uint16_t>(i));
  EXPECT_FALSE(index.of(Fr::from_uint(3)).has_value());
  EXPECT_EQ(distinct_values<Fr>(std::span<const Fr>{}), std::vector<Fr>{});

  // Every entry's index, repeats near and far (through the cache of recent values) alike.
  std::vector<uint16_t> out(values.size(), 0xffff);
  ASSERT_TRUE(index.indexes(values, out.data()));
  for (std::size_t k = 0; k < values.size(); ++k) EXPECT_EQ((*d)[out[k]], values[k]) << "entry " << k;
  const std::vector<Fr> stray = {one, Fr::from_uint(3)};
  EXPECT_FALSE(index.indexes(stray, out.data()));
}

// Many values over a table of 1,000, in runs and patterns and at random: each index names its value.
TYPED_TEST(value_dictionary_test, indexes_of_many_values_name_them) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(9);
  std::vector<Fr> set;
  for (int i = 0; i < 1000; ++i) set.push_back(Fr::random(rng));
  std::vector<Fr> values;
  for (int i = 0; i < 200000; ++i) values.push_back(i % 3 == 0 ? set[rng() % set.size()] : set[i % 7]);
  const auto d = distinct_values<Fr>(values);
  ASSERT_TRUE(d.has_value());
  std::vector<uint16_t> out(values.size());
  ASSERT_TRUE(value_index<Fr>(*d).indexes(values, out.data()));
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < values.size(); ++k) wrong += (*d)[out[k]] == values[k] ? 0 : 1;
  EXPECT_EQ(wrong, 0u);
}

TYPED_TEST(value_dictionary_test, none_past_the_limit) {
  using Fr = typename TypeParam::fr;
  std::vector<Fr> values;
  for (uint64_t i = 0; i < 10; ++i) values.push_back(Fr::from_uint(i % 5));
  EXPECT_EQ(distinct_values<Fr>(values, 5)->size(), 5u);
  values.push_back(Fr::from_uint(99));
  EXPECT_FALSE(distinct_values<Fr>(values, 5).has_value());
  // At the real limit: a table of exactly max_dictionary_values is kept (its last index is
  // 65535), one value more is not.
  std::mt19937_64 rng(3);
  std::vector<Fr> many;
  for (std::size_t i = 0; i < max_dictionary_values; ++i) many.push_back(Fr::random(rng));
  many.push_back(many[12345]);
  const auto full = distinct_values<Fr>(many);
  ASSERT_TRUE(full.has_value());
  ASSERT_EQ(full->size(), max_dictionary_values);
  EXPECT_EQ(value_index<Fr>(*full).of(many[max_dictionary_values - 1]), uint16_t{65535});
  many.push_back(Fr::random(rng));
  EXPECT_FALSE(distinct_values<Fr>(many).has_value());
}

// On a pool, in pieces: the same table in the same order as on one thread, for values spread
// over the pieces (a value first met in a late piece, values met again in later pieces), on 1 and
// 4 threads, and none past the limit where no piece alone passes it but the pieces together do.
TYPED_TEST(value_dictionary_test, the_table_found_in_pieces_is_the_one_threads) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(11);
  std::vector<Fr> set;
  for (int i = 0; i < 300; ++i) set.push_back(Fr::random(rng));
  std::vector<Fr> values;
  for (int i = 0; i < 50'000; ++i) {
    const std::size_t reach = 1 + static_cast<std::size_t>(i) * set.size() / 50'000;  // new values keep coming
    values.push_back(i % 4 == 0 ? set[rng() % reach] : set[static_cast<std::size_t>(i) % 5]);
  }
  values.push_back(Fr::from_uint(123456789));  // last, in the last piece alone
  const auto one_thread = distinct_values<Fr>(values);
  ASSERT_TRUE(one_thread.has_value());
  thread_pool one(1), four(4);
  for (thread_pool* pool : {&one, &four})
    for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, values.size()}) {
      const auto split = distinct_values_on<Fr>(*pool, values, max_dictionary_values, piece);
      ASSERT_TRUE(split.has_value()) << "piece " << piece;
      EXPECT_EQ(*split, *one_thread) << "piece " << piece << ", threads " << pool->size();
    }
  // 300 values and the late one: a limit of 301 holds them, 300 does not, though every piece of
  // 4096 holds fewer.
  EXPECT_EQ(distinct_values_on<Fr>(four, values, one_thread->size(), 4096)->size(), one_thread->size());
  EXPECT_FALSE(distinct_values_on<Fr>(four, values, one_thread->size() - 1, 4096).has_value());
  EXPECT_FALSE(distinct_values_on<Fr>(four, values, 3, 4096).has_value());  // the first piece alone passes it
}

// A build is the same, dictionary and all, however the pool's threads placed the entries.
TYPED_TEST(value_dictionary_test, builds_from_the_same_triplets_are_the_same) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(13);
  const std::vector<Fr> coefficients = {Fr::one(), -Fr::one(), Fr::from_uint(2), Fr::random(rng)};
  std::vector<triplet<Fr>> t;
  for (int i = 0; i < 300'000; ++i)
    t.push_back({static_cast<uint32_t>(rng() % 3000), static_cast<uint32_t>(rng() % 40),
                 coefficients[rng() % coefficients.size()]});
  const auto first = build_csr<Fr>(3000, 40, t.size(), [&](std::size_t i) { return t[i]; });
  for (int again = 0; again < 3; ++again) {
    const auto m = build_csr<Fr>(3000, 40, t.size(), [&](std::size_t i) { return t[i]; });
    EXPECT_EQ(m.row_start, first.row_start);
    EXPECT_EQ(m.col, first.col);
    EXPECT_EQ(m.value, first.value);
    EXPECT_EQ(m.dictionary, first.dictionary);
  }
}

TYPED_TEST(value_dictionary_test, a_build_holds_the_merged_entries_values) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(5);
  const std::vector<Fr> coefficients = {Fr::one(), -Fr::one(), Fr::from_uint(2), Fr::from_uint(4)};
  std::vector<triplet<Fr>> t;
  for (uint32_t r = 0; r < 2000; ++r)
    for (uint32_t k = 0; k < 1 + rng() % 6; ++k)
      t.push_back({r, static_cast<uint32_t>(rng() % 50), coefficients[rng() % coefficients.size()]});
  t.push_back({7, 3, Fr::from_uint(1000)});  // alone: a value of its own
  t.push_back({9, 4, Fr::from_uint(77)});
  t.push_back({9, 4, -Fr::from_uint(77)});  // cancels: 77 must not be in the table
  const auto m = build_csr<Fr>(2000, 50, t.size(), [&](std::size_t i) { return t[i]; });
  ASSERT_TRUE(m.dictionary.has_value());
  const std::set<std::vector<uint64_t>> in_table = [&] {
    std::set<std::vector<uint64_t>> s;
    for (const Fr& v : *m.dictionary)
      s.insert({std::begin(v.montgomery().limb), std::end(v.montgomery().limb)});
    return s;
  }();
  std::set<std::vector<uint64_t>> in_entries;
  for (const Fr& v : m.value)
    in_entries.insert({std::begin(v.montgomery().limb), std::end(v.montgomery().limb)});
  EXPECT_EQ(in_table, in_entries);
  EXPECT_EQ(m.dictionary->size(), in_table.size());  // each once
  EXPECT_EQ(m.bytes(), m.row_start.size() * 8 + m.nnz() * 36 + m.dictionary->size() * sizeof(Fr));

  // Every value distinct and more of them than a table holds: none.
  std::vector<triplet<Fr>> dense;
  for (uint32_t r = 0; r < max_dictionary_values + 1; ++r) dense.push_back({r, 0, Fr::random(rng)});
  const auto d = build_csr<Fr>(dense.size(), 1, dense.size(), [&](std::size_t i) { return dense[i]; });
  EXPECT_FALSE(d.dictionary.has_value());
}

}  // namespace
}  // namespace cuzk::synth
