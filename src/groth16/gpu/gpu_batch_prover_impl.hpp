// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for gpu_batch_prover.hpp, compiled once per curve in gpu_batch_prover_<curve>.cpp:
// the checks of a batch's arguments around the one proving path of gpu_prover_impl.hpp
// (detail::prove_in), which proves one witness or many.
#pragma once

#include <string>
#include <vector>

#include "groth16/gpu/gpu_batch_prover.hpp"
#include "groth16/gpu/gpu_prover_impl.hpp"

namespace cuzk::groth16 {

template <class Curve>
msm_scratch_sizes batch_msm_scratch(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                                    std::size_t partitions) {
  return detail::call_msm_scratch(pk, key.state(), partitions);
}

template <class Curve>
std::size_t batch_device_bytes(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                               std::size_t partitions) {
  using repr = typename Curve::fr::repr;
  // A batch of one proves in the workspace's own vectors, with the key's arenas.
  if (partitions <= 1) return 0;
  const std::size_t arenas = batch_msm_scratch(pk, key, partitions).total();
  const std::size_t single = key.msm_scratch().total();
  return partitions * (pk.n_vars + pk.domain_size) * sizeof(repr) + (arenas > single ? arenas - single : 0);
}

template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_from(const proving_key_view<Curve>& pk,
                                                            const batch_witness_source<Curve>& witnesses,
                                                            std::span<const typename Curve::fr> r,
                                                            std::span<const typename Curve::fr> s,
                                                            phase_timings* timings, const gpu_context<Curve>& where) {
  auto& st = where.key.state();
  const std::size_t parts = witnesses.count;
  if (r.size() != parts || s.size() != parts)
    return status(errc::invalid_argument, "gpu batch prover: r and s: expected one each per partition (" +
                                              std::to_string(parts) + "), found " + std::to_string(r.size()) +
                                              " and " + std::to_string(s.size()));
  if (parts > 0 && !witnesses.wait)
    return status(errc::invalid_argument, "gpu batch prover: the witness source has no wait()");
  std::unique_lock<std::mutex> own_lock;
  auto found = detail::workspace_of(where, own_lock);
  if (!found) return found.error();
  gpu_workspace<Curve>* ws = *found;
  // The key and the workspace now; each witness's length when it arrives.
  CUZK_TRY(detail::check_inputs(st, *ws, pk, pk.n_vars));
  phase_timings local;
  phase_timings& t = timings != nullptr ? *timings : local;
  t = {};
  phase_timer whole(&t.total);
  if (parts == 0) return std::vector<formats::proof<Curve>>{};
  return detail::prove_in<Curve>(st, *ws, pk, witnesses, r, s, *where.pool, t);
}

template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_with(
    const proving_key_view<Curve>& pk, std::span<const std::span<const typename Curve::fr::repr>> witnesses,
    std::span<const typename Curve::fr> r, std::span<const typename Curve::fr> s, phase_timings* timings,
    const gpu_context<Curve>& where) {
  using repr = typename Curve::fr::repr;
  batch_witness_source<Curve> source;
  source.count = witnesses.size();
  source.wait = [witnesses](std::size_t p) -> result<std::span<const repr>> { return witnesses[p]; };
  return prove_batch_from<Curve>(pk, source, r, s, timings, where);
}

}  // namespace cuzk::groth16

// The explicit instantiations for one curve (gpu_batch_prover_<curve>.cpp expand it).
#define CUZK_GPU_BATCH_PROVER_INSTANTIATE(C)                                                                  \
  namespace cuzk::groth16 {                                                                                   \
  template std::size_t batch_device_bytes<C>(const proving_key_view<C>&, const gpu_proving_key<C>&,           \
                                             std::size_t);                                                    \
  template msm_scratch_sizes batch_msm_scratch<C>(const proving_key_view<C>&, const gpu_proving_key<C>&,      \
                                                  std::size_t);                                               \
  template result<std::vector<formats::proof<C>>> prove_batch_from<C>(                                        \
      const proving_key_view<C>&, const batch_witness_source<C>&, std::span<const C::fr>,                     \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&);                                         \
  template result<std::vector<formats::proof<C>>> prove_batch_with<C>(                                        \
      const proving_key_view<C>&, std::span<const std::span<const C::fr::repr>>, std::span<const C::fr>,      \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&);                                         \
  }  // namespace cuzk::groth16
