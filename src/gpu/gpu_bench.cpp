// cuzk_gpu_bench: GPU NTT and MSM timings as a plain table (the GPU machine has no Google
// Benchmark). CUDA events around each run, one warm-up run excluded, median of --reps runs.
//
//   cuzk_gpu_bench ntt|msm|msm-g2 --curve bn254|bls12-381 --log-size K[,K...] [--reps N]
//                  [--accumulation auto|affine|xyzz[,...]] [--chunks K[,K...]]
//                  [--scalars host|device[,...]]
//
// ntt: data resident on the device; forward natural->bit-reversed, inverse bit-reversed->natural,
// forward natural->natural and forward coset natural->bit-reversed, each in place over random Fr.
// msm (G1) and msm-g2: 2^K points resident (random points, built on the CPU from one addition each), uniformly
// random scalars copied from pinned host memory each run (the copy is in the time, as in
// ../shared/ANCHORS.md's sppark figures), or with --scalars device already in device memory
// (msm.hpp run_device); the median run's phase breakdown follows the total. --chunks sets the
// XYZZ accumulation's point ranges (0, the default: by size). Lists of accumulations and chunk
// counts run every combination over the same points, one row each.
// With several sizes the points of the largest are built once and the smaller runs use a prefix.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ec/batch_to_affine.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/msm.hpp"
#include "msm/msm_inputs.hpp"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {
namespace {

struct options {
  std::string what, curve = "bn254";
  std::vector<unsigned> log_sizes;
  unsigned reps = 7;
  std::vector<msm_accumulation> accumulations;
  std::vector<unsigned> chunks;
  std::vector<bool> scalars;  // on the device (run_device) or in pinned host memory (run)
};

int fail(const status& s) {
  std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
  return 1;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class C>
int bench_ntt(const options& o) {
  using Fr = typename C::fr;
  std::mt19937_64 rng(1);
  std::printf("%-10s %-6s %12s %12s %12s %12s\n", "curve", "log_n", "fwd_nr_ms", "inv_rn_ms", "fwd_nn_ms",
              "coset_nr_ms");
  for (unsigned k : o.log_sizes) {
    auto plan = ntt_plan<Fr>::create(k);
    if (!plan) return fail(plan.error());
    const std::size_t n = std::size_t{1} << k;
    std::vector<Fr> x(n);
    for (auto& v : x) v = Fr::random(rng);
    auto buf = device_buffer<Fr>::create(n);
    if (!buf) return fail(buf.error());
    if (auto s = buf->copy_from_host(x.data(), n); !s) return fail(s);
    auto e0 = cuda_event::create(), e1 = cuda_event::create();
    if (!e0 || !e1) return fail(status(errc::cuda_error, "events"));
    auto time = [&](ntt_direction d, ntt_order ord, ntt_domain dom) -> float {
      std::vector<float> ms;
      for (unsigned r = 0; r <= o.reps; ++r) {
        (void)e0->record();
        const status s = plan->run(buf->data(), d, ord, dom);
        (void)e1->record();
        auto t = cuda_event::elapsed_ms(*e0, *e1);
        if (!s || !t) {
          std::fprintf(stderr, "error: %s\n", (!s ? s : t.error()).to_string().c_str());
          std::exit(1);
        }
        if (r > 0) ms.push_back(*t);
      }
      return median(ms);
    };
    const float f = time(ntt_direction::forward, ntt_order::natural_to_bitrev, ntt_domain::plain);
    const float i = time(ntt_direction::inverse, ntt_order::bitrev_to_natural, ntt_domain::plain);
    const float nn = time(ntt_direction::forward, ntt_order::natural_to_natural, ntt_domain::plain);
    const float cs = time(ntt_direction::forward, ntt_order::natural_to_bitrev, ntt_domain::coset);
    std::printf("%-10s %-6u %12.3f %12.3f %12.3f %12.3f\n", o.curve.c_str(), k, f, i, nn, cs);
    std::fflush(stdout);
  }
  return 0;
}

template <class G>
int bench_msm(const options& o) {
  using repr = typename G::scalar::repr;
  const unsigned max_k = *std::max_element(o.log_sizes.begin(), o.log_sizes.end());
  const std::size_t max_n = std::size_t{1} << max_k;
  const auto pts = msm::testing::random_points<G>(max_n, 1);
  auto msm = device_msm<G>::create(pts.data(), max_n);
  if (!msm) return fail(msm.error());
  repr* scalars = nullptr;
  if (cudaHostAlloc(reinterpret_cast<void**>(&scalars), max_n * sizeof(repr), cudaHostAllocDefault) != cudaSuccess)
    return fail(status(errc::cuda_error, "cudaHostAlloc for the scalars failed"));
  thread_pool::global().parallel_for(
      max_n,
      [&](std::size_t b, std::size_t e) {
        std::mt19937_64 rng(b * 3 + 5);
        for (std::size_t i = b; i < e; ++i) scalars[i] = G::scalar::random(rng).to_canonical();
      },
      1 << 14);
  device_buffer<repr> dev_scalars;
  if (std::find(o.scalars.begin(), o.scalars.end(), true) != o.scalars.end()) {
    auto d = device_buffer<repr>::create(max_n);
    if (!d) return fail(d.error());
    dev_scalars = std::move(*d);
    if (auto s = dev_scalars.copy_from_host(scalars, max_n); !s) return fail(s);
  }
  std::printf("%-10s %-5s %-6s %4s %3s %9s | %7s %7s %7s %7s %8s %7s %6s %6s %6s %7s\n", "curve", "group", "log_n", "c",
              "W", "total_ms", "copy", "digits", "sort", "plan", "accum", "reduce", "rounds", "path", "chunks",
              "scalars");
  auto measure = [&](unsigned k, msm_accumulation acc, unsigned chunks, bool on_device) -> int {
    msm->set_accumulation(acc);
    msm->set_chunks(chunks);
    const std::size_t n = std::size_t{1} << k;
    std::vector<msm_timing> runs;
    for (unsigned r = 0; r <= o.reps; ++r) {
      msm_timing t;
      auto res = on_device ? msm->run_device(dev_scalars.data(), n, &t) : msm->run(scalars, n, &t);
      if (!res) return fail(res.error());
      if (r > 0) runs.push_back(t);
    }
    std::sort(runs.begin(), runs.end(), [](const msm_timing& a, const msm_timing& b) { return a.total_ms < b.total_ms; });
    const msm_timing& m = runs[runs.size() / 2];
    std::printf("%-10s %-5s %-6u %4u %3u %9.2f | %7.2f %7.2f %7.2f %7.2f %8.2f %7.2f %6u %6s %6u %7s\n",
                o.curve.c_str(), G::name, k, m.window_bits, m.windows, m.total_ms, m.copy_ms, m.digits_ms, m.sort_ms,
                m.plan_ms, m.accumulate_ms, m.reduce_ms, m.rounds, m.affine ? "affine" : "xyzz", m.chunks,
                on_device ? "device" : "host");
    std::fflush(stdout);
    return 0;
  };
  for (unsigned k : o.log_sizes)
    for (msm_accumulation acc : o.accumulations)
      for (unsigned chunks : o.chunks)
        for (bool on_device : o.scalars)
          if (int rc = measure(k, acc, chunks, on_device); rc != 0) return rc;
  cudaFreeHost(scalars);
  return 0;
}

std::vector<std::string> split(const std::string& v) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p < v.size()) {
    std::size_t q = v.find(',', p);
    if (q == std::string::npos) q = v.size();
    out.push_back(v.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

int usage() {
  std::fprintf(stderr, "usage: cuzk_gpu_bench ntt|msm|msm-g2 --curve bn254|bls12-381 --log-size K[,K...] [--reps N]\n"
                       "                      [--accumulation auto|affine|xyzz[,...]] [--chunks K[,K...]]\n"
                       "                      [--scalars host|device[,...]]\n");
  return 2;
}

int main_impl(int argc, char** argv) {
  if (argc < 2) return usage();
  options o;
  o.what = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--curve") o.curve = v;
    else if (a == "--accumulation") {
      for (const std::string& x : split(v)) {
        if (x == "affine") o.accumulations.push_back(msm_accumulation::affine);
        else if (x == "xyzz") o.accumulations.push_back(msm_accumulation::xyzz);
        else if (x == "auto") o.accumulations.push_back(msm_accumulation::automatic);
        else return usage();
      }
    } else if (a == "--reps") o.reps = static_cast<unsigned>(std::stoul(v));
    else if (a == "--chunks") {
      for (const std::string& x : split(v)) o.chunks.push_back(static_cast<unsigned>(std::stoul(x)));
    }
    else if (a == "--scalars") {
      for (const std::string& x : split(v)) {
        if (x == "device") o.scalars.push_back(true);
        else if (x == "host") o.scalars.push_back(false);
        else return usage();
      }
    }
    else if (a == "--log-size") {
      for (const std::string& x : split(v)) o.log_sizes.push_back(static_cast<unsigned>(std::stoul(x)));
    } else return usage();
  }
  if (o.accumulations.empty()) o.accumulations.push_back(msm_accumulation::automatic);
  if (o.chunks.empty()) o.chunks.push_back(0);
  if (o.scalars.empty()) o.scalars.push_back(false);
  if (o.log_sizes.empty() || o.reps == 0) return usage();
  auto desc = device_description(0);
  if (!desc) return fail(desc.error());
  std::printf("# %s, %s %s, median of %u after one warm-up\n", desc->c_str(), o.what.c_str(), o.curve.c_str(), o.reps);
  const bool bls = o.curve == "bls12-381" || o.curve == "bls12_381";
  if (!bls && o.curve != "bn254") return usage();
  if (o.what == "ntt") return bls ? bench_ntt<bls12_381>(o) : bench_ntt<bn254>(o);
  if (o.what == "msm") return bls ? bench_msm<bls12_381_g1>(o) : bench_msm<bn254_g1>(o);
  if (o.what == "msm-g2") return bls ? bench_msm<bls12_381_g2>(o) : bench_msm<bn254_g2>(o);
  return usage();
}

}  // namespace
}  // namespace cuzk::gpu

int main(int argc, char** argv) {
  try {
    return cuzk::gpu::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
