// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU MSM (msm.hpp) against oracles that share none of its bucket logic, for G1 and G2 of
// both curves:
//  - ec::naive_msm (one scalar multiplication per point) at 0, 1, 2, 3, 100, 255, 256, 257, 1000,
//    4096 and 4097 points, random points and scalars with infinities and zero scalars mixed in,
//    and a mostly-0/1 variant whose single huge bucket takes ~log2(n) pairwise rounds;
//  - the batch-affine edge cases: points drawn from {O, P, -P, 2P, -2P, Q}, so that pairs in
//    every round meet equal points (doubling), opposite points (P + (-P) = O) and infinities,
//    all in one bucket or spread over a few;
//  - all-0, all-1 and mixed 0/1/random scalars (the buckets a real witness fills);
//  - closed forms at 2^16 + 1 (and 2^20 and 2^21 + 1 for G1), cheap on the CPU: points [i]G (running sums of G)
//    with scalars i sum to [sum i^2]G, and with random scalars s_i to [sum s_i i]G (Fr
//    arithmetic, no group work), with infinities and zeros mixed in; random points with scalar 1
//    sum to their plain sum.
// Every case runs every path that must agree: the affine rounds; for G1 the XYZZ runs as one
// point range, as three (uneven) ranges and as the size's default; the entry point taking
// scalars already on the device; and streamed points (the points left in host memory and copied
// in ranges) in ranges of a few points, of about a third of n (so n is not a multiple of the
// range) and of n, with scalars from the host and from the device. The result buffers of the device are scratch reused across
// runs; each run starts from new scalars, so a stale partial sum would show as a mismatch.
//
// Without a CUDA device every test is skipped with a message.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <mutex>
#include <random>
#include <vector>

#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/naive_msm.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_test_util.hpp"
#include "gpu/msm.hpp"

