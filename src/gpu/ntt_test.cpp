// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU NTT (ntt.hpp) against an O(n^2) DFT written here from the definition
// X_k = sum_i x_i omega_n^(ik), for both scalar fields: every direction x order x domain
// combination at sizes 2^1 .. 2^12 on fresh random inputs, and inverse(forward(x)) == x at 2^20
// (plain and coset, in the pairings that need no permutation). Above 2^12 the oracle is the CPU
// NTT (poly/ntt.hpp, itself tested against a DFT) with the coset steps written out here, for
// every combination at the sizes where the GPU's split into passes changes shape (one pass up to
// 2^10, then two, then three passes; ntt.cuh plan_passes) up to 2^24. Device buffers are poisoned
// (all bytes 0xff, not a field element) before every input copy, so an unwritten output shows.
//
// The butterflies' lazy arithmetic (ntt_lazy.cuh: values in [0, 2p) between stages) is checked
// operation by operation on edge and random values up to 2p (the product's second factor beyond),
// its product against fp_device's and the CPU field.
//
// Without a CUDA device every test is skipped with a message.
#include "gpu/ntt.hpp"

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ff/roots_of_unity.hpp"
#include "gpu/device.hpp"
#include "gpu/device_test_util.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/ntt_lazy.hpp"
#include "poly/ntt.hpp"

