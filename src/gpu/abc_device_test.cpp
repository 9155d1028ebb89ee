// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis on the device (abc_device.hpp) against the CPU's synth::evaluate_abc, for both curves:
// a, b and c must be equal element for element. Random matrices with the shapes real keys have
// and the edges the kernel must get right: empty rows, one-entry rows, a row of 3000 entries,
// A and B with different row counts, a domain longer than both (padding rows must be zero), a
// witness with zeros (skipped), ones and r - 1, and a size of one row. Without a CUDA device
// every test is skipped with a message.
#include "gpu/abc_device.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu/device_test_util.hpp"
#include "synth/csr_matrix.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::gpu {
namespace {

template <class C>
class abc_device_test : public ::testing::Test {};
using curves = ::testing::Types<bn254, bls12_381>;
TYPED_TEST_SUITE(abc_device_test, curves);

template <class Fr>
synth::csr_matrix<Fr> random_matrix(std::size_t rows, std::size_t n_vars, std::mt19937_64& rng) {
  std::vector<synth::triplet<Fr>> t;
  for (std::size_t r = 0; r < rows; ++r) {
    std::size_t len = rng() % 9;  // 0..8, so about one row in nine is empty
    if (r == rows / 2) len = 3000;
    if (r == 1) len = 1;
    for (std::size_t k = 0; k < len; ++k)
      t.push_back({static_cast<uint32_t>(r), static_cast<uint32_t>(rng() % n_vars), Fr::random(rng)});
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
void expect_same_abc(std::size_t a_rows, std::size_t b_rows, std::size_t n, std::size_t n_vars, uint64_t seed) {
  using Fr = typename C::fr;
  using repr = typename Fr::repr;
  SCOPED_TRACE("rows " + std::to_string(a_rows) + "/" + std::to_string(b_rows) + ", n " + std::to_string(n));
  std::mt19937_64 rng(seed);
  synth::constraint_matrices<Fr> m;
  m.a = random_matrix<Fr>(a_rows, n_vars, rng);
  m.b = random_matrix<Fr>(b_rows, n_vars, rng);
  m.n_vars = n_vars;
  m.domain_size = n;
  const auto w = random_witness<Fr>(n_vars, rng);

  std::vector<Fr> cpu(3 * n);
  const status st = synth::evaluate_abc<Fr>(m, w, {cpu.data(), n}, {cpu.data() + n, n}, {cpu.data() + 2 * n, n},
                                            thread_pool::global());
  ASSERT_TRUE(st.is_ok()) << st.to_string();

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto dm = device_constraint_matrices<Fr>::create(m);
  ASSERT_TRUE(dm.is_ok()) << dm.error().to_string();
  EXPECT_EQ(dm->rows(), std::max(a_rows, b_rows));
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
}

TYPED_TEST(abc_device_test, equals_cpu_synthesis) {
  CUZK_REQUIRE_GPU();
  expect_same_abc<TypeParam>(1, 1, 1, 1, 1);
  expect_same_abc<TypeParam>(300, 250, 512, 200, 2);
  expect_same_abc<TypeParam>(250, 257, 257, 1000, 3);
  expect_same_abc<TypeParam>(4095, 4095, 4096, 5000, 4);
  expect_same_abc<TypeParam>(70000, 65536, 131072, 100000, 5);
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
}

}  // namespace
}  // namespace cuzk::gpu
