// SPDX-License-Identifier: MIT OR Apache-2.0
// The device field (fp_device.cuh) against the CPU field (ff/fp.hpp), for all four fields of the
// two curves: a million random products, sums and differences (and squares, negations, doublings;
// inverses on fewer values, the CPU's Fermat inverse being slow)
// computed on the GPU must equal the CPU's bit for bit, as must every pair of a table of edge
// values (0, 1, p-1, values at 32- and 64-bit limb boundaries, in canonical and in raw Montgomery
// form). The CPU field is itself checked against GMP (ff/fp_test.cpp), so it is the oracle here.
//
// Also reports the device multiplication rate (multiplications per second), checking that the
// timed kernel computed a*b^rounds correctly.
//
// Without a CUDA device every test is skipped with a message; CI builds this but has no GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/device.hpp"
#include "gpu/device_test_util.hpp"
#include "gpu/field_batch.hpp"

namespace cuzk::gpu {
namespace {

template <class F>
struct field_name;
template <>
struct field_name<bn254::fq> {
  static constexpr const char* value = "bn254_fq";
};
template <>
struct field_name<bn254::fr> {
  static constexpr const char* value = "bn254_fr";
};
template <>
struct field_name<bls12_381::fq> {
  static constexpr const char* value = "bls12_381_fq";
};
template <>
struct field_name<bls12_381::fr> {
  static constexpr const char* value = "bls12_381_fr";
};

struct field_names {
  template <class F>
  static std::string GetName(int) {
    return field_name<F>::value;
  }
};

const char* op_name(field_op op) {
  switch (op) {
    case field_op::mul: return "mul";
    case field_op::add: return "add";
    case field_op::sub: return "sub";
    case field_op::sqr: return "sqr";
    case field_op::neg: return "neg";
    case field_op::dbl: return "dbl";
    case field_op::inv: return "inv";
  }
  return "?";
}

template <class F>
F cpu_op(field_op op, const F& a, const F& b) {
  switch (op) {
    case field_op::mul: return a * b;
    case field_op::add: return a + b;
    case field_op::sub: return a - b;
    case field_op::sqr: return a.sqr();
    case field_op::neg: return -a;
    case field_op::dbl: return a.dbl();
    case field_op::inv: return a.inverse();
  }
  return F::zero();
}

constexpr field_op all_ops[] = {field_op::mul, field_op::add, field_op::sub,
                                field_op::sqr, field_op::neg, field_op::dbl};

// Runs `op` on the GPU over (a[i], b[i]) and compares with the CPU; reports the first mismatches.
template <class F>
void expect_matches_cpu(field_op op, const std::vector<F>& a, const std::vector<F>& b) {
  ASSERT_EQ(a.size(), b.size());
  std::vector<F> got(a.size());
  const status st = field_batch<F>(0, op, a.data(), b.data(), got.data(), a.size());
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const F want = cpu_op(op, a[i], b[i]);
    if (got[i] == want) continue;
    if (++bad <= 5) {
      ADD_FAILURE() << op_name(op) << " #" << i << ": a=" << a[i].to_hex() << " b=" << b[i].to_hex()
                    << "\n  cpu: " << want.to_hex() << " (mont " << want.montgomery().to_hex() << ")"
                    << "\n  gpu: mont " << got[i].montgomery().to_hex();
    }
  }
  EXPECT_EQ(bad, 0u) << op_name(op) << ": " << bad << " of " << a.size() << " results differ";
}

// 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, and values at every 32-bit word boundary, both as canonical
// integers (converted to Montgomery form) and as raw Montgomery words (which exercise the device's
// carry chains at those boundaries directly).
template <class F>
std::vector<F> edge_values() {
  using repr = typename F::repr;
  std::vector<repr> raw;
  const repr p = F::modulus;
  auto sub_small = [](repr v, uint64_t s) {
    v.sub_in_place(repr::from_u64(s));
    return v;
  };
  raw.push_back(repr::from_u64(0));
  raw.push_back(repr::from_u64(1));
  raw.push_back(repr::from_u64(2));
  raw.push_back(sub_small(p, 1));
  raw.push_back(sub_small(p, 2));
  repr half = sub_small(p, 1);
  half.shr1();
  raw.push_back(half);
  repr half_up = half;
  half_up.add_in_place(repr::from_u64(1));
  raw.push_back(half_up);
  raw.push_back(F::r1);
  for (std::size_t k = 32; k < F::bits; k += 32) {
    repr b;
    b.limb[k / 64] = uint64_t{1} << (k % 64);  // 2^k
    raw.push_back(b);
    raw.push_back(sub_small(b, 1));  // all ones below bit k
    repr b1 = b;
    b1.add_in_place(repr::from_u64(1));
    raw.push_back(b1);
    // p with the words below bit k cleared, and with them all ones (if still < p).
    repr hi = p;
    for (std::size_t i = 0; i < k; ++i) hi.limb[i / 64] &= ~(uint64_t{1} << (i % 64));
    raw.push_back(hi);
    repr hi_ones = hi;
    hi_ones.add_in_place(sub_small(b, 1));
    raw.push_back(hi_ones);
  }
  std::vector<F> out;
  for (const repr& v : raw) {
    if (v >= p) continue;
    out.push_back(F::from_canonical_unchecked(v));
    out.push_back(F::from_montgomery(v));
  }
  return out;
}

template <class F>
class GpuField : public ::testing::Test {
 protected:
  std::mt19937_64 rng{0x6075EEDULL ^ F::modulus.limb[0]};

