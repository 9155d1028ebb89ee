// SPDX-License-Identifier: MIT OR Apache-2.0
// The NTT benchmark (ntt_bench.hpp): a plan and a resident buffer per size, each transform timed
// by CUDA events on the default stream, which is where ntt_plan::run queues its kernels.
#include "apps/bench/ntt_bench.hpp"

#include <random>
#include <vector>

#include "apps/bench/bench_stats.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/ntt.hpp"

namespace cuzk::apps::bench {

using namespace cuzk::gpu;  // the kernels these benchmarks time
namespace {

struct transform {
  const char* name;
  ntt_direction direction;
  ntt_order order;
  ntt_domain domain;
};

constexpr transform transforms[] = {
    {"fwd_nr", ntt_direction::forward, ntt_order::natural_to_bitrev, ntt_domain::plain},
    {"inv_rn", ntt_direction::inverse, ntt_order::bitrev_to_natural, ntt_domain::plain},
    {"fwd_nn", ntt_direction::forward, ntt_order::natural_to_natural, ntt_domain::plain},
    {"coset_nr", ntt_direction::forward, ntt_order::natural_to_bitrev, ntt_domain::coset},
    // The two the Groth16 prover runs per column (groth16/gpu/gpu_prover_impl.hpp).
    {"inv_nr", ntt_direction::inverse, ntt_order::natural_to_bitrev, ntt_domain::plain},
    {"coset_rn", ntt_direction::forward, ntt_order::bitrev_to_natural, ntt_domain::coset},
    {"fwd_rn", ntt_direction::forward, ntt_order::bitrev_to_natural, ntt_domain::plain},
};

template <class C>
status bench(const ntt_bench_options& o, std::FILE* out) {
  using Fr = typename C::fr;
  std::mt19937_64 rng(1);
  std::fprintf(out, "%-10s %-6s %-9s %11s %10s %10s\n", "curve", "log_n", "transform", "median_ms", "min_ms",
               "max_ms");
  for (unsigned k : o.log_sizes) {
    auto plan = ntt_plan<Fr>::create(k);
    if (!plan) return plan.error();
    const std::size_t n = std::size_t{1} << k;
    std::vector<Fr> x(n);
    for (auto& v : x) v = Fr::random(rng);
    auto buf = device_buffer<Fr>::create(n);
    if (!buf) return buf.error();
    CUZK_TRY(buf->copy_from_host(x.data(), n));
    auto e0 = cuda_event::create(), e1 = cuda_event::create();
    if (!e0) return e0.error();
    if (!e1) return e1.error();
    for (const transform& t : transforms) {
      std::vector<double> ms;
      for (unsigned r = 0; r <= o.reps; ++r) {
        CUZK_TRY(e0->record());
        CUZK_TRY(plan->run(buf->data(), t.direction, t.order, t.domain));
        CUZK_TRY(e1->record());
        auto elapsed = cuda_event::elapsed_ms(*e0, *e1);
        if (!elapsed) return elapsed.error();
        if (r > 0) ms.push_back(*elapsed);
      }
      const sample_stats s = summarize(std::move(ms));
      std::fprintf(out, "%-10s %-6u %-9s %11.3f %10.3f %10.3f\n", curve_name(o.curve), k, t.name, s.median,
                   s.min, s.max);
      std::fflush(out);
    }
  }
  return status::ok();
}

}  // namespace

status run_ntt_bench(const ntt_bench_options& o, std::FILE* out) {
  CUZK_TRY(validate(o));
  CUZK_TRY(use_device(o.device));
  auto desc = device_description(o.device);
  if (!desc) return desc.error();
  std::fprintf(out,
               "# %s, device %d; ntt %s; ms over %u runs after one warm-up (CUDA events), data resident\n",
               desc->c_str(), o.device, curve_name(o.curve), o.reps);
  return o.curve == bench_curve::bn254 ? bench<bn254>(o, out) : bench<bls12_381>(o, out);
}

}  // namespace cuzk::apps::bench