namespace cuzk::gpu {
namespace {

std::size_t bitrev(std::size_t i, unsigned bits) {
  std::size_t r = 0;
  for (unsigned b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// The definition, natural order in and out.
template <class Fr>
std::vector<Fr> dft(const std::vector<Fr>& x, unsigned log_n, ntt_direction dir, ntt_domain dom,
                    const Fr& shift) {
  const std::size_t n = x.size();
  Fr w = ff::root_of_unity<Fr>(log_n, 5);
  Fr g = shift;
  if (dir == ntt_direction::inverse) {
    w = w.inverse();
    g = g.inverse();
  }
  std::vector<Fr> pw(n);
  pw[0] = Fr::one();
  for (std::size_t i = 1; i < n; ++i) pw[i] = pw[i - 1] * w;
  std::vector<Fr> in = x;
  if (dir == ntt_direction::forward && dom == ntt_domain::coset) {
    Fr s = Fr::one();
    for (std::size_t i = 0; i < n; ++i, s *= g) in[i] *= s;
  }
  std::vector<Fr> out(n);
  thread_pool::global().parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) {
      Fr acc = Fr::zero();
      for (std::size_t i = 0; i < n; ++i) acc += in[i] * pw[(i * k) & (n - 1)];
      out[k] = acc;
    }
  });
  if (dir == ntt_direction::inverse) {
    Fr n_inv = Fr::from_uint(n).inverse();
    Fr s = Fr::one();
    for (std::size_t i = 0; i < n; ++i) {
      out[i] *= n_inv;
      if (dom == ntt_domain::coset) {
        out[i] *= s;
        s *= g;
      }
    }
  }
  return out;
}

template <class Fr>
std::vector<Fr> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

// Copies `in` to a poisoned device buffer, transforms it, copies it back.
template <class Fr>
std::vector<Fr> run_gpu(const ntt_plan<Fr>& plan, device_buffer<Fr>& buf, const std::vector<Fr>& in,
                        ntt_direction dir, ntt_order order, ntt_domain dom) {
  std::vector<Fr> out(in.size());
  EXPECT_EQ(cudaMemset(buf.data(), 0xff, buf.bytes()), cudaSuccess);
  EXPECT_TRUE(buf.copy_from_host(in.data(), in.size()).is_ok());
  const status st = plan.run(buf.data(), dir, order, dom);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(buf.copy_to_host(out.data(), out.size()).is_ok());
  return out;
}

template <class Fr>
class GpuNtt : public ::testing::Test {};
using fields = ::testing::Types<bn254::fr, bls12_381::fr>;
struct field_names {
  template <class F>
  static std::string GetName(int) {
    return std::is_same_v<F, bn254::fr> ? "bn254_fr" : "bls12_381_fr";
  }
};
TYPED_TEST_SUITE(GpuNtt, fields, field_names);

// The lazy butterfly arithmetic (ntt_lazy.cuh) on raw Montgomery words: each result's range
// (below 2p; canonical below p) and its value mod p against the CPU
// field and, for the product, fp_device's product. Operands: edge values (0, 1, p - 1, words all
// ones or zero, powers of two) lifted by 0 and p, so up to 2p - 1, plus random ones; the product's
// second factor also takes 2p .. 2^256 - 1 (it accepts any 256-bit word).
template <class Fr>
struct lazy_values {
  using repr = typename Fr::repr;
  static repr reduce(repr v) {
    while (!(v < Fr::modulus)) v.sub_in_place(Fr::modulus);
    return v;
  }
  static Fr value(const repr& v) { return Fr::from_montgomery(reduce(v)); }
  static repr raw(const Fr& x) { return x.montgomery(); }
  static repr twice_p() {
    repr r = Fr::modulus;
    r.add_in_place(Fr::modulus);
    return r;
  }
  // Canonical edge values.
  static std::vector<repr> edges() {
    const repr p = Fr::modulus;
    auto minus = [](repr v, uint64_t s) {
      v.sub_in_place(repr::from_u64(s));
      return v;
    };
    std::vector<repr> r = {repr::from_u64(0), repr::from_u64(1), repr::from_u64(2),
                           minus(p, 1),       minus(p, 2),       Fr::r1};
    for (unsigned k = 32; k < 256; k += 32) {
      repr b;
      b.limb[k / 64] = uint64_t{1} << (k % 64);
      if (b < p) r.push_back(b);
      if (minus(b, 1) < p) r.push_back(minus(b, 1));
    }
    return r;
  }
  // Edge values and random ones, each also + p: all of [0, 2p)'s awkward corners.
  static std::vector<repr> below_2p(std::mt19937_64& rng, std::size_t randoms) {
    std::vector<repr> r = edges();
    for (std::size_t i = 0; i < randoms; ++i) r.push_back(raw(Fr::random(rng)));
    const std::size_t m = r.size();
    for (std::size_t i = 0; i < m; ++i) {
      repr v = r[i];
      v.add_in_place(Fr::modulus);
      r.push_back(v);
    }
    return r;
  }
};

template <class Fr>
std::vector<Fr> run_lazy(ntt_lazy_op op, const std::vector<typename Fr::repr>& a,
                         const std::vector<typename Fr::repr>& b) {
  std::vector<Fr> fa, fb, out(a.size());
  for (const auto& v : a) fa.push_back(Fr::from_montgomery(v));
  for (const auto& v : b) fb.push_back(Fr::from_montgomery(v));
  EXPECT_TRUE(ntt_lazy_batch<Fr>(0, op, fa.data(), fb.data(), out.data(), a.size()).is_ok());
  return out;
}

// a, b: every pair (u, v) with u from us and v from vs, appended.
template <class repr>
void append_pairs(const std::vector<repr>& us, const std::vector<repr>& vs, std::vector<repr>& a,
                  std::vector<repr>& b) {
  for (const auto& u : us) {
    for (const auto& v : vs) {
      a.push_back(u);
      b.push_back(v);
    }
  }
}

// op(a[i], b[i]) is below `bound` and, as a field element, a[i] + b[i] (plus) or a[i] - b[i].
template <class Fr>
void expect_sum_or_difference(ntt_lazy_op op, const std::vector<typename Fr::repr>& a,
                              const std::vector<typename Fr::repr>& b, const typename Fr::repr& bound,
                              bool plus) {
  using V = lazy_values<Fr>;
  const auto got = run_lazy<Fr>(op, a, b);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto r = V::raw(got[i]);
    const Fr want = plus ? V::value(a[i]) + V::value(b[i]) : V::value(a[i]) - V::value(b[i]);
    if ((!(r < bound) || V::value(r) != want) && ++bad <= 5)
      ADD_FAILURE() << "op " << static_cast<int>(op) << " wrong at " << i;
  }
  EXPECT_EQ(bad, 0u) << "op " << static_cast<int>(op);
}

