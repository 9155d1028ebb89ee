// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for gpu_batch_prover.hpp, compiled once per curve in gpu_batch_prover_<curve>.cpp,
// from the steps of one proof (gpu_prover_impl.hpp) and the MSMs' batches.
//
// The order. Per partition, on the proving thread under the proof's turn: its witness staged into
// pinned memory and copied into its own device vector, then its synthesis on the device (or on
// the host, copied in), NTTs and h into its own h vector. The next witness is staged on the host
// while the device transforms this one, if it has arrived (batch_witness_source::ready); if not,
// the proof lets go of the kernel gate once the transforms have ended and then waits for it.
// Once every witness is on the device, the MSM thread runs
// A, B1 and C once for all of them, beside the remaining transforms, and B2 beside them on a thread
// of its own where the key gave it an arena (or in their turn); the H MSM then runs once for every
// h. Then the proofs are assembled in order.
#pragma once

#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "groth16/gpu/gpu_batch_prover.hpp"
#include "groth16/gpu/gpu_prover_impl.hpp"

namespace cuzk::groth16 {

namespace detail {

// A batch's device vectors: every partition's witness and h, one after another.
template <class Curve>
struct batch_vectors {
  using repr = typename Curve::fr::repr;
  gpu::device_buffer<repr> witnesses;  // partitions x nVars
  gpu::device_buffer<repr> h;          // partitions x n
};

// One batched witness MSM (over every partition's scalars in `sets`) on `stream` into each
// partition's sums' `member`, timed as a part of `side`.
template <class Curve, class M, class Member>
status timed_batch_msm(const char* name, M& m, std::span<const typename Curve::fr::repr* const> sets,
                       std::size_t count, std::vector<msm_sums<Curve>>& sums, Member member, double& slot,
                       phase_timings& side, cudaStream_t stream, gpu::device_arena& arena) {
  return timed_part(name, slot, side.kernel_spans, [&]() -> status {
    using point = std::remove_cvref_t<decltype(sums[0].*member)>;
    std::vector<point> out(sets.size());
    CUZK_TRY(m.run_device_batch(sets, count, out, stream, &arena));
    for (std::size_t p = 0; p < sets.size(); ++p) sums[p].*member = out[p];
    return status::ok();
  });
}

// The batched witness MSMs (A, B1, B2, C over every partition's witness), on the MSM stream
// under the proof's turn, once the last witness copy has ended; B2 on its own thread, stream and
// arena beside the others where the key gave it one (st.b2_beside), its times in `b2_side`.
// Writes only `side`, `b2_side` and `sums`.
template <class Curve>
status run_witness_msms_batch(gpu_key_state<Curve>& st, gpu_workspace<Curve>& ws, shared_turn& turn,
                              const gpu::cuda_event& copied, std::span<const typename Curve::fr::repr* const> w,
                              std::vector<msm_sums<Curve>>& sums, phase_timings& side, phase_timings& b2_side) {
  using repr = typename Curve::fr::repr;
  using sums_t = msm_sums<Curve>;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  auto run_b2 = [&]() -> status {
    CUZK_CUDA_TRY(cudaSetDevice(st.device));
    const cudaStream_t bs = ws.b2_stream();
    CUZK_CUDA_TRY(cudaStreamWaitEvent(bs, copied.get(), 0));
    timed_kernel_lock lock(turn, "msm_abc", b2_side.lock_wait, b2_side.kernel_spans);
    return timed_batch_msm<Curve>("msm_b2", st.msm_b2, w, st.n_vars, sums, &sums_t::b2, b2_side.msm_b2, b2_side, bs,
                                  ws.b2_msm_scratch());
  };
  status b2_status = status::ok();
  std::jthread b2_thread;
  bool b2_after = false;  // no thread to be had: B2 after the others, on this one, in its own arena
  if (st.b2_beside) {
    try {
      b2_thread = std::jthread([&] { b2_status = run_b2(); });
    } catch (const std::system_error&) {
      b2_after = true;
    }
  }
  const status g1_status = [&]() -> status {
    const cudaStream_t ms = ws.msm_stream();
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ms, copied.get(), 0));
    timed_kernel_lock lock(turn, "msm_abc", side.lock_wait, side.kernel_spans);
    const std::size_t parts = w.size();
    std::vector<const repr*> c_sets(parts);
    for (std::size_t p = 0; p < parts; ++p) c_sets[p] = w[p] + st.n_public + 1;
    auto& arena = ws.witness_msm_scratch();
    // The order of one proof.
    CUZK_TRY(timed_batch_msm<Curve>("msm_a", st.msm_a, w, st.n_vars, sums, &sums_t::a, side.msm_a, side, ms, arena));
    CUZK_TRY(
        timed_batch_msm<Curve>("msm_b1", st.msm_b1, w, st.n_vars, sums, &sums_t::b1, side.msm_b1, side, ms, arena));
    if (!st.b2_beside)
      CUZK_TRY(timed_batch_msm<Curve>("msm_b2", st.msm_b2, w, st.n_vars, sums, &sums_t::b2, side.msm_b2, side, ms,
                                      arena));
    return timed_batch_msm<Curve>("msm_c", st.msm_c, std::span<const repr* const>(c_sets), st.n_vars - st.n_public - 1,
                                  sums, &sums_t::c, side.msm_c, side, ms, arena);
  }();
  if (b2_thread.joinable()) b2_thread.join();
  if (b2_after && g1_status) b2_status = run_b2();
  CUZK_TRY(g1_status);
  return b2_status;
}

}  // namespace detail