namespace cuzk::gpu {
namespace {

template <class G>
using fr_t = typename G::scalar;
template <class G>
using aff_t = typename G::affine;
template <class G>
using jac_t = typename G::jacobian;

// Points P_i = start + i * step (affine), built with one addition each, chunked over threads.
template <class G>
std::vector<aff_t<G>> progression(std::size_t n, const jac_t<G>& start, const aff_t<G>& step) {
  std::vector<aff_t<G>> out(n);
  thread_pool::global().parallel_for(
      n,
      [&](std::size_t b, std::size_t e) {
        std::vector<jac_t<G>> jac(e - b);
        jac_t<G> p = start + ec::scalar_mul(step, ff::bigint<1>::from_u64(b));
        for (std::size_t i = b; i < e; ++i) {
          jac[i - b] = p;
          p += jac_t<G>::from_affine(step);
        }
        ec::batch_to_affine(jac.data(), out.data() + b, e - b);
      },
      4096);
  return out;
}

template <class G>
jac_t<G> random_point(std::mt19937_64& rng) {
  return ec::scalar_mul(G::generator, fr_t<G>::random(rng));
}

template <class G>
std::vector<typename fr_t<G>::repr> canonical(const std::vector<fr_t<G>>& s) {
  std::vector<typename fr_t<G>::repr> out(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = s[i].to_canonical();
  return out;
}

template <class G>
jac_t<G> naive_parallel(const std::vector<aff_t<G>>& p, const std::vector<fr_t<G>>& s) {
  std::mutex m;
  jac_t<G> acc = jac_t<G>::infinity();
  thread_pool::global().parallel_for(
      p.size(),
      [&](std::size_t b, std::size_t e) {
        const jac_t<G> part = ec::naive_msm(p.data() + b, s.data() + b, e - b);
        std::lock_guard<std::mutex> lock(m);
        acc += part;
      },
      64);
  return acc;
}

// The affine rounds, the XYZZ accumulation in 1, 3 and the default number of point ranges, and
// the device-scalar entry point: all must agree, for G1 and G2.
template <class G>
jac_t<G> run_gpu(device_msm<G>& msm, const std::vector<fr_t<G>>& s) {
  const auto reprs = canonical<G>(s);
  msm.set_accumulation(msm_accumulation::affine);
  auto r = msm.run(reprs.data(), reprs.size());
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  if (!r.is_ok()) return jac_t<G>::infinity();
  msm.set_accumulation(msm_accumulation::xyzz);
  for (unsigned chunks : {0u, 1u, 3u}) {
    msm.set_chunks(chunks);
    auto x = msm.run(reprs.data(), reprs.size());
    EXPECT_TRUE(x.is_ok()) << x.error().to_string();
    if (x.is_ok()) {
      EXPECT_EQ(*r, *x) << "affine and XYZZ (" << chunks << " chunks) differ, n=" << s.size();
    }
  }
  msm.set_chunks(0);
  msm.set_accumulation(msm_accumulation::automatic);
  auto dev = device_buffer<typename fr_t<G>::repr>::create(reprs.size());
  EXPECT_TRUE(dev.is_ok()) << dev.error().to_string();
  if (dev.is_ok()) {
    EXPECT_TRUE(dev->copy_from_host(reprs.data(), reprs.size()).is_ok());
    auto d = msm.run_device(dev->data(), reprs.size());
    EXPECT_TRUE(d.is_ok()) << d.error().to_string();
    if (d.is_ok()) {
      EXPECT_EQ(*r, *d) << "device scalars differ, n=" << s.size();
    }
  }
  return *r;
}

// Streamed points over the same points and scalars must give `want`, for ranges of `small`
// points, of n / 3 + 1 and of n (one range), with host and device scalars, with the automatic
// accumulation and the other one (the affine rounds, whose range buckets are added into XYZZ
// ones, and the XYZZ runs, which carry bucket sums across ranges); the same for resident points
// in ranges taking turns (set_resident_range). One run also reports its timings, which must
// count the ranges.
template <class G>
void expect_streamed(const std::vector<aff_t<G>>& pts, const std::vector<fr_t<G>>& s, const jac_t<G>& want,
                     std::size_t small = 7) {
  const auto reprs = canonical<G>(s);
  const std::size_t n = pts.size();
  auto dev = device_buffer<typename fr_t<G>::repr>::create(std::max<std::size_t>(reprs.size(), 1));
  ASSERT_TRUE(dev.is_ok()) << dev.error().to_string();
  ASSERT_TRUE(dev->copy_from_host(reprs.data(), reprs.size()).is_ok());
  auto check = [&](device_msm<G>& m, const std::string& what) {
    // The accumulation `automatic` does not resolve to here, so that both paths run whichever
    // msm_g2_prefers_xyzz picks.
    const bool auto_affine = device_msm<G>::uses_affine(n, msm_accumulation::automatic, m.streamed());
    const msm_accumulation other = auto_affine ? msm_accumulation::xyzz : msm_accumulation::affine;
    for (const auto acc : {msm_accumulation::automatic, other}) {
      m.set_accumulation(acc);
      const std::string label = what + (acc == msm_accumulation::affine ? ", affine"
                                        : acc == msm_accumulation::xyzz ? ", xyzz"
                                                                        : "") +
                                ", n=" + std::to_string(n);
      auto h = m.run(reprs.data(), reprs.size());
      ASSERT_TRUE(h.is_ok()) << h.error().to_string();
      EXPECT_EQ(*h, want) << label << ", host scalars";
      auto d = m.run_device(dev->data(), reprs.size());
      ASSERT_TRUE(d.is_ok()) << d.error().to_string();
      EXPECT_EQ(*d, want) << label << ", device scalars";
    }
  };
  for (std::size_t chunk : {small, n / 3 + 1, std::max<std::size_t>(n, 1)}) {
    auto m = device_msm<G>::create_streamed(pts.data(), n, chunk);
    ASSERT_TRUE(m.is_ok()) << m.error().to_string();
    EXPECT_TRUE(m->streamed());
    check(*m, "streamed in ranges of " + std::to_string(chunk));
    if (n == 0) continue;
    msm_timing t;
    auto timed = m->run(reprs.data(), reprs.size(), &t);
    ASSERT_TRUE(timed.is_ok()) << timed.error().to_string();
    EXPECT_EQ(*timed, want);
    EXPECT_EQ(t.chunks, (n + chunk - 1) / chunk);
    EXPECT_TRUE(t.streamed);
    EXPECT_GT(t.total_ms, 0.0f);
  }
  auto resident = device_msm<G>::create(pts.data(), n);
  ASSERT_TRUE(resident.is_ok()) << resident.error().to_string();
  resident->set_resident_range(small);
  check(*resident, "resident in ranges of " + std::to_string(small));
}

template <class G>
class GpuMsm : public ::testing::Test {};
using groups_under_test = ::testing::Types<bn254_g1, bls12_381_g1, bn254_g2, bls12_381_g2>;
struct group_names {
  template <class G>
  static std::string GetName(int) {
    return std::string(std::is_same_v<typename G::curve, bn254> ? "bn254_" : "bls12_381_") + G::name;
  }
};
TYPED_TEST_SUITE(GpuMsm, groups_under_test, group_names);

TYPED_TEST(GpuMsm, MatchesNaiveSmallSizes) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  std::mt19937_64 rng(0xa11ce + sizeof(typename G::field));
  for (std::size_t n : {0, 1, 2, 3, 100, 255, 256, 257, 1000, 4096, 4097}) {
    auto pts = progression<G>(n, random_point<G>(rng), random_point<G>(rng).to_affine());
    for (std::size_t i = 0; i < n; i += 7) pts[i] = aff_t<G>::infinity();
    auto msm = device_msm<G>::create(pts.data(), n);
    ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();

    std::vector<Fr> s(n);
    for (auto& x : s) x = Fr::random(rng);
    for (std::size_t i = 3; i < n; i += 5) s[i] = Fr::zero();
    if (n > 0) s[n - 1] = -Fr::one();  // r - 1: every digit at its largest
    auto want = naive_parallel<G>(pts, s);
    EXPECT_EQ(run_gpu<G>(*msm, s), want) << "random, n=" << n;
    expect_streamed<G>(pts, s, want);

    // Mostly 0 and 1, a few random: one bucket takes nearly every point.
    for (std::size_t i = 0; i < n; ++i) s[i] = (i % 3 == 0) ? Fr::zero() : Fr::one();
    for (std::size_t i = 0; i < n; i += 97) s[i] = Fr::random(rng);
    want = naive_parallel<G>(pts, s);
    EXPECT_EQ(run_gpu<G>(*msm, s), want) << "0/1, n=" << n;
    expect_streamed<G>(pts, s, want, 100);
  }
}

TYPED_TEST(GpuMsm, BatchAffineEdgeCases) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  std::mt19937_64 rng(0xed6e + sizeof(typename G::field));
  const jac_t<G> P = random_point<G>(rng);
  const aff_t<G> menu[6] = {aff_t<G>::infinity(), P.to_affine(),         (-P).to_affine(),
                            P.dbl().to_affine(),  (-P.dbl()).to_affine(), random_point<G>(rng).to_affine()};
  const Fr few[4] = {Fr::from_uint(5), Fr::one(), -Fr::one(), Fr::from_uint(2)};
  for (std::size_t n : {2, 3, 64, 1000}) {
    for (unsigned trial = 0; trial < 3; ++trial) {
      std::vector<aff_t<G>> pts(n);
      for (auto& p : pts) p = menu[rng() % 6];
      auto msm = device_msm<G>::create(pts.data(), n);
      ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();
      std::vector<Fr> s(n, Fr::from_uint(5));  // one bucket
      EXPECT_EQ(run_gpu<G>(*msm, s), naive_parallel<G>(pts, s)) << "one bucket, n=" << n << " trial " << trial;
      for (auto& x : s) x = few[rng() % 4];  // a few buckets, some in every window
      const auto want = naive_parallel<G>(pts, s);
      EXPECT_EQ(run_gpu<G>(*msm, s), want) << "few buckets, n=" << n << " trial " << trial;
      if (trial == 0) expect_streamed<G>(pts, s, want, 3);
    }
  }
}

TYPED_TEST(GpuMsm, ZeroOneScalars) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  std::mt19937_64 rng(0x01 + sizeof(typename G::field));
  const std::size_t n = 5000;
  auto pts = progression<G>(n, random_point<G>(rng), random_point<G>(rng).to_affine());
  pts[17] = aff_t<G>::infinity();
  auto msm = device_msm<G>::create(pts.data(), n);
  ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();
  EXPECT_EQ(run_gpu<G>(*msm, std::vector<Fr>(n, Fr::zero())), jac_t<G>::infinity()) << "all 0";
  jac_t<G> sum = jac_t<G>::infinity();
  for (const auto& p : pts) sum += jac_t<G>::from_affine(p);
  EXPECT_EQ(run_gpu<G>(*msm, std::vector<Fr>(n, Fr::one())), sum) << "all 1";
  std::vector<Fr> s(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto u = rng() % 10;
    s[i] = u < 5 ? Fr::zero() : u < 9 ? Fr::one() : Fr::random(rng);
  }
  const auto want = naive_parallel<G>(pts, s);
  EXPECT_EQ(run_gpu<G>(*msm, s), want) << "mixed 0/1/random";
  expect_streamed<G>(pts, s, want, 1000);
  expect_streamed<G>(pts, std::vector<Fr>(n, Fr::zero()), jac_t<G>::infinity(), 999);
}