TYPED_TEST(GpuNtt, LazyProductMatchesFieldProduct) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  using V = lazy_values<Fr>;
  using repr = typename Fr::repr;
  std::mt19937_64 rng(0x5eed7700 + sizeof(Fr));
  // Twiddles: canonical edge values and random ones, made into Shoup's pairs on the device as the
  // plan makes them; second factors: every value a butterfly multiplies, i.e. below 2p, and beyond
  // (the product's bound holds below 2^256 (1 - 2^-27), ntt_shoup.cuh): 2p and, where 4p fits the
  // words, 4p - 1.
  std::vector<repr> w = V::edges();
  for (int i = 0; i < 64; ++i) w.push_back(V::raw(Fr::random(rng)));
  std::vector<repr> x = V::below_2p(rng, 64);
  x.push_back(V::twice_p());
  repr four_p_minus_1 = V::twice_p();
  if (!four_p_minus_1.add_in_place(V::twice_p())) {
    four_p_minus_1.sub_in_place(repr::from_u64(1));
    x.push_back(four_p_minus_1);
  }
  std::vector<repr> a, b;
  append_pairs(w, x, a, b);
  // And 2^20 random pairs with the second factor lifted to [p, 2p).
  for (int i = 0; i < (1 << 20); ++i) {
    a.push_back(V::raw(Fr::random(rng)));
    repr v = V::raw(Fr::random(rng));
    v.add_in_place(Fr::modulus);
    b.push_back(v);
  }
  const auto got = run_lazy<Fr>(ntt_lazy_op::mul, a, b);
  std::vector<Fr> fa, fb, dev(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    fa.push_back(Fr::from_montgomery(a[i]));
    fb.push_back(V::value(b[i]));
  }
  ASSERT_TRUE(field_batch<Fr>(0, field_op::mul, fa.data(), fb.data(), dev.data(), a.size()).is_ok());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const repr r = V::raw(got[i]);
    const bool ok = r < V::twice_p() && V::value(r) == dev[i] && dev[i] == fa[i] * fb[i];
    if (!ok && ++bad <= 5) ADD_FAILURE() << "lazy product wrong at " << i;
  }
  EXPECT_EQ(bad, 0u);
}

TYPED_TEST(GpuNtt, LazySumDifferenceCanonical) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  using V = lazy_values<Fr>;
  using repr = typename Fr::repr;
  std::mt19937_64 rng(0x5eed7800 + sizeof(Fr));
  const std::vector<repr> x = V::below_2p(rng, 256);
  std::vector<repr> a, b;
  append_pairs(x, x, a, b);
  expect_sum_or_difference<Fr>(ntt_lazy_op::add, a, b, V::twice_p(), true);
  expect_sum_or_difference<Fr>(ntt_lazy_op::sub, a, b, V::twice_p(), false);
  const auto got = run_lazy<Fr>(ntt_lazy_op::canonical, x, x);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(V::raw(got[i]), V::reduce(x[i])) << i;
}

TYPED_TEST(GpuNtt, MatchesDftAllVariantsSmallSizes) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  std::mt19937_64 rng(0x5eed0000 + sizeof(Fr));
  for (unsigned log_n = 0; log_n <= 12; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    auto plan = ntt_plan<Fr>::create(log_n);
    ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
    const Fr want_shift = ff::root_of_unity<Fr>(log_n + 1, 5);
    ASSERT_EQ(plan->coset_shift(), want_shift);
    auto buf = device_buffer<Fr>::create(n);
    ASSERT_TRUE(buf.is_ok());
    for (auto dir : {ntt_direction::forward, ntt_direction::inverse}) {
      for (auto dom : {ntt_domain::plain, ntt_domain::coset}) {
        const auto x = random_vector<Fr>(n, rng);
        const auto want = dft(x, log_n, dir, dom, want_shift);
        // natural -> natural
        EXPECT_EQ(run_gpu(*plan, *buf, x, dir, ntt_order::natural_to_natural, dom), want)
            << "log_n=" << log_n << " nn dir=" << int(dir) << " coset=" << int(dom);
        // natural -> bit-reversed
        auto got = run_gpu(*plan, *buf, x, dir, ntt_order::natural_to_bitrev, dom);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) bad += got[bitrev(i, log_n)] != want[i];
        EXPECT_EQ(bad, 0u) << "log_n=" << log_n << " nr dir=" << int(dir) << " coset=" << int(dom);
        // bit-reversed -> natural
        std::vector<Fr> xr(n);
        for (std::size_t i = 0; i < n; ++i) xr[bitrev(i, log_n)] = x[i];
        EXPECT_EQ(run_gpu(*plan, *buf, xr, dir, ntt_order::bitrev_to_natural, dom), want)
            << "log_n=" << log_n << " rn dir=" << int(dir) << " coset=" << int(dom);
      }
    }
  }
}