template <class Curve>
std::size_t batch_device_bytes(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                               std::size_t partitions) {
  using repr = typename Curve::fr::repr;
  if (partitions == 0) return 0;
  const auto& st = key.state();
  const std::size_t arenas =
      key_msm_scratch(pk, st.streamed, st.chunk_points, static_cast<unsigned>(partitions), st.b2_beside).total();
  const std::size_t single = st.scratch.total();
  return partitions * (pk.n_vars + pk.domain_size) * sizeof(repr) + (arenas > single ? arenas - single : 0);
}

template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_from(const proving_key_view<Curve>& pk,
                                                            const batch_witness_source<Curve>& witnesses,
                                                            std::span<const typename Curve::fr> r,
                                                            std::span<const typename Curve::fr> s,
                                                            phase_timings* timings, const gpu_context<Curve>& where) {
  using repr = typename Curve::fr::repr;
  using ev = typename gpu_workspace<Curve>::event_id;
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
  std::vector<formats::proof<Curve>> proofs;
  if (parts == 0) return proofs;

  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  // The arenas for the whole batch up front (bucket sets per partition), so that no MSM grows one
  // mid-batch and a caller's budget (batch_device_bytes) saw every byte.
  CUZK_TRY(ws->reserve(st.n_vars, st.domain_size, st.synthesis, st.abc,
                       key_msm_scratch(pk, st.streamed, st.chunk_points, static_cast<unsigned>(parts),
                                       st.b2_beside)));
  detail::batch_vectors<Curve> v;
  CUZK_TRY(detail::take(v.witnesses, gpu::device_buffer<repr>::create(parts * st.n_vars)));
  CUZK_TRY(detail::take(v.h, gpu::device_buffer<repr>::create(parts * st.domain_size)));
  std::vector<const repr*> w_sets(parts), h_sets(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    w_sets[p] = v.witnesses.data() + p * st.n_vars;
    h_sets[p] = v.h.data() + p * st.domain_size;
  }
  auto copied = gpu::cuda_event::create();
  if (!copied) return copied.error();

  // Partition p's witness from the source (waiting for it where it is late), its length checked.
  std::vector<std::span<const repr>> arrived(parts);
  auto arrive = [&](std::size_t p) -> status {
    auto w = witnesses.wait(p);
    if (!w) return w.error();
    if (w->size() != pk.n_vars)
      return status(errc::invalid_argument, "witness: length: expected the key's nVars = " +
                                                std::to_string(pk.n_vars) + ", found " + std::to_string(w->size()))
          .with_context("partition " + std::to_string(p));
    arrived[p] = *w;
    return status::ok();
  };
  auto has_arrived = [&](std::size_t p) { return !witnesses.ready || witnesses.ready(p); };

  shared_turn turn(*st.kernel_lock);
  std::vector<msm_sums<Curve>> sums(parts);
  phase_timings side{}, b2_side{};
  status side_status = status::ok();
  std::jthread msm_thread;
  status main_path = [&]() -> status {
    auto run_of = [&](std::size_t p, phase_timings& tp) {
      detail::gpu_proof_run<Curve> run{st, *ws, turn, pk, arrived[p], *where.pool, tp};
      run.witness_vector = v.witnesses.data() + p * st.n_vars;
      run.h_vector = v.h.data() + p * st.domain_size;
      return run;
    };
    std::vector<phase_timings> tp(parts);
    auto arrive_and_stage = [&](std::size_t p) -> status {
      phase_timer timer(&t.witness);
      CUZK_TRY(arrive(p));
      auto run = run_of(p, tp[p]);
      detail::stage_witness(run);
      return status::ok();
    };
    CUZK_TRY(arrive_and_stage(0));
    for (std::size_t p = 0; p < parts; ++p) {
      auto run = run_of(p, tp[p]);
      CUZK_TRY(detail::copy_witness(run));
      // The staging buffer is free once its copy has ended; the last copy lets the MSMs start.
      CUZK_CUDA_TRY(cudaEventSynchronize(ws->event(ev::w_end).get()));
      if (p + 1 == parts) {
        CUZK_TRY(copied->record(ws->copy_stream()));
        msm_thread = std::jthread([&] {
          side_status =
              detail::run_witness_msms_batch<Curve>(st, *ws, turn, *copied, w_sets, sums, side, b2_side);
        });
      }
      if (!run.on_device()) CUZK_TRY(detail::synthesize_on_host(run));
      const bool next = p + 1 < parts;
      bool next_staged = false;
      status staged = status::ok();
      {
        detail::timed_kernel_lock lock(turn, "ntt_h", t.lock_wait, t.kernel_spans);
        CUZK_TRY(detail::transform(run));
        // The next witness, if it is there, is staged while the device transforms this one; the
        // workspace's a | b | c and events are the next partition's once the transforms have ended.
        // A witness whose read failed ends the batch only after that.
        if (next && has_arrived(p + 1)) {
          staged = arrive_and_stage(p + 1);
          next_staged = true;
        }
        CUZK_CUDA_TRY(cudaStreamSynchronize(ws->ntt_stream()));
      }
      CUZK_TRY(staged);
      // A late witness is waited for without the gate.
      if (next && !next_staged) CUZK_TRY(arrive_and_stage(p + 1));
      t.synthesis += tp[p].synthesis;
      if (auto span = detail::event_seconds(ws->event(ev::ntt_begin), ws->event(ev::ntt_end))) t.ntt += *span;
    }
    detail::timed_kernel_lock lock(turn, "ntt_h", t.lock_wait, t.kernel_spans);
    return detail::timed_part("msm_h", t.msm_h, t.kernel_spans, [&]() -> status {
      std::vector<g1<Curve>> out(parts);
      CUZK_TRY(st.msm_h.run_device_batch(h_sets, st.domain_size, out, ws->ntt_stream(), &ws->h_msm_scratch()));
      for (std::size_t p = 0; p < parts; ++p) sums[p].h = out[p];
      return status::ok();
    });
  }();
  (void)cudaStreamSynchronize(ws->copy_stream());
  {
    phase_timer timer(&t.msm_wait);
    if (msm_thread.joinable()) msm_thread.join();
  }
  CUZK_TRY(main_path);
  CUZK_TRY(side_status);
  detail::merge_msm_side(t, side, b2_side);
  phase_timer timer(&t.assembly);
  for (std::size_t p = 0; p < parts; ++p) proofs.push_back(assemble(pk, sums[p], r[p], s[p]));
  return proofs;
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
  template result<std::vector<formats::proof<C>>> prove_batch_from<C>(                                        \
      const proving_key_view<C>&, const batch_witness_source<C>&, std::span<const C::fr>,                     \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&);                                         \
  template result<std::vector<formats::proof<C>>> prove_batch_with<C>(                                        \
      const proving_key_view<C>&, std::span<const std::span<const C::fr::repr>>, std::span<const C::fr>,      \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&);                                         \
  }  // namespace cuzk::groth16