// One arena lent to several MSM objects in turn (a proof's worker lends one to A, B1, B2 and C):
// a resident and a streamed object of other sizes alternate on it, the arena poisoned before each
// run, and every result equals the CPU's. scratch_bytes() is the layout's own count, so an arena
// reserved to the largest never grows, and the objects keep no scratch of their own.
TYPED_TEST(GpuMsm, SharedArenaServesObjectsInTurn) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  using repr = typename Fr::repr;
  std::mt19937_64 rng(0xa7e4a + sizeof(typename G::field));
  const std::size_t n_big = 20000, n_small = 3001, chunk = 4096;
  auto pts = progression<G>(n_big, random_point<G>(rng), random_point<G>(rng).to_affine());
  pts[5] = aff_t<G>::infinity();
  auto resident = device_msm<G>::create(pts.data(), n_small);
  auto streamed = device_msm<G>::create_streamed(pts.data(), n_big, chunk);
  ASSERT_TRUE(resident.is_ok() && streamed.is_ok());
  const std::size_t need = std::max(device_msm<G>::scratch_bytes(n_small, 0),
                                    device_msm<G>::scratch_bytes(n_big, chunk));
  ASSERT_GT(need, 0u);
  device_arena arena;
  ASSERT_TRUE(arena.reserve(need).is_ok());
  auto dev = device_buffer<repr>::create(n_big);
  ASSERT_TRUE(dev.is_ok());
  for (unsigned round = 0; round < 3; ++round) {
    std::vector<Fr> s(n_big);
    for (std::size_t i = 0; i < n_big; ++i) s[i] = (rng() % 3 == 0) ? Fr::random(rng) : Fr::from_uint(rng() % 2);
    const auto reprs = canonical<G>(s);
    ASSERT_TRUE(dev->copy_from_host(reprs.data(), n_big).is_ok());
    for (const bool big : {true, false}) {
      ASSERT_EQ(cudaMemset(arena.base(), 0xa5, arena.capacity()), cudaSuccess);
      const std::size_t n = big ? n_big : n_small;
      auto got = (big ? *streamed : *resident).run_device(dev->data(), n, nullptr, nullptr, &arena);
      ASSERT_TRUE(got.is_ok()) << got.error().to_string();
      const std::vector<aff_t<G>> p(pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(n));
      const std::vector<Fr> sc(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_EQ(*got, naive_parallel<G>(p, sc)) << (big ? "streamed" : "resident") << ", round " << round;
    }
  }
  EXPECT_EQ(arena.allocations(), 1u) << "scratch_bytes() undercounted the layout";
  EXPECT_EQ(resident->own_scratch_bytes(), 0u);
  EXPECT_EQ(streamed->own_scratch_bytes(), 0u);
}