template <class Fr>
struct curve_of;
template <>
struct curve_of<bn254::fr> {
  using type = bn254;
};
template <>
struct curve_of<bls12_381::fr> {
  using type = bls12_381;
};

// Fresh random elements, drawn in parallel (2^24 of them one by one would take seconds).
template <class Fr>
std::vector<Fr> random_vector_parallel(std::size_t n, uint64_t seed) {
  std::vector<Fr> v(n);
  thread_pool::global().parallel_for(n, [&](std::size_t b, std::size_t e) {
    std::mt19937_64 rng(seed ^ (b * 0x9e3779b97f4a7c15ull));
    for (std::size_t i = b; i < e; ++i) v[i] = Fr::random(rng);
  });
  return v;
}

// v[i] *= g^i for all i, in parallel.
template <class Fr>
void scale_by_powers(std::vector<Fr>& v, const Fr& g) {
  thread_pool::global().parallel_for(v.size(), [&](std::size_t b, std::size_t e) {
    Fr s = g.pow(b);
    for (std::size_t i = b; i < e; ++i, s *= g) v[i] *= s;
  });
}

// The CPU NTT, natural order in and out, with snarkjs's coset steps: forward multiplies
// coefficient i by g^i first, inverse multiplies output i by g^-i after the 1/n.
template <class Fr>
std::vector<Fr> cpu_reference(std::vector<Fr> x, unsigned log_n, ntt_direction dir, ntt_domain dom,
                              const Fr& shift) {
  using C = typename curve_of<Fr>::type;
  auto d = poly::ntt_domain<C>::create(log_n);
  EXPECT_TRUE(d.is_ok());
  if (dir == ntt_direction::forward && dom == ntt_domain::coset) scale_by_powers(x, shift);
  const auto pdir =
      dir == ntt_direction::forward ? poly::ntt_direction::forward : poly::ntt_direction::inverse;
  EXPECT_TRUE(poly::ntt<C>(*d, std::span<Fr>(x), pdir).is_ok());
  if (dir == ntt_direction::inverse && dom == ntt_domain::coset) scale_by_powers(x, shift.inverse());
  return x;
}

// How many positions differ, and the first one (printing 2^24-element vectors helps no one).
template <class Fr>
std::string mismatches(const std::vector<Fr>& got, const std::vector<Fr>& want, bool got_bitrev,
                       unsigned log_n) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[got_bitrev ? bitrev(i, log_n) : i] != want[i]) {
      if (bad++ == 0) first = i;
    }
  }
  return bad == 0 ? std::string() : std::to_string(bad) + " wrong, first at output " + std::to_string(first);
}

// Every direction x domain of `plan` in the three orders against the CPU NTT, on fresh random
// inputs drawn from `seed_base` on; `label` prefixes the failure messages.
template <class Fr>
void expect_all_variants_match_cpu(const ntt_plan<Fr>& plan, device_buffer<Fr>& buf, unsigned log_n,
                                   uint64_t seed_base, const std::string& label) {
  const std::size_t n = std::size_t{1} << log_n;
  unsigned seed = 0;
  for (auto dir : {ntt_direction::forward, ntt_direction::inverse}) {
    for (auto dom : {ntt_domain::plain, ntt_domain::coset}) {
      const auto x = random_vector_parallel<Fr>(n, seed_base + seed++);
      const auto want = cpu_reference(x, log_n, dir, dom, plan.coset_shift());
      const std::string what = label + "log_n=" + std::to_string(log_n) + " dir=" + std::to_string(int(dir)) +
                               " coset=" + std::to_string(int(dom));
      EXPECT_EQ(
          mismatches(run_gpu(plan, buf, x, dir, ntt_order::natural_to_natural, dom), want, false, log_n), "")
          << what << " nn";
      EXPECT_EQ(
          mismatches(run_gpu(plan, buf, x, dir, ntt_order::natural_to_bitrev, dom), want, true, log_n), "")
          << what << " nr";
      std::vector<Fr> xr(n);
      thread_pool::global().parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) xr[bitrev(i, log_n)] = x[i];
      });
      EXPECT_EQ(
          mismatches(run_gpu(plan, buf, xr, dir, ntt_order::bitrev_to_natural, dom), want, false, log_n), "")
          << what << " rn";
    }
  }
}

