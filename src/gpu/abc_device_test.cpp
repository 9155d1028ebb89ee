// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis on the device (abc_device.hpp) against the CPU's synth::evaluate_abc, for both curves:
// a, b and c must be equal element for element. Random matrices with the shapes real keys have
// and the edges the kernel must get right: empty rows, one-entry rows, a row of 3000 entries,
// A and B with different row counts, a domain longer than both (padding rows must be zero), a
// witness with zeros (skipped), ones and r - 1, and a size of one row. Each with the matrices'
// values kept in place (random values, all distinct) and as indexes into their dictionaries
// (values from a few, and from 40,000: indexes above 2^15 too), with 4- and 8-byte row offsets,
// and the bytes allocated equal to device_bytes(); a and b alone then c alone equal them too.
// Without a CUDA device every test is skipped
// with a message.
#include "gpu/abc_device.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu/counting_arena.hpp"
#include "gpu/device_test_util.hpp"
#include "synth/csr_matrix.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::gpu {
namespace {

template <class C>
class abc_device_test : public ::testing::Test {};
using curves = ::testing::Types<bn254, bls12_381>;
TYPED_TEST_SUITE(abc_device_test, curves);

// Where the entries' values come from: each random (all distinct: kept in place on the device), or
// drawn from a set of this many (indexes into the dictionary).
struct values_from {
  std::size_t choices = 0;  // 0: each random
};

template <class Fr>
synth::csr_matrix<Fr> random_matrix(std::size_t rows, std::size_t n_vars, std::mt19937_64& rng,
                                    values_from from = {}) {
  std::vector<Fr> set;
  for (std::size_t i = 0; i < from.choices; ++i)
    set.push_back(i == 0 ? Fr::one() : i == 1 ? -Fr::one() : Fr::random(rng));
  auto value = [&] { return set.empty() ? Fr::random(rng) : set[rng() % set.size()]; };
  std::vector<synth::triplet<Fr>> t;
  for (std::size_t r = 0; r < rows; ++r) {
    std::size_t len = rng() % 9;  // 0..8, so about one row in nine is empty
    if (r == rows / 2) len = 3000;
    if (r == 1) len = 1;
    for (std::size_t k = 0; k < len; ++k)
      t.push_back({static_cast<uint32_t>(r), static_cast<uint32_t>(rng() % n_vars), value()});
  }
  return synth::build_csr<Fr>(rows, n_vars, t.size(), [&](std::size_t i) { return t[i]; });
}

template <class Fr>
std::vector<typename Fr::repr> random_witness(std::size_t n_vars, std::mt19937_64& rng) {
  std::vector<typename Fr::repr> w(n_vars);
  for (std::size_t i = 0; i < n_vars; ++i) {
    switch (rng() % 5) {
      case 0:
        w[i] = Fr::zero().to_canonical();
        break;
      case 1:
        w[i] = Fr::one().to_canonical();
        break;
      case 2:
        w[i] = (-Fr::one()).to_canonical();
        break;
      default:
        w[i] = Fr::random(rng).to_canonical();
    }
  }
  w[0] = Fr::one().to_canonical();
  return w;
}

template <class C>
void expect_same_abc(std::size_t a_rows, std::size_t b_rows, std::size_t n, std::size_t n_vars, uint64_t seed,
                     values_from from = {},
                     typename device_constraint_matrices<typename C::fr>::offsets kept = {}) {
  using Fr = typename C::fr;
  using repr = typename Fr::repr;
  using matrices = device_constraint_matrices<Fr>;
  const bool wide = kept == matrices::offsets::wide;
  SCOPED_TRACE("rows " + std::to_string(a_rows) + "/" + std::to_string(b_rows) + ", n " + std::to_string(n) +
               ", values from " + (from.choices == 0 ? "all" : std::to_string(from.choices)) +
               (wide ? ", 8-byte offsets" : ""));
  std::mt19937_64 rng(seed);
  synth::constraint_matrices<Fr> m;
  m.a = random_matrix<Fr>(a_rows, n_vars, rng, from);
  m.b = random_matrix<Fr>(b_rows, n_vars, rng, from);
  m.n_vars = n_vars;
  m.domain_size = n;
  const auto w = random_witness<Fr>(n_vars, rng);

  std::vector<Fr> cpu(3 * n);
  const status st = synth::evaluate_abc<Fr>(m, w, {cpu.data(), n}, {cpu.data() + n, n}, {cpu.data() + 2 * n, n},
                                            thread_pool::global());
  ASSERT_TRUE(st.is_ok()) << st.to_string();

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  counting_arena arena;
  auto dm = matrices::create(m, &arena, kept);
  ASSERT_TRUE(dm.is_ok()) << dm.error().to_string();
  EXPECT_EQ(dm->rows(), std::max(a_rows, b_rows));
  EXPECT_EQ(dm->wide_offsets(), wide);
  // Indexes where the dictionary and the indexes take fewer bytes than the values; so always where
  // the entries are twice the values' choices or more, never where every value is distinct.
  auto saves = [](const synth::csr_matrix<Fr>& x) {
    return x.dictionary && x.dictionary->size() * sizeof(Fr) + x.nnz() * 2 < x.nnz() * sizeof(Fr);
  };
  EXPECT_EQ(dm->a_indexed(), saves(m.a));
  EXPECT_EQ(dm->b_indexed(), saves(m.b));
  if (from.choices != 0 && m.a.nnz() >= 2 * from.choices) {
    EXPECT_TRUE(dm->a_indexed());
  }
  if (from.choices == 0) {
    EXPECT_FALSE(dm->a_indexed() || dm->b_indexed());
  }
  EXPECT_EQ(arena.bytes(), dm->bytes());
  const std::size_t offset_bytes = wide ? 8 : 4;
  auto expected_bytes = [&](const synth::csr_matrix<Fr>& x, bool indexed) {
    return (x.rows + 1) * offset_bytes + x.nnz() * 4 +
           (indexed ? x.nnz() * 2 + x.dictionary->size() * sizeof(Fr) : x.nnz() * sizeof(Fr));
  };
  EXPECT_EQ(dm->bytes(), expected_bytes(m.a, dm->a_indexed()) + expected_bytes(m.b, dm->b_indexed()));
  if (!wide) {
    EXPECT_EQ(matrices::device_bytes(m), dm->bytes());
  }
  auto dw = device_buffer<repr>::create(n_vars);
  auto dabc = device_buffer<Fr>::create(3 * n);
  ASSERT_TRUE(dw.is_ok() && dabc.is_ok());
  ASSERT_TRUE(dw->copy_from_host(w.data(), n_vars).is_ok());
  Fr* d = dabc->data();
  const status ev = dm->evaluate(dw->data(), d, d + n, d + 2 * n, n, nullptr);
  ASSERT_TRUE(ev.is_ok()) << ev.to_string();
  std::vector<Fr> gpu(3 * n);
  ASSERT_TRUE(dabc->copy_to_host(gpu.data(), 3 * n).is_ok());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < 3 * n; ++i) mismatches += gpu[i] == cpu[i] ? 0 : 1;
  EXPECT_EQ(mismatches, 0u) << "of " << 3 * n << " elements";