// Scalar sets copied to the device, each with its sum by the CPU over `pts`: a batch for
// run_device_batch and what it must give.
template <class G>
struct device_scalar_sets {
  using repr = typename fr_t<G>::repr;
  std::vector<device_buffer<repr>> dev;
  std::vector<const repr*> sets;
  std::vector<jac_t<G>> want;

  // False where the device refused the buffer or the copy.
  bool add(const std::vector<aff_t<G>>& pts, const std::vector<fr_t<G>>& s) {
    want.push_back(naive_parallel<G>(pts, s));
    const auto reprs = canonical<G>(s);
    auto d = device_buffer<repr>::create(s.size());
    if (!d.is_ok() || !d->copy_from_host(reprs.data(), s.size()).is_ok()) return false;
    sets.push_back(d->data());
    dev.push_back(std::move(*d));
    return true;
  }
};

// A batch of scalar sets over one object: streamed points (each range crossing once for all the
// sets), resident points in ranges, and plain resident points (one set after another) give every
// set's sum, for ranges that do not divide n, with one set all zero.
TYPED_TEST(GpuMsm, BatchOfScalarSetsMatchesEachSet) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  using repr = typename Fr::repr;
  std::mt19937_64 rng(0xba7c + sizeof(typename G::field));
  const std::size_t n = 9000;
  auto pts = progression<G>(n, random_point<G>(rng), random_point<G>(rng).to_affine());
  pts[11] = aff_t<G>::infinity();
  constexpr unsigned P = 3;
  device_scalar_sets<G> batch;
  for (unsigned p = 0; p < P; ++p) {
    std::vector<Fr> s(n);
    for (std::size_t i = 0; i < n; ++i)
      s[i] = p == 1 ? Fr::zero() : (rng() % 4 == 0) ? Fr::random(rng) : Fr::from_uint(rng() % 2);
    ASSERT_TRUE(batch.add(pts, s));
  }
  const auto& sets = batch.sets;
  const auto& want = batch.want;
  auto check = [&](device_msm<G>& m, const std::string& where) {
    for (const auto acc : {msm_accumulation::affine, msm_accumulation::xyzz}) {
      m.set_accumulation(acc);
      const std::string what = where + (acc == msm_accumulation::affine ? ", affine" : ", xyzz");
      std::vector<jac_t<G>> got(P);
      const status done = m.run_device_batch(sets, n, got);
      ASSERT_TRUE(done.is_ok()) << what << ": " << done.to_string();
      for (unsigned p = 0; p < P; ++p) EXPECT_EQ(got[p], want[p]) << what << ", set " << p;
      std::vector<jac_t<G>> one(1);
      ASSERT_TRUE(m.run_device_batch(std::span<const repr* const>(sets.data() + 2, 1), n, one).is_ok());
      EXPECT_EQ(one[0], want[2]) << what << ", a batch of one";
    }
    m.set_accumulation(msm_accumulation::automatic);
  };
  for (const std::size_t chunk : {std::size_t{1000}, std::size_t{4097}, n}) {
    auto m = device_msm<G>::create_streamed(pts.data(), n, chunk);
    ASSERT_TRUE(m.is_ok());
    check(*m, "streamed in ranges of " + std::to_string(chunk));
  }
  auto resident = device_msm<G>::create(pts.data(), n);
  ASSERT_TRUE(resident.is_ok());
  check(*resident, "resident");
  resident->set_resident_range(2500);
  check(*resident, "resident in ranges of 2500");
  std::vector<jac_t<G>> wrong(P - 1);
  EXPECT_EQ(resident->run_device_batch(sets, n, wrong).code(), errc::invalid_argument);
}