// Every direction x order x domain at the sizes where the split into passes changes shape
// (ntt.cuh plan_passes): radix 4 at 2^10 (one pass, a whole block), 2^11 (3 + 8, the smallest
// two-pass split), 2^12 (3 + 9), 2^15 (5 + 10), 2^18 (8 + 10, the largest two-pass split), 2^19
// (5 + 4 + 10, the smallest three-pass one), 2^20 (5 + 5 + 10); radix 8 at 2^21 (5 + 6 + 10 from
// natural order, 6 + 5 + 10 from bit-reversed, the smallest size that uses it) and 2^24 (6 + 8 + 10,
// 8 + 6 + 10).
TYPED_TEST(GpuNtt, MatchesCpuNttAllVariantsAcrossPassShapes) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  for (unsigned log_n : {10u, 11u, 12u, 15u, 18u, 19u, 20u, 21u, 24u}) {
    auto plan = ntt_plan<Fr>::create(log_n);
    ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
    auto buf = device_buffer<Fr>::create(std::size_t{1} << log_n);
    ASSERT_TRUE(buf.is_ok());
    expect_all_variants_match_cpu(*plan, *buf, log_n, 0x5eed2000 + 16 * log_n, "");
  }
}

// A plan built for the Groth16 prover's two transforms (groth16/gpu/gpu_prover_impl.hpp) holds only their
// tables: those two equal the CPU NTT, every other transform is refused with invalid_argument and
// the data left as it was. Radix 8 (2^21) and radix 4 (2^12).
TYPED_TEST(GpuNtt, PlanForSomeTransformsRunsThoseAndRefusesTheOthers) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  for (unsigned log_n : {12u, 21u}) {
    const std::size_t n = std::size_t{1} << log_n;
    auto plan = ntt_plan<Fr>::create(log_n, nullptr,
                                     ntt_tables::inverse_from_natural | ntt_tables::forward_from_bitrev);
    ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
    auto buf = device_buffer<Fr>::create(n);
    ASSERT_TRUE(buf.is_ok());
    const auto x = random_vector_parallel<Fr>(n, 0x5eed3000 + log_n);
    const auto inv = cpu_reference(x, log_n, ntt_direction::inverse, ntt_domain::plain, plan->coset_shift());
    EXPECT_EQ(mismatches(run_gpu(*plan, *buf, x, ntt_direction::inverse, ntt_order::natural_to_bitrev,
                                 ntt_domain::plain),
                         inv, true, log_n),
              "")
        << "log_n=" << log_n << " inverse nr";
    std::vector<Fr> xr(n);
    for (std::size_t i = 0; i < n; ++i) xr[bitrev(i, log_n)] = x[i];
    const auto coset =
        cpu_reference(x, log_n, ntt_direction::forward, ntt_domain::coset, plan->coset_shift());
    EXPECT_EQ(mismatches(run_gpu(*plan, *buf, xr, ntt_direction::forward, ntt_order::bitrev_to_natural,
                                 ntt_domain::coset),
                         coset, false, log_n),
              "")
        << "log_n=" << log_n << " forward coset rn";

    ASSERT_TRUE(buf->copy_from_host(x.data(), n).is_ok());
    const std::pair<ntt_direction, ntt_order> refused[] = {
        {ntt_direction::forward, ntt_order::natural_to_bitrev},
        {ntt_direction::forward, ntt_order::natural_to_natural},
        {ntt_direction::inverse, ntt_order::bitrev_to_natural},
    };
    for (const auto& [dir, order] : refused) {
      const status st = plan->run(buf->data(), dir, order, ntt_domain::plain);
      EXPECT_EQ(st.code(), errc::invalid_argument) << st.to_string();
      EXPECT_NE(st.message().find("ntt_tables"), std::string::npos) << st.to_string();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<Fr> after(n);
    ASSERT_TRUE(buf->copy_to_host(after.data(), n).is_ok());
    EXPECT_EQ(after, x) << "a refused transform changed the data";
  }
}