  // a and b alone, then c alone (a proof with two of them on the device), over stale values.
  std::vector<Fr> stale(3 * n, Fr::from_uint(7));
  ASSERT_TRUE(dabc->copy_from_host(stale.data(), 3 * n).is_ok());
  ASSERT_TRUE(dm->evaluate(dw->data(), d, d + n, nullptr, n, nullptr).is_ok());
  std::vector<Fr> ab(3 * n);
  ASSERT_TRUE(dabc->copy_to_host(ab.data(), 3 * n).is_ok());
  ASSERT_TRUE(dm->evaluate(dw->data(), nullptr, nullptr, d + 2 * n, n, nullptr).is_ok());
  ASSERT_TRUE(dabc->copy_to_host(gpu.data(), 3 * n).is_ok());
  std::size_t ab_mismatches = 0, untouched = 0, c_mismatches = 0;
  for (std::size_t i = 0; i < 2 * n; ++i) ab_mismatches += ab[i] == cpu[i] ? 0 : 1;
  for (std::size_t i = 2 * n; i < 3 * n; ++i) untouched += ab[i] == Fr::from_uint(7) ? 1 : 0;
  for (std::size_t i = 0; i < 3 * n; ++i) c_mismatches += gpu[i] == cpu[i] ? 0 : 1;
  EXPECT_EQ(ab_mismatches, 0u);
  EXPECT_EQ(untouched, n) << "a and b alone must leave c's place as it was";
  EXPECT_EQ(c_mismatches, 0u);
}