// The scalars' share of 0 and 1 (run_device_batch's zero_one_share) may change what `automatic`
// runs, never the sums, and never grows the caller's arena: a streamed batch of mostly-0/1 sets
// on an arena sized for the other accumulation's scratch, exactly, with shares 0, one half and 1.
// Where the two scratches differ in size, the smaller arena tells which one ran: had the hint not
// taken the path that fits, the arena would have grown.
TYPED_TEST(GpuMsm, ZeroOneShareChoosesOnlyWhatFitsTheArena) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  std::mt19937_64 rng(0x01e + sizeof(typename G::field));
  const std::size_t n = 6000, chunk = 2048;
  constexpr unsigned P = 2;
  auto pts = progression<G>(n, random_point<G>(rng), random_point<G>(rng).to_affine());
  device_scalar_sets<G> batch;
  for (unsigned p = 0; p < P; ++p) {
    std::vector<Fr> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = (rng() % 10 == 0) ? Fr::random(rng) : Fr::from_uint(rng() % 2);
    ASSERT_TRUE(batch.add(pts, s));
  }
  const auto& sets = batch.sets;
  const auto& want = batch.want;
  auto m = device_msm<G>::create_streamed(pts.data(), n, chunk);
  ASSERT_TRUE(m.is_ok());
  const bool plain_affine = device_msm<G>::uses_affine(n, msm_accumulation::automatic, true);
  const bool hinted_affine = device_msm<G>::uses_affine(n, msm_accumulation::automatic, true, 1.0);
  const std::size_t affine_bytes = device_msm<G>::scratch_bytes(n, chunk, msm_accumulation::affine, P);
  const std::size_t xyzz_bytes = device_msm<G>::scratch_bytes(n, chunk, msm_accumulation::xyzz, P);
  for (const std::size_t size : {affine_bytes, xyzz_bytes}) {
    for (const double share : {0.0, 0.5, 1.0}) {
      const std::string what = "arena of " + std::to_string(size) + " bytes (affine " +
                               std::to_string(affine_bytes) + ", xyzz " + std::to_string(xyzz_bytes) +
                               "), share " + std::to_string(share);
      const bool hinted = device_msm<G>::uses_affine(n, msm_accumulation::automatic, true, share);
      device_arena arena;
      ASSERT_TRUE(arena.reserve(size).is_ok());
      std::vector<jac_t<G>> got(P);
      const status done = m->run_device_batch(sets, n, got, nullptr, &arena, share);
      ASSERT_TRUE(done.is_ok()) << what << ": " << done.to_string();
      for (unsigned p = 0; p < P; ++p) EXPECT_EQ(got[p], want[p]) << what << ", set " << p;
      // The path the share asked for, where it fits; the one without the share otherwise (which
      // grows the arena only where that one's own scratch is larger than the arena).
      const std::size_t asked = hinted ? affine_bytes : xyzz_bytes;
      const std::size_t plain = plain_affine ? affine_bytes : xyzz_bytes;
      const bool grows = asked <= size ? false : plain > size;
      EXPECT_EQ(arena.allocations(), grows ? 2u : 1u) << what;
    }
  }
  // G2 takes the XYZZ runs for a mostly-0/1 streamed batch; G1's choice does not depend on it.
  if constexpr (std::is_same_v<typename G::field, typename G::curve::fq>) {
    EXPECT_EQ(hinted_affine, plain_affine);
  } else {
    // BLS12-381 streams G2 through the affine rounds unless most scalars are 0 or 1; BN254 through
    // the XYZZ runs whatever the scalars (msm_g2_prefers_xyzz).
    const bool bls = std::is_same_v<typename G::curve, bls12_381>;
    EXPECT_EQ(plain_affine, bls);
    EXPECT_EQ(device_msm<G>::uses_affine(n, msm_accumulation::automatic, true, 0.7), bls);
    EXPECT_FALSE(hinted_affine);
    EXPECT_TRUE(device_msm<G>::uses_affine(n, msm_accumulation::automatic, false, 1.0)) << "resident G2";
    // Streamed G2's XYZZ scratch fits wherever the affine rounds' does, up to a PoRep batch's
    // (the sizes are counted, nothing is allocated): the choice per proof is then always free.
    struct shape {
      std::size_t count, chunk;
      unsigned sets;
    };
    for (const shape sh : {shape{n, chunk, P}, shape{std::size_t{1} << 24, std::size_t{1} << 22, 1},
                           shape{std::size_t{1} << 26, std::size_t{1} << 20, 1},
                           shape{std::size_t{1} << 26, std::size_t{1} << 22, 10},
                           shape{std::size_t{1} << 27, std::size_t{1} << 20, 3}}) {
      EXPECT_LE(device_msm<G>::scratch_bytes(sh.count, sh.chunk, msm_accumulation::xyzz, sh.sets),
                device_msm<G>::scratch_bytes(sh.count, sh.chunk, msm_accumulation::affine, sh.sets))
          << "count " << sh.count << ", ranges of " << sh.chunk << ", " << sh.sets << " sets";
    }
  }
}