  std::vector<F> random_values(std::size_t n) {
    std::vector<F> v(n);
    for (auto& x : v) x = F::random(rng);
    return v;
  }
};

using Fields = ::testing::Types<bn254::fq, bn254::fr, bls12_381::fq, bls12_381::fr>;
TYPED_TEST_SUITE(GpuField, Fields, field_names);

TYPED_TEST(GpuField, MillionRandomValuesMatchCpu) {
  CUZK_REQUIRE_GPU();
  constexpr std::size_t n = 1 << 20;
  const auto a = this->random_values(n);
  const auto b = this->random_values(n);
  for (field_op op : all_ops) expect_matches_cpu(op, a, b);
}

TYPED_TEST(GpuField, EdgeValuesMatchCpu) {
  CUZK_REQUIRE_GPU();
  using F = TypeParam;
  const auto e = edge_values<F>();
  std::vector<F> a, b;
  for (const F& x : e) {
    for (const F& y : e) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (field_op op : all_ops) expect_matches_cpu(op, a, b);
}

// The device inverse (binary extended Euclid plus two products by R^2) against the CPU's Fermat
// inverse: random values (fewer than above: the CPU oracle is the slow side) and the edge values,
// 0 among them (its inverse is 0 on both sides).
TYPED_TEST(GpuField, InverseMatchesCpu) {
  CUZK_REQUIRE_GPU();
  auto a = this->random_values(1 << 14);
  for (const auto& e : edge_values<TypeParam>()) a.push_back(e);
  expect_matches_cpu(field_op::inv, a, a);
}

TYPED_TEST(GpuField, InvalidArgumentsAreErrors) {
  CUZK_REQUIRE_GPU();
  using F = TypeParam;
  F x = F::one();
  const status st = field_batch<F>(0, field_op::mul, &x, nullptr, &x, 1);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  const status bad_device = field_batch<F>(1 << 20, field_op::add, &x, &x, &x, 1);
  EXPECT_EQ(bad_device.code(), errc::cuda_error);
  EXPECT_NE(bad_device.message().find("cudaSetDevice"), std::string::npos) << bad_device.message();
}

// Rate of a*b^rounds chains, 2^20 threads. Checks a sample of the results, then prints
// "gpu_field_mul field=... device=... muls_per_s=..." for the record (docs/BENCHMARKS.md).
TYPED_TEST(GpuField, MulThroughput) {
  CUZK_REQUIRE_GPU();
  using F = TypeParam;
  constexpr std::size_t n = 1 << 20;
  constexpr unsigned rounds = 256;
  const auto a = this->random_values(n);
  const auto b = this->random_values(n);
  std::vector<F> out(n);
  const auto rate = field_mul_rate<F>(0, a.data(), b.data(), out.data(), n, rounds);
  ASSERT_TRUE(rate.is_ok()) << rate.error().to_string();
  for (std::size_t i = 0; i < n; i += n / 64) EXPECT_EQ(out[i], a[i] * b[i].pow(rounds)) << "element " << i;
  const auto desc = device_description(0);
  std::printf("gpu_field_mul field=%s device=\"%s\" n=%zu rounds=%u muls_per_s=%.4g\n", field_name<F>::value,
              desc.is_ok() ? desc->c_str() : "?", n, rounds, *rate);
  ::testing::Test::RecordProperty("muls_per_s", std::to_string(*rate));
}

}  // namespace
}  // namespace cuzk::gpu