// A plan's size as the engine reserves it (ntt_plan::device_bytes): what the plan keeps, the
// powers, one table per transform (a whole tile below 2^10 points) and omega_n's powers in two
// short tables per direction (at 2^24, x < 2^23: 2^12 low powers and 2^11 high ones). A compact
// plan keeps the powers split too and only the table entries of the passes that read them. Host
// arithmetic: it runs without a GPU too (PlanKeepsWhatDeviceBytesSays checks it on one).
TEST(NttPlanBytes, PowersTablesAndOmegasShortTables) {
  using bn = ntt_plan<bn254::fr>;
  using bls = ntt_plan<bls12_381::fr>;
  constexpr std::size_t e = 32;  // bytes per Fr element, both curves
  constexpr auto prover = ntt_tables::inverse_from_natural | ntt_tables::forward_from_bitrev;
  const std::size_t n = std::size_t{1} << 24;
  const std::size_t short24 = 2 * (4096 + 2048);
  EXPECT_EQ(bn::device_bytes(24, prover), (6 * n + short24) * e);
  EXPECT_EQ(bls::device_bytes(24, ntt_tables::all), (10 * n + short24) * e);
  EXPECT_EQ(bn::device_bytes(24, ntt_tables::forward_from_natural), (4 * n + short24) * e);
  // 2^4: x < 8, 4 low powers and 2 high ones per direction.
  EXPECT_EQ(bn::device_bytes(4, prover), (2 * 16 + 2 * 2 * 1024 + 2 * (4 + 2)) * e);
  const std::size_t big = std::size_t{1} << 28;
  const std::size_t short28 = 2 * (16384 + 8192);
  EXPECT_EQ(bn::device_bytes(28, prover), (6 * big + short28) * e);  // BN254's largest domain
  EXPECT_EQ(bls::device_bytes(28, prover), (6 * big + short28) * e);

  // Compact at 2^26, radix 8, passes of 8 + 8 + 10 stages in both orders. By block the last pass
  // (stages up to 2^25 twiddles) computes, the others read entries [0, 2^16); by offset the first
  // (stage 0: 2^25) computes, the others read [2^26 - 2^18, 2^26). Split powers: 2^13 + 2^13 per
  // direction; omega's (x < 2^25): 2^13 + 2^12.
  const std::size_t compact26 = 2 * (8192 + 8192) + 2 * (8192 + 4096) + 2 * 65536 + 2 * 262144;
  EXPECT_EQ(bls::device_bytes(26, prover, ntt_memory::compact), compact26 * e);
  EXPECT_LT(bls::device_bytes(26, prover, ntt_memory::compact), std::size_t{24} << 20);
  EXPECT_EQ(bls::device_bytes(26, prover),
            (6 * (std::size_t{1} << 26) + 2 * (8192 + 4096)) * e);
  // With every stage over the limit nothing is read from a table.
  EXPECT_EQ(bn::device_bytes(12, prover, ntt_memory::compact, 0), (2 * (64 + 64) + 2 * (64 + 32)) * e);
  // Below 2^3 a compact request is a full plan.
  EXPECT_EQ(bn::device_bytes(2, prover, ntt_memory::compact), bn::device_bytes(2, prover));
}

// A plan made with a counting arena keeps, to the byte, what device_bytes() says: full and compact,
// the prover's two tables and all four, at sizes below a tile (2^4), of one and two compact
// passes (2^12 with every stage computing), and at 2^20.
TYPED_TEST(GpuNtt, PlanKeepsWhatDeviceBytesSays) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  constexpr auto prover = ntt_tables::inverse_from_natural | ntt_tables::forward_from_bitrev;
  struct shape {
    unsigned log_n;
    ntt_tables tables;
    ntt_memory memory;
    unsigned compact_log_stage;
  };
  for (const shape& c : {shape{2, prover, ntt_memory::compact, ntt_compact_log_stage},
                         shape{4, prover, ntt_memory::tables, ntt_compact_log_stage},
                         shape{12, ntt_tables::all, ntt_memory::tables, ntt_compact_log_stage},
                         shape{12, prover, ntt_memory::compact, 0}, shape{12, prover, ntt_memory::compact, 6},
                         shape{20, prover, ntt_memory::tables, ntt_compact_log_stage},
                         shape{20, prover, ntt_memory::compact, ntt_compact_log_stage}}) {
    SCOPED_TRACE("2^" + std::to_string(c.log_n) + (c.memory == ntt_memory::compact ? " compact" : " tables"));
    counting_arena arena;
    auto plan = ntt_plan<Fr>::create(c.log_n, nullptr, c.tables, c.memory, c.compact_log_stage, &arena);
    ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
    EXPECT_GT(arena.allocations(), 0u);
    EXPECT_EQ(arena.bytes(), ntt_plan<Fr>::device_bytes(c.log_n, c.tables, c.memory, c.compact_log_stage));
  }
}

