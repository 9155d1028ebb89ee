// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for gpu_key_placement.hpp, instantiated for both curves at the end (host code: the
// MSM arenas' sizes come from gpu::device_msm::scratch_bytes, compiled in the cuzk_gpu library).
#include "groth16/gpu/gpu_key_placement.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/abc_device.hpp"
#include "gpu/msm.hpp"

namespace cuzk::groth16 {

template <class Curve>
msm_scratch_sizes key_msm_scratch(const proving_key_view<Curve>& pk, key_vector_set streamed,
                                  std::size_t chunk_points, unsigned sets, bool b2_beside) {
  using g1 = gpu::msm_g1<Curve>;
  using g2 = gpu::msm_g2<Curve>;
  const auto automatic = gpu::msm_accumulation::automatic;
  auto chunk = [&](key_vector v, std::size_t fallback) -> std::size_t {
    return streamed.contains(v) ? (chunk_points != 0 ? chunk_points : fallback) : 0;
  };
  auto g1_bytes = [&](std::size_t count, key_vector v) {
    return g1::scratch_bytes(count, chunk(v, g1::default_chunk_points), automatic, sets);
  };
  const std::size_t n_private = pk.n_vars - pk.n_public - 1;
  msm_scratch_sizes s;
  s.witness_side = std::max({g1_bytes(pk.a.size(), key_vector::a), g1_bytes(pk.b1.size(), key_vector::b1),
                             g1_bytes(n_private, key_vector::c)});
  const std::size_t b2 =
      g2::scratch_bytes(pk.b2.size(), chunk(key_vector::b2, g2::default_chunk_points), automatic, sets);
  if (b2_beside)
    s.b2_side = b2;
  else
    s.witness_side = std::max(s.witness_side, b2);
  s.h_side = g1_bytes(pk.domain_size, key_vector::h);
  return s;
}

template <class Curve>
std::size_t estimate_device_bytes(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                  key_vector_set streamed) {
  using fr = typename Curve::fr;
  std::size_t bytes = 0;
  auto resident = [&](key_vector v, std::size_t vector_bytes) { bytes += streamed.contains(v) ? 0 : vector_bytes; };
  resident(key_vector::a, pk.a.size_bytes());
  resident(key_vector::b1, pk.b1.size_bytes());
  resident(key_vector::b2, pk.b2.size_bytes());
  resident(key_vector::c, pk.c.size_bytes());
  resident(key_vector::h, pk.h.size_bytes());
  bytes += gpu_ntt_plan_bytes<Curve>(pk.domain_size, options.twiddles);
  if (options.synthesis == synthesis_place::device && pk.matrices != nullptr)
    bytes += gpu::device_constraint_matrices<fr>::device_bytes(*pk.matrices);
  if (options.workspace == key_workspace::own) {
    using repr = typename fr::repr;
    const unsigned parts = std::max(1u, options.batch_partitions);
    // a | b | c and the witness (with two of a, b, c on the device and synthesis on the host, the
    // witness in b's place).
    using workspace = gpu_workspace<Curve>;
    bytes += workspace::abc_elements(pk.n_vars, pk.domain_size, options.synthesis, options.abc) * sizeof(fr);
    if (workspace::witness_of_its_own(options.synthesis, options.abc)) bytes += pk.n_vars * sizeof(repr);
    // A batch's witnesses and h vectors (what batch_device_bytes adds beside the arenas).
    if (parts > 1) bytes += parts * (pk.n_vars + pk.domain_size) * sizeof(repr);
    bytes += key_msm_scratch(pk, streamed, options.stream_chunk_points, parts, options.b2_beside).total();
  }
  return bytes;
}

template <class Curve>
gpu::ntt_memory choose_twiddles(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                std::size_t budget) {
  if (options.twiddles == gpu::ntt_memory::compact) return options.twiddles;
  return estimate_device_bytes(pk, options, options.streamed) <= budget ? gpu::ntt_memory::tables
                                                                        : gpu::ntt_memory::compact;
}

template <class Curve>
result<key_vector_set> choose_streamed(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                       std::size_t budget) {
  key_vector_set set = options.streamed;
  auto need = [&] { return estimate_device_bytes(pk, options, set); };
  for (key_vector v : streaming_order) {
    if (need() <= budget) return set;
    set = set.with(v);
  }
  if (need() <= budget) return set;
  return status(errc::resource_exhausted,
                "gpu prover: a key of domain size " + std::to_string(pk.domain_size) + " needs about " +
                    std::to_string(need() >> 20) + " MiB of device memory with every point vector streamed; the "
                    "budget is " + std::to_string(budget >> 20) + " MiB");
}

namespace {
// `options` at its own range with B2 `beside` or in turn, whatever that costs: the twiddles and
// the streamed vectors that fit `budget`.
template <class Curve>
result<gpu_key_options> place_with_b2(const proving_key_view<Curve>& pk, gpu_key_options options,
                                      std::size_t budget, bool beside) {
  options.b2_beside = beside;
  options.twiddles = choose_twiddles(pk, options, budget);
  auto set = choose_streamed(pk, options, budget);
  if (!set) return set.error();
  options.streamed = *set;
  return options;
}
}  // namespace

template <class Curve>
result<gpu_key_options> place_at_range(const proving_key_view<Curve>& pk, gpu_key_options options,
                                       std::size_t budget) {
  auto in_turn = place_with_b2(pk, options, budget, false);
  if (!options.b2_beside) return in_turn;
  auto beside = place_with_b2(pk, options, budget, true);
  if (!beside || !in_turn) return beside ? beside : in_turn;
  const bool same = beside->streamed == in_turn->streamed && beside->twiddles == in_turn->twiddles;
  return same ? beside : in_turn;
}

namespace {
// Whether placement `a` gives up nothing `b` keeps: no vector streamed that b keeps resident, the
// twiddles' tables where b has them, and ranges of streamed points no smaller (0: the default).
template <class Curve>
bool no_worse_than(const gpu_key_options& a, const gpu_key_options& b) {
  for (const key_vector v : all_key_vectors)
    if (a.streamed.contains(v) && !b.streamed.contains(v)) return false;
  const bool tables_kept = a.twiddles == gpu::ntt_memory::tables || b.twiddles != gpu::ntt_memory::tables;
  auto range = [](std::size_t r) { return r != 0 ? r : gpu::msm_g1<Curve>::default_chunk_points; };
  return tables_kept && range(a.stream_chunk_points) >= range(b.stream_chunk_points);
}
}  // namespace

template <class Curve>
result<gpu_key_options> fit_to_budget(const proving_key_view<Curve>& pk, gpu_key_options options,
                                      std::size_t budget) {
  options.device_budget_bytes.reset();
  // Where the caller left the range to the key, smaller ranges are tried before giving up: a
  // streamed MSM's arena shrinks with its range (gpu/msm.hpp), at some cost in time.
  std::vector<std::size_t> ranges = {options.stream_chunk_points};
  if (options.stream_chunk_points == 0)
    for (std::size_t r = gpu::msm_g1<Curve>::default_chunk_points / 2; r >= min_budget_chunk_points; r /= 2)
      ranges.push_back(r);
  result<gpu_key_options> placed = status(errc::internal, "fit_to_budget: no range tried");
  auto fit_at_some_range = [&] {
    for (const std::size_t r : ranges) {
      options.stream_chunk_points = r;
      placed = place_at_range(pk, options, budget);
      if (placed) return true;
    }
    return false;
  };
  if (fit_at_some_range()) {
    if (!(options.abc == abc_on_device::three && options.synthesis == synthesis_place::device &&
          options.b2_beside && !placed->b2_beside))
      return placed;
    // B2 in turn puts its whole G2 MSM on the witness side's path, where with synthesis on the
    // device two of a, b, c cost one more synthesis kernel (~6 ms at 2^26) and free n elements,
    // which may be the room B2's own arena needs: 2^26 in a 16 GiB budget proved in 1174 ms with
    // three and B2 in turn, in 995 ms with two and B2 beside (docs/BENCHMARKS.md). Two is taken
    // where it places B2 beside with nothing else given up. It is placed with B2 beside as such:
    // place_at_range would pick two with B2 in turn wherever that streams one vector fewer than
    // two with B2 beside, and so miss a two with B2 beside that is no worse than three in turn.
    const gpu_key_options three = *placed;
    options.abc = abc_on_device::two;
    for (const std::size_t r : ranges) {
      options.stream_chunk_points = r;
      auto two = place_with_b2(pk, options, budget, true);
      if (!two) continue;
      if (no_worse_than<Curve>(*two, three)) return two;
      break;
    }
    return three;
  }
  // Two of a, b, c on the device take a third of a proof's vectors off (a 2^27 domain's 4 GiB)
  // and cost, with synthesis on the host, the overlap of the witness MSMs with the transforms,
  // with synthesis on the device a second synthesis kernel for c: otherwise the last thing tried.
  if (options.abc == abc_on_device::three) {
    options.abc = abc_on_device::two;
    fit_at_some_range();
  }
  return placed;
}

#define CUZK_GPU_KEY_PLACEMENT_INSTANTIATE(C)                                                                     \
  template msm_scratch_sizes key_msm_scratch<C>(const proving_key_view<C>&, key_vector_set, std::size_t, unsigned, \
                                                bool);                                                            \
  template std::size_t estimate_device_bytes<C>(const proving_key_view<C>&, const gpu_key_options&,               \
                                                key_vector_set);                                                  \
  template gpu::ntt_memory choose_twiddles<C>(const proving_key_view<C>&, const gpu_key_options&, std::size_t);   \
  template result<key_vector_set> choose_streamed<C>(const proving_key_view<C>&, const gpu_key_options&,          \
                                                     std::size_t);                                                \
  template result<gpu_key_options> place_at_range<C>(const proving_key_view<C>&, gpu_key_options, std::size_t);   \
  template result<gpu_key_options> fit_to_budget<C>(const proving_key_view<C>&, gpu_key_options, std::size_t)
CUZK_GPU_KEY_PLACEMENT_INSTANTIATE(bn254);
CUZK_GPU_KEY_PLACEMENT_INSTANTIATE(bls12_381);
#undef CUZK_GPU_KEY_PLACEMENT_INSTANTIATE

}  // namespace cuzk::groth16