TYPED_TEST(abc_device_test, equals_cpu_synthesis) {
  CUZK_REQUIRE_GPU();
  using offsets = typename device_constraint_matrices<typename TypeParam::fr>::offsets;
  for (const std::size_t choices : {std::size_t{0}, std::size_t{5}, std::size_t{40000}}) {
    for (const offsets kept : {offsets::automatic, offsets::wide}) {
      const values_from from{choices};
      expect_same_abc<TypeParam>(1, 1, 1, 1, 1, from, kept);
      expect_same_abc<TypeParam>(300, 250, 512, 200, 2, from, kept);
      expect_same_abc<TypeParam>(250, 257, 257, 1000, 3, from, kept);
      expect_same_abc<TypeParam>(4095, 4095, 4096, 5000, 4, from, kept);
      expect_same_abc<TypeParam>(70000, 65536, 131072, 100000, 5, from, kept);
    }
  }
}

// A matrix whose values changed after its build (its dictionary then lacks one) is refused: its
// index would be wrong.
TYPED_TEST(abc_device_test, refuses_a_value_missing_from_the_dictionary) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(8);
  synth::constraint_matrices<Fr> m;
  m.a = random_matrix<Fr>(500, 40, rng, values_from{3});
  m.b = random_matrix<Fr>(500, 40, rng, values_from{3});
  m.n_vars = 40;
  m.domain_size = 512;
  ASSERT_TRUE(m.b.dictionary.has_value());
  m.b.value[m.b.nnz() / 2] = Fr::from_uint(123456789);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto dm = device_constraint_matrices<Fr>::create(m);
  ASSERT_FALSE(dm.is_ok());
  EXPECT_EQ(dm.error().code(), errc::invalid_argument);
  EXPECT_NE(dm.error().to_string().find("not in the matrix's dictionary"), std::string::npos)
      << dm.error().to_string();
}

TYPED_TEST(abc_device_test, rejects_short_buffers) {
  CUZK_REQUIRE_GPU();
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(6);
  synth::constraint_matrices<Fr> m;
  m.a = random_matrix<Fr>(10, 4, rng);
  m.b = random_matrix<Fr>(10, 4, rng);
  m.n_vars = 4;
  m.domain_size = 16;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto dm = device_constraint_matrices<Fr>::create(m);
  ASSERT_TRUE(dm.is_ok()) << dm.error().to_string();
  auto buf = device_buffer<Fr>::create(3 * 16);
  ASSERT_TRUE(buf.is_ok());
  const auto* w = reinterpret_cast<const typename Fr::repr*>(buf->data());
  const status st = dm->evaluate(w, buf->data(), buf->data() + 9, buf->data() + 18, 9, nullptr);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.to_string().find("at least the matrices' 10 rows"), std::string::npos) << st.to_string();
  // a without b, or no output at all: refused.
  Fr* d = buf->data();
  for (const status& bad : {dm->evaluate(w, d, nullptr, d + 32, 16, nullptr),
                           dm->evaluate(w, nullptr, nullptr, nullptr, 16, nullptr)}) {
    EXPECT_EQ(bad.code(), errc::invalid_argument);
    EXPECT_NE(bad.to_string().find("expected the witness, and a and b, c, or all three"), std::string::npos)
        << bad.to_string();
  }
}

}  // namespace
}  // namespace cuzk::gpu