// A compact plan gives the values of the CPU NTT, as a full one does, in every direction x order x
// domain: with the stage limit lowered so that most passes compute their twiddles (radix 4 at
// 2^3 .. 2^19 over one, two and three passes; radix 8 at 2^21), and at 2^24 with the default limit,
// where only the passes with the largest stages compute, for the prover's two transforms.
TYPED_TEST(GpuNtt, CompactPlanMatchesCpuNtt) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  struct shape {
    unsigned log_n, log_stage;
  };
  for (const shape sh : {shape{3, 0}, shape{10, 3}, shape{12, 0}, shape{15, 6}, shape{19, 9}, shape{21, 7}}) {
    const unsigned log_n = sh.log_n;
    const std::size_t n = std::size_t{1} << log_n;
    auto plan = ntt_plan<Fr>::create(log_n, nullptr, ntt_tables::all, ntt_memory::compact, sh.log_stage);
    ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
    ASSERT_EQ(plan->memory(), ntt_memory::compact);
    EXPECT_LT(ntt_plan<Fr>::device_bytes(log_n, ntt_tables::all, ntt_memory::compact, sh.log_stage),
              ntt_plan<Fr>::device_bytes(log_n, ntt_tables::all));
    auto buf = device_buffer<Fr>::create(n);
    ASSERT_TRUE(buf.is_ok());
    expect_all_variants_match_cpu(*plan, *buf, log_n, 0x5eed4000 + 16 * log_n, "compact ");
  }
  const unsigned log_n = 24;
  const std::size_t n = std::size_t{1} << log_n;
  auto plan = ntt_plan<Fr>::create(log_n, nullptr, ntt_tables::inverse_from_natural | ntt_tables::forward_from_bitrev,
                                   ntt_memory::compact);
  ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
  auto buf = device_buffer<Fr>::create(n);
  ASSERT_TRUE(buf.is_ok());
  const auto x = random_vector_parallel<Fr>(n, 0x5eed4400);
  const auto inv = cpu_reference(x, log_n, ntt_direction::inverse, ntt_domain::plain, plan->coset_shift());
  EXPECT_EQ(mismatches(run_gpu(*plan, *buf, x, ntt_direction::inverse, ntt_order::natural_to_bitrev,
                               ntt_domain::plain),
                       inv, true, log_n),
            "")
      << "compact 2^24 inverse nr";
  std::vector<Fr> xr(n);
  thread_pool::global().parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) xr[bitrev(i, log_n)] = x[i];
  });
  const auto coset = cpu_reference(x, log_n, ntt_direction::forward, ntt_domain::coset, plan->coset_shift());
  EXPECT_EQ(mismatches(run_gpu(*plan, *buf, xr, ntt_direction::forward, ntt_order::bitrev_to_natural,
                               ntt_domain::coset),
                       coset, false, log_n),
            "")
      << "compact 2^24 forward coset rn";
}

