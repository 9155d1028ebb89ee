// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/selfcheck.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/groups.hpp"
#include "ec/group.hpp"
#include "ec/scalar_mul.hpp"
#include "pairing/pairing.hpp"
#if CUZK_HAVE_CUDA
#include "gpu/device.hpp"
#include "gpu/field_batch.hpp"
#include "groth16/prover_choice.hpp"
#endif

namespace cuzk::apps {
namespace {

struct report {
  int failures = 0;
  void check(const std::string& curve, const std::string& what, bool ok) {
    std::printf("  %-10s %-58s %s\n", curve.c_str(), what.c_str(), ok ? "ok" : "FAILED");
    if (!ok) ++failures;
  }
};

// Median wall time of `reps` runs of `iters` calls, in nanoseconds per call.
template <class F>
double time_ns(F&& body, int iters, int reps = 5) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) body();
    const auto end = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::nano>(end - start).count() / iters);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string human(double ns) {
  char buf[32];
  if (ns < 1e3) std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  else if (ns < 1e6) std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  return buf;
}

template <class C>
void check_curve(report& rep, std::mt19937_64& rng) {
  using fr = typename C::fr;
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  const std::string name = C::name;
  const auto P = G1::generator;
  const auto Q = G2::generator;

  rep.check(name, "G1 generator on the curve and in the subgroup", ec::is_in_subgroup<G1>(P));
  rep.check(name, "G2 generator on the curve and in the subgroup", ec::is_in_subgroup<G2>(Q));

  const auto e = pairing::pairing<C>(P, Q);
  rep.check(name, "e(G1, G2) != 1", !e.is_one());
  rep.check(name, "e(G1, G2)^r == 1", e.pow(fr::modulus).is_one());

  const fr a = fr::random(rng), b = fr::random(rng);
  const auto aP = ec::scalar_mul(P, a).to_affine();
  const auto bQ = ec::scalar_mul(Q, b).to_affine();
  rep.check(name, "bilinearity e([a]P, [b]Q) == e(P, Q)^(ab), random a, b",
            pairing::pairing<C>(aP, bQ) == e.pow((a * b).to_canonical()));

  // The verifier's shape: e(-A, B) * e(C1, D1) * e(C2, D2) * e(E, F) == 1 with
  // A = [a]P, B = [b]Q, and the other three pairs splitting [ab] as a*b = x + y + z.
  const fr x = fr::random(rng), y = fr::random(rng);
  const fr z = a * b - x - y;
  const std::vector<pairing::g1g2_pair<C>> pairs = {
      {-aP, bQ},
      {ec::scalar_mul(P, x).to_affine(), Q},
      {P, ec::scalar_mul(Q, y).to_affine()},
      {ec::scalar_mul(P, z).to_affine(), Q},
  };
  rep.check(name, "Groth16-shaped 4-pairing product == 1", pairing::pairing_check<C>(pairs));
  auto broken = pairs;
  broken[3].p = ec::scalar_mul(P, z + fr::one()).to_affine();
  rep.check(name, "... and != 1 when one term is off by [1]P", !pairing::pairing_check<C>(broken));
}

template <class C>
void time_curve(std::mt19937_64& rng) {
  using fq = typename C::fq;
  using fr = typename C::fr;
  using G1 = g1_group<C>;
  fq x = fq::random(rng);
  const fq y = fq::random(rng);
  const double mul = time_ns([&] { x = x * y; }, 200000);
  auto p = ec::scalar_mul(G1::generator, fr::random(rng));
  const auto q = ec::scalar_mul(G1::generator, fr::random(rng));
  const double add = time_ns([&] { p = p + q; }, 20000);
  const auto P = G1::generator;
  const auto Q = g2_group<C>::generator;
  typename pairing::fq12<C> acc;
  const double pair = time_ns([&] { acc = pairing::pairing<C>(P, Q); }, 20, 3);
  std::printf("  %-10s Fq mul %-10s G1 add %-10s pairing %s\n", C::name, human(mul).c_str(),
              human(add).c_str(), human(pair).c_str());
  // Keep the timed results observable so the loops are not optimized away.
  if (x.is_zero() && p.is_infinity() && acc.is_one()) std::printf(" ");
}

#if CUZK_HAVE_CUDA
template <class F>
void check_gpu_field(report& rep, int device, const char* name, std::mt19937_64& rng) {
  const std::size_t n = std::size_t{1} << 20;
  std::vector<F> a(n), b(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = F::random(rng);
    b[i] = F::random(rng);
  }
  const status s = gpu::field_batch<F>(device, gpu::field_op::mul, a.data(), b.data(), out.data(), n);
  bool ok = s.is_ok();
  for (std::size_t i = 0; ok && i < n; ++i) ok = out[i] == a[i] * b[i];
  rep.check(name, "GPU: 2^20 random products equal the CPU's", ok);
  if (!s.is_ok()) std::printf("             %s\n", s.to_string().c_str());
}

void check_gpu(report& rep, std::mt19937_64& rng) {
  const auto count = gpu::device_count();
  if (!count.is_ok() || *count == 0) {
    const std::string why =
        count.is_ok() ? "none found" : groth16::plain_cuda_reason(count.error().message());
    std::printf("  no usable CUDA GPU: %s; GPU checks skipped\n", why.c_str());
    return;
  }
  const auto desc = gpu::device_description(0);
  std::printf("  device 0: %s\n", desc.is_ok() ? desc->c_str() : desc.error().to_string().c_str());
  check_gpu_field<bn254::fq>(rep, 0, "bn254", rng);
  check_gpu_field<bls12_381::fq>(rep, 0, "bls12-381", rng);
}
#endif

}  // namespace

int run_selfcheck(const selfcheck_options& options) {
  std::random_device seed;
  std::mt19937_64 rng((static_cast<uint64_t>(seed()) << 32) | seed());
  report rep;

  std::printf("cuzk selfcheck\n\nchecks (fresh random inputs):\n");
  check_curve<bn254>(rep, rng);
  check_curve<bls12_381>(rep, rng);

  std::printf("\nGPU:\n");
#if CUZK_HAVE_CUDA
  if (options.gpu) check_gpu(rep, rng);
  else std::printf("  skipped (--no-gpu)\n");
#else
  (void)options;
  std::printf("  this build has no CUDA backend\n");
#endif

  std::printf("\ntimings (median, this machine, one thread):\n");
  time_curve<bn254>(rng);
  time_curve<bls12_381>(rng);

  std::printf("\n%s\n", rep.failures == 0 ? "all checks passed" : "SOME CHECKS FAILED");
  return rep.failures == 0 ? 0 : 1;
}

}  // namespace cuzk::apps
