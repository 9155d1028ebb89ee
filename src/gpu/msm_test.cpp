// The GPU G1 MSM (msm.hpp) against oracles that share none of its bucket logic, for both curves:
//  - ec::naive_msm (one scalar multiplication per point) at 0, 1, 2, 3, 100, 1000 and 4097
//    points, random points and scalars with infinities and zero scalars mixed in, and a
//    mostly-0/1 variant whose single huge bucket exercises the split-and-merge path;
//  - closed forms at 2^16 and 2^20, cheap on the CPU: points [i]G (running sums of G) with
//    scalars i sum to [sum i^2]G, and with random scalars s_i to [sum s_i i]G (Fr arithmetic,
//    no group work), with infinities and zeros mixed in; random points with scalar 1 sum to
//    their plain sum.
// The result buffers of the device are scratch reused across runs; each run starts from new
// scalars, so a stale partial sum would show as a mismatch.
//
// Without a CUDA device every test is skipped with a message.
#include <gtest/gtest.h>

#include <mutex>
#include <random>
#include <vector>

#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/naive_msm.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/msm.hpp"

namespace cuzk::gpu {
namespace {

#define CUZK_REQUIRE_GPU()                                                                        \
  do {                                                                                            \
    const auto count_ = device_count();                                                           \
    if (!count_.is_ok() || *count_ == 0)                                                          \
      GTEST_SKIP() << "no usable CUDA device; the gpu tests run on a GPU machine via scripts/gpu_check.sh"; \
  } while (0)

template <class C>
using fr_t = typename C::fr;

// Points P_i = start + i * step (affine), built with one addition each, chunked over threads.
template <class C>
std::vector<g1_affine<C>> progression(std::size_t n, const g1<C>& start, const g1_affine<C>& step) {
  std::vector<g1_affine<C>> out(n);
  thread_pool::global().parallel_for(
      n,
      [&](std::size_t b, std::size_t e) {
        std::vector<g1<C>> jac(e - b);
        g1<C> p = start + ec::scalar_mul(step, ff::bigint<1>::from_u64(b));
        for (std::size_t i = b; i < e; ++i) {
          jac[i - b] = p;
          p += g1<C>::from_affine(step);
        }
        ec::batch_to_affine(jac.data(), out.data() + b, e - b);
      },
      4096);
  return out;
}

template <class C>
g1<C> random_point(std::mt19937_64& rng) {
  return ec::scalar_mul(g1_group<C>::generator, fr_t<C>::random(rng));
}

template <class C>
std::vector<typename fr_t<C>::repr> canonical(const std::vector<fr_t<C>>& s) {
  std::vector<typename fr_t<C>::repr> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = s[i].to_canonical();
  return out;
}

template <class C>
g1<C> naive_parallel(const std::vector<g1_affine<C>>& p, const std::vector<fr_t<C>>& s) {
  std::mutex m;
  g1<C> acc = g1<C>::infinity();
  thread_pool::global().parallel_for(
      p.size(),
      [&](std::size_t b, std::size_t e) {
        const g1<C> part = ec::naive_msm(p.data() + b, s.data() + b, e - b);
        std::lock_guard<std::mutex> lock(m);
        acc += part;
      },
      64);
  return acc;
}

template <class C>
g1<C> run_gpu(msm_g1<C>& msm, const std::vector<fr_t<C>>& s) {
  const auto reprs = canonical<C>(s);
  auto r = msm.run(reprs.data(), reprs.size());
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  return r.is_ok() ? *r : g1<C>::infinity();
}

template <class C>
class GpuMsm : public ::testing::Test {};
using curves = ::testing::Types<bn254, bls12_381>;
struct curve_names {
  template <class C>
  static std::string GetName(int) {
    return std::is_same_v<C, bn254> ? "bn254" : "bls12_381";
  }
};
TYPED_TEST_SUITE(GpuMsm, curves, curve_names);

TYPED_TEST(GpuMsm, MatchesNaiveSmallSizes) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  using Fr = fr_t<C>;
  std::mt19937_64 rng(0xa11ce + sizeof(typename C::fq));
  for (std::size_t n : {0, 1, 2, 3, 100, 1000, 4097}) {
    auto pts = progression<C>(n, random_point<C>(rng), random_point<C>(rng).to_affine());
    for (std::size_t i = 0; i < n; i += 7) pts[i] = g1_affine<C>::infinity();
    auto msm = msm_g1<C>::create(pts.data(), n);
    ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();

    std::vector<Fr> s(n);
    for (auto& x : s) x = Fr::random(rng);
    for (std::size_t i = 3; i < n; i += 5) s[i] = Fr::zero();
    if (n > 0) s[n - 1] = -Fr::one();  // r - 1: every digit at its largest
    EXPECT_EQ(run_gpu<C>(*msm, s), naive_parallel<C>(pts, s)) << "random, n=" << n;

    // Mostly 0 and 1, a few random: one bucket takes nearly every point.
    for (std::size_t i = 0; i < n; ++i) s[i] = (i % 3 == 0) ? Fr::zero() : Fr::one();
    for (std::size_t i = 0; i < n; i += 97) s[i] = Fr::random(rng);
    EXPECT_EQ(run_gpu<C>(*msm, s), naive_parallel<C>(pts, s)) << "0/1, n=" << n;
  }
}

TYPED_TEST(GpuMsm, ClosedFormsLarge) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  using Fr = fr_t<C>;
  const auto& G = g1_group<C>::generator;
  std::mt19937_64 rng(0xb0b + sizeof(typename C::fq));
  for (unsigned log_n : {16u, 20u}) {
    const std::size_t n = std::size_t{1} << log_n;
    // P_i = [i + 1]G.
    auto pts = progression<C>(n, g1<C>::from_affine(G), G);
    for (std::size_t i = 5; i < n; i += 11) pts[i] = g1_affine<C>::infinity();
    auto msm = msm_g1<C>::create(pts.data(), n);
    ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();
    auto weight = [&](std::size_t i) { return (i % 11 == 5) ? Fr::zero() : Fr::from_uint(i + 1); };

    std::vector<Fr> s(n);
    Fr want = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = (i % 13 == 2) ? Fr::zero() : Fr::from_uint(i + 1);
      want += s[i] * weight(i);
    }
    EXPECT_EQ(run_gpu<C>(*msm, s), ec::scalar_mul(G, want)) << "scalars i, n=2^" << log_n;

    want = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = (i % 13 == 2) ? Fr::zero() : Fr::random(rng);
      want += s[i] * weight(i);
    }
    EXPECT_EQ(run_gpu<C>(*msm, s), ec::scalar_mul(G, want)) << "random scalars, n=2^" << log_n;
  }
  // Random points, scalar 1: the plain sum.
  const std::size_t n = std::size_t{1} << 16;
  auto pts = progression<C>(n, random_point<C>(rng), random_point<C>(rng).to_affine());
  auto msm = msm_g1<C>::create(pts.data(), n);
  ASSERT_TRUE(msm.is_ok());
  g1<C> want = g1<C>::infinity();
  for (const auto& p : pts) want += g1<C>::from_affine(p);
  EXPECT_EQ(run_gpu<C>(*msm, std::vector<Fr>(n, Fr::one())), want) << "scalar 1";
}

}  // namespace
}  // namespace cuzk::gpu