TYPED_TEST(GpuNtt, RoundTripLarge) {
  CUZK_REQUIRE_GPU();
  using Fr = TypeParam;
  std::mt19937_64 rng(0x5eed1000 + sizeof(Fr));
  const unsigned log_n = 20;
  const std::size_t n = std::size_t{1} << log_n;
  auto plan = ntt_plan<Fr>::create(log_n);
  ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
  auto buf = device_buffer<Fr>::create(n);
  ASSERT_TRUE(buf.is_ok());
  for (auto dom : {ntt_domain::plain, ntt_domain::coset}) {
    const auto x = random_vector<Fr>(n, rng);
    ASSERT_EQ(cudaMemset(buf->data(), 0xff, buf->bytes()), cudaSuccess);
    ASSERT_TRUE(buf->copy_from_host(x.data(), n).is_ok());
    ASSERT_TRUE(plan->run(buf->data(), ntt_direction::forward, ntt_order::natural_to_bitrev, dom).is_ok());
    std::vector<Fr> mid(n);
    ASSERT_TRUE(buf->copy_to_host(mid.data(), n).is_ok());
    EXPECT_NE(mid, x);
    ASSERT_TRUE(plan->run(buf->data(), ntt_direction::inverse, ntt_order::bitrev_to_natural, dom).is_ok());
    std::vector<Fr> back(n);
    ASSERT_TRUE(buf->copy_to_host(back.data(), n).is_ok());
    EXPECT_EQ(back, x) << "coset=" << int(dom);
    // The other pairing (inverse in frequency order, forward in time order), as the H step uses.
    ASSERT_TRUE(plan->run(buf->data(), ntt_direction::inverse, ntt_order::natural_to_bitrev, dom).is_ok());
    ASSERT_TRUE(plan->run(buf->data(), ntt_direction::forward, ntt_order::bitrev_to_natural, dom).is_ok());
    ASSERT_TRUE(buf->copy_to_host(back.data(), n).is_ok());
    EXPECT_EQ(back, x) << "inverse-then-forward, coset=" << int(dom);
  }
  // One spot check of the large transform against the definition: X_k for a few k.
  const auto x = random_vector<Fr>(n, rng);
  const auto got =
      run_gpu(*plan, *buf, x, ntt_direction::forward, ntt_order::natural_to_natural, ntt_domain::plain);
  const Fr w = ff::root_of_unity<Fr>(log_n, 5);
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{12345}, n - 1}) {
    const Fr wk = w.pow(k);
    Fr acc = Fr::zero(), p = Fr::one();
    for (std::size_t i = 0; i < n; ++i, p *= wk) acc += x[i] * p;
    EXPECT_EQ(got[k], acc) << "k=" << k;
  }
}

// The largest domain, where the coset shift g is 25, not a root of unity (no omega_2n exists): BN254's 2^28 (8 GiB per
// vector; BLS12-381's 2^32 would need 128 GiB). The forward transform of random data against the
// CPU NTT at every output; the odd-coset one against that transform of x_i g^i; each inverse
// brings x back.
TEST(GpuNttLargestDomain, Bn254TwoToThe28MatchesTheCpuNtt) {
  CUZK_REQUIRE_GPU();
  using Fr = bn254::fr;
  constexpr unsigned log_n = Fr::two_adicity;
  const std::size_t n = std::size_t{1} << log_n;
  // Powers 2n, two tables 4n, the data n.
  const std::size_t need = 7 * n * sizeof(Fr);
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  if (free_bytes < need + (std::size_t{2} << 30))
    GTEST_SKIP() << "the largest BN254 domain needs " << (need >> 30) << " GiB of device memory; "
                 << (free_bytes >> 30) << " GiB free";
  auto plan = ntt_plan<Fr>::create(log_n, nullptr,
                                   ntt_tables::forward_from_natural | ntt_tables::inverse_from_bitrev);
  ASSERT_TRUE(plan.is_ok()) << plan.error().to_string();
  EXPECT_EQ(plan->coset_shift(), Fr::from_uint(25));
  auto buf = device_buffer<Fr>::create(n);
  ASSERT_TRUE(buf.is_ok()) << buf.error().to_string();
  const auto x = random_vector_parallel<Fr>(n, 0x5eed2800);
  auto forward_then_back = [&](const std::vector<Fr>& in, ntt_domain dom) {
    auto out = run_gpu(*plan, *buf, in, ntt_direction::forward, ntt_order::natural_to_bitrev, dom);
    // The device holds the transform, bit-reversed: the inverse brings `in` back.
    const status st = plan->run(buf->data(), ntt_direction::inverse, ntt_order::bitrev_to_natural, dom);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    std::vector<Fr> back(n);
    EXPECT_TRUE(buf->copy_to_host(back.data(), n).is_ok());
    EXPECT_TRUE(back == in) << "inverse after forward, coset=" << int(dom);
    return out;
  };
  const auto plain = forward_then_back(x, ntt_domain::plain);
  const auto want_plain =
      cpu_reference(x, log_n, ntt_direction::forward, ntt_domain::plain, plan->coset_shift());
  EXPECT_EQ(mismatches(plain, want_plain, true, log_n), "");
  std::vector<Fr> scaled = x;
  scale_by_powers(scaled, plan->coset_shift());
  const auto want = forward_then_back(scaled, ntt_domain::plain);
  EXPECT_TRUE(forward_then_back(x, ntt_domain::coset) == want) << "coset";
}

}  // namespace
}  // namespace cuzk::gpu