TYPED_TEST(GpuMsm, ClosedFormsLarge) {
  CUZK_REQUIRE_GPU();
  using G = TypeParam;
  using Fr = fr_t<G>;
  const auto& g = G::generator;
  std::mt19937_64 rng(0xb0b + sizeof(typename G::field));
  const bool is_g1 = std::string(G::name) == "G1";
  for (const std::size_t n : {(std::size_t{1} << 16) + 1, std::size_t{1} << 20, (std::size_t{1} << 21) + 1}) {
    if (n > (std::size_t{1} << 17) && !is_g1) continue;  // G2 points cost the CPU oracle ~3x more
    // P_i = [i + 1]g.
    auto pts = progression<G>(n, jac_t<G>::from_affine(g), g);
    for (std::size_t i = 5; i < n; i += 11) pts[i] = aff_t<G>::infinity();
    auto msm = device_msm<G>::create(pts.data(), n);
    ASSERT_TRUE(msm.is_ok()) << msm.error().to_string();
    auto weight = [&](std::size_t i) { return (i % 11 == 5) ? Fr::zero() : Fr::from_uint(i + 1); };

    std::vector<Fr> s(n);
    Fr want = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = (i % 13 == 2) ? Fr::zero() : Fr::from_uint(i + 1);
      want += s[i] * weight(i);
    }
    EXPECT_EQ(run_gpu<G>(*msm, s), ec::scalar_mul(g, want)) << "scalars i, n=" << n;

    want = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = (i % 13 == 2) ? Fr::zero() : Fr::random(rng);
      want += s[i] * weight(i);
    }
    EXPECT_EQ(run_gpu<G>(*msm, s), ec::scalar_mul(g, want)) << "random scalars, n=" << n;
    // Streamed, in ranges that leave a short last one.
    expect_streamed<G>(pts, s, ec::scalar_mul(g, want), (n >> 2) + 12345);
  }
  // Random points, scalar 1: the plain sum.
  const std::size_t n = std::size_t{1} << 16;
  auto pts = progression<G>(n, random_point<G>(rng), random_point<G>(rng).to_affine());
  auto msm = device_msm<G>::create(pts.data(), n);
  ASSERT_TRUE(msm.is_ok());
  jac_t<G> want = jac_t<G>::infinity();
  for (const auto& p : pts) want += jac_t<G>::from_affine(p);
  EXPECT_EQ(run_gpu<G>(*msm, std::vector<Fr>(n, Fr::one())), want) << "scalar 1";
}

