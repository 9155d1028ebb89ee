// SPDX-License-Identifier: MIT OR Apache-2.0
// The MSM benchmark (msm_bench.hpp): one device_msm over the largest size's points, reconfigured
// (accumulation, chunks) between rows, so every row runs the same points and scalars.
#include "apps/bench/msm_bench.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "apps/bench/bench_stats.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "gpu/locked_host_memory.hpp"
#include "msm/msm_inputs.hpp"

namespace cuzk::apps::bench {

using namespace cuzk::gpu;  // the kernels these benchmarks time
namespace {

msm_accumulation to_msm(msm_accumulation_choice a) {
  switch (a) {
    case msm_accumulation_choice::affine:
      return msm_accumulation::affine;
    case msm_accumulation_choice::xyzz:
      return msm_accumulation::xyzz;
    case msm_accumulation_choice::automatic:
      break;
  }
  return msm_accumulation::automatic;
}

template <class G>
status bench(const msm_bench_options& o, std::FILE* out) {
  using repr = typename G::scalar::repr;
  const unsigned max_k = *std::max_element(o.log_sizes.begin(), o.log_sizes.end());
  const std::size_t max_n = std::size_t{1} << max_k;
  // Streamed points stay in pinned host memory, as a streamed key's do, for the MSM's lifetime.
  locked_buffer<typename G::affine> host_points;
  auto msm = [&]() -> result<device_msm<G>> {
    const auto pts = msm::testing::random_points<G>(max_n, 1);
    if (o.points == msm_points::resident) return device_msm<G>::create(pts.data(), max_n);
    auto pinned = locked_buffer<typename G::affine>::create(max_n);
    if (!pinned) return pinned.error();
    host_points = std::move(*pinned);
    thread_pool::global().parallel_for(
        max_n,
        [&](std::size_t b, std::size_t e) {
          std::copy(pts.begin() + static_cast<std::ptrdiff_t>(b), pts.begin() + static_cast<std::ptrdiff_t>(e),
                    host_points.data() + b);
        },
        1 << 16);
    return device_msm<G>::create_streamed(host_points.data(), max_n, o.chunk_points);
  }();
  if (!msm) return msm.error();
  auto scalars = locked_buffer<repr>::create(max_n);
  if (!scalars) return scalars.error();
  repr* s = scalars->data();
  thread_pool::global().parallel_for(
      max_n,
      [&](std::size_t b, std::size_t e) {
        std::mt19937_64 rng(b * 3 + 5);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (std::size_t i = b; i < e; ++i)
          s[i] = o.zero_one_share > 0 && u(rng) < o.zero_one_share ? repr::from_u64(rng() & 1)
                                                                   : G::scalar::random(rng).to_canonical();
      },
      1 << 14);
  device_buffer<repr> dev_scalars;
  if (std::find(o.scalars.begin(), o.scalars.end(), msm_scalars::device) != o.scalars.end()) {
    auto d = device_buffer<repr>::create(max_n);
    if (!d) return d.error();
    dev_scalars = std::move(*d);
    CUZK_TRY(dev_scalars.copy_from_host(s, max_n));
  }
  std::fprintf(out, "%-10s %-5s %-6s %4s %3s %10s %9s %9s | %7s %7s %7s %7s %8s %7s %6s %6s %6s %7s %8s\n",
               "curve", "group", "log_n", "c", "W", "median_ms", "min_ms", "max_ms", "copy", "digits", "sort",
               "plan", "accum", "reduce", "rounds", "path", "chunks", "scalars", "h2d_GBps");
  auto measure = [&](unsigned k, msm_accumulation_choice acc, unsigned chunks, msm_scalars where) -> status {
    msm->set_accumulation(to_msm(acc));
    msm->set_chunks(chunks);
    const std::size_t n = std::size_t{1} << k;
    const bool on_device = where == msm_scalars::device;
    std::vector<msm_timing> runs;
    for (unsigned r = 0; r <= o.reps; ++r) {
      msm_timing t;
      auto res = on_device ? msm->run_device(dev_scalars.data(), n, &t) : msm->run(s, n, &t);
      if (!res) return res.error();
      if (r > 0) runs.push_back(t);
    }
    std::vector<double> totals;
    for (const auto& t : runs) totals.push_back(t.total_ms);
    const sample_stats st = summarize(totals);
    const msm_timing& m = runs[median_index(runs, [](const msm_timing& t) { return t.total_ms; })];
    // The scalars' bytes over the span of their copies (with chunks, overlapped with the work).
    const double gbps = m.copy_ms > 0 ? static_cast<double>(n * sizeof(repr)) / (m.copy_ms * 1e6) : 0.0;
    std::fprintf(
        out,
        "%-10s %-5s %-6u %4u %3u %10.2f %9.2f %9.2f | %7.2f %7.2f %7.2f %7.2f %8.2f %7.2f %6u %6s %6u %7s "
        "%8.1f\n",
        curve_name(o.curve), G::name, k, m.window_bits, m.windows, st.median, st.min, st.max, m.copy_ms,
        m.digits_ms, m.sort_ms, m.plan_ms, m.accumulate_ms, m.reduce_ms, m.rounds,
        m.affine ? "affine" : "xyzz", m.chunks, on_device ? "device" : "host", gbps);
    std::fflush(out);
    return status::ok();
  };
  for (unsigned k : o.log_sizes)
    for (msm_accumulation_choice acc : o.accumulations)
      for (unsigned chunks : o.chunks)
        for (msm_scalars where : o.scalars) CUZK_TRY(measure(k, acc, chunks, where));
  return status::ok();
}

}  // namespace

status run_msm_bench(const msm_bench_options& o, std::FILE* out) {
  CUZK_TRY(validate(o));
  CUZK_TRY(use_device(o.device));
  auto desc = device_description(o.device);
  if (!desc) return desc.error();
  const bool g1 = o.group == msm_group::g1;
  std::fprintf(
      out,
      "# %s, device %d; msm %s %s; ms over %u runs after one warm-up (CUDA events), points %s, "
      "scalars %.2f 0/1; phases of the median run\n",
      desc->c_str(), o.device, curve_name(o.curve), g1 ? "G1" : "G2", o.reps,
      o.points == msm_points::resident ? "resident"
      : o.chunk_points != 0            ? ("streamed in ranges of " + std::to_string(o.chunk_points)).c_str()
                                       : "streamed in the default ranges",
      o.zero_one_share);
  if (o.curve == bench_curve::bn254) return g1 ? bench<bn254_g1>(o, out) : bench<bn254_g2>(o, out);
  return g1 ? bench<bls12_381_g1>(o, out) : bench<bls12_381_g2>(o, out);
}

}  // namespace cuzk::apps::bench