// The largest BN254 domain, 2^28 points (16 GiB of them): more digits than 32-bit indices reach at
// once, so resident points run in ranges taking turns, and streamed ones in the default ranges.
// Points [i + 1]G with random scalars s_i (every 7th zero, every 11th point at infinity) sum to
// [sum s_i (i + 1)]G, checked with Fr arithmetic only.
TEST(GpuMsmLargest, Bn254G1TwoToThe28ClosedForm) {
  CUZK_REQUIRE_GPU();
  using G = bn254_g1;
  using Fr = G::scalar;
  const std::size_t n = std::size_t{1} << 28;
  // Device: the points, the host scalars' room and the scratch of ranges of 2^24; host: the points,
  // the scalars and their canonical copy.
  const std::size_t device_need = n * sizeof(aff_t<G>) + (std::size_t{12} << 30);
  const std::size_t host_need = n * (sizeof(aff_t<G>) + 2 * sizeof(Fr)) + (std::size_t{8} << 30);
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const std::size_t host_bytes =
      static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  if (free_bytes < device_need || host_bytes < host_need)
    GTEST_SKIP() << "2^28 BN254 points need " << (device_need >> 30) << " GiB of device memory and "
                 << (host_need >> 30) << " GiB of host memory; " << (free_bytes >> 30) << " and "
                 << (host_bytes >> 30) << " GiB here";
  const auto& g = G::generator;
  auto pts = progression<G>(n, jac_t<G>::from_affine(g), g);
  std::vector<Fr> s(n);
  std::vector<typename Fr::repr> reprs(n);
  std::mutex m;
  Fr want = Fr::zero();
  thread_pool::global().parallel_for(
      n,
      [&](std::size_t b, std::size_t e) {
        std::mt19937_64 rng(0x28 + b);
        Fr part = Fr::zero();
        for (std::size_t i = b; i < e; ++i) {
          if (i % 11 == 5) pts[i] = aff_t<G>::infinity();
          s[i] = i % 7 == 3 ? Fr::zero() : Fr::random(rng);
          reprs[i] = s[i].to_canonical();
          if (i % 11 != 5) part += s[i] * Fr::from_uint(i + 1);
        }
        std::lock_guard<std::mutex> lock(m);
        want += part;
      },
      1 << 16);
  const auto expected = ec::scalar_mul(g, want);
  {
    auto resident = device_msm<G>::create(pts.data(), n);
    ASSERT_TRUE(resident.is_ok()) << resident.error().to_string();
    msm_timing t;
    auto r = resident->run(reprs.data(), n, &t);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    EXPECT_EQ(*r, expected) << "resident";
    EXPECT_GT(t.chunks, 1u) << "2^28 resident points must run in ranges";
  }
  auto streamed = device_msm<G>::create_streamed(pts.data(), n, device_msm<G>::default_chunk_points);
  ASSERT_TRUE(streamed.is_ok()) << streamed.error().to_string();
  auto r = streamed->run(reprs.data(), n);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(*r, expected) << "streamed";
}

}  // namespace
}  // namespace cuzk::gpu
