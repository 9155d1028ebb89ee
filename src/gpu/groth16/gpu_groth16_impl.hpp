// Definitions for gpu_proving_key.hpp and gpu_prover.hpp, compiled once per curve in
// gpu_groth16_<curve>.cpp (host code: the kernels it launches live in the cuzk_gpu library and
// h_scalars_<curve>.cu).
#pragma once

#include <bit>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "ec/scalar_mul.hpp"
#include "gpu/groth16/abc_device.hpp"
#include "gpu/groth16/gpu_prover.hpp"
#include "gpu/groth16/gpu_proving_key.hpp"
#include "gpu/groth16/h_scalars.hpp"
#include "groth16/prover_impl.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::gpu {

namespace detail {

using steady = std::chrono::steady_clock;

inline double ms_since(steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
}

// Moves a created resource into its slot, or passes the creation's error on.
template <class T>
status take(T& slot, result<T>&& made) {
  if (!made) return made.error();
  slot = std::move(made).value();
  return status::ok();
}

inline result<double> event_ms(const cuda_event& from, const cuda_event& to) {
  auto ms = cuda_event::elapsed_ms(from, to);
  if (!ms) return ms.error();
  return static_cast<double>(*ms);
}

}  // namespace detail

template <class Curve>
result<gpu_proving_key<Curve>> gpu_proving_key<Curve>::create(const groth16::proving_key_view<Curve>& pk,
                                                              int device, gpu_key_options options) {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  using detail::take;
  CUZK_TRY(pk.validate());
  CUZK_CUDA_TRY(cudaSetDevice(device));
  CUZK_CUDA_TRY(cudaFree(nullptr));  // the context exists before the memory is measured
  std::size_t free_before = 0, free_after = 0, total = 0;
  CUZK_CUDA_TRY(cudaMemGetInfo(&free_before, &total));

  auto st = std::make_unique<detail::gpu_key_state<Curve>>();
  st->device = device;
  st->synthesis = options.synthesis;
  st->n_vars = pk.n_vars;
  st->n_public = pk.n_public;
  st->domain_size = pk.domain_size;
  const std::size_t n = pk.domain_size;
  CUZK_TRY(take(st->msm_a, msm_g1<Curve>::create(pk.a.data(), pk.a.size())));
  CUZK_TRY(take(st->msm_b1, msm_g1<Curve>::create(pk.b1.data(), pk.b1.size())));
  CUZK_TRY(take(st->msm_b2, msm_g2<Curve>::create(pk.b2.data(), pk.b2.size())));
  CUZK_TRY(take(st->msm_c, msm_g1<Curve>::create(pk.c.data(), pk.c.size())));
  CUZK_TRY(take(st->msm_h, msm_g1<Curve>::create(pk.h.data(), pk.h.size())));
  CUZK_TRY(take(st->plan, ntt_plan<fr>::create(static_cast<unsigned>(std::countr_zero(n)))));
  CUZK_TRY(take(st->abc, device_buffer<fr>::create(3 * n)));
  switch (options.synthesis) {
    case synthesis_place::device: {
      auto m = device_constraint_matrices<fr>::create(*pk.matrices);
      if (!m) return m.error();
      st->matrices.emplace(std::move(m).value());
      break;
    }
    case synthesis_place::host_pinned:
      CUZK_TRY(take(st->host_abc, pinned_buffer<fr>::create(3 * n)));
      break;
    case synthesis_place::host_pageable:
      st->pageable_abc.resize(3 * n);
      break;
  }
  CUZK_TRY(take(st->host_w, pinned_buffer<repr>::create(pk.n_vars)));
  CUZK_TRY(take(st->w, device_buffer<repr>::create(pk.n_vars)));
  CUZK_TRY(take(st->msm_stream, cuda_stream::create()));
  CUZK_TRY(take(st->copy_stream, cuda_stream::create()));
  CUZK_TRY(take(st->ntt_stream, cuda_stream::create()));
  for (auto& ev : st->events) CUZK_TRY(take(ev, cuda_event::create()));
  CUZK_CUDA_TRY(cudaDeviceSynchronize());
  CUZK_CUDA_TRY(cudaMemGetInfo(&free_after, &total));
  st->resident_bytes = free_before > free_after ? free_before - free_after : 0;

  gpu_proving_key key;
  key.state_ = std::move(st);
  return result<gpu_proving_key>(std::move(key));
}

template <class Curve>
result<formats::proof<Curve>> gpu_prove(const gpu_proving_key<Curve>& gk,
                                        const groth16::proving_key_view<Curve>& pk,
                                        std::span<const typename Curve::fr::repr> witness,
                                        const typename Curve::fr& r, const typename Curve::fr& s,
                                        gpu_phase_timings* timings, thread_pool& pool) {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  using detail::ms_since;
  using detail::steady;
  using ev = typename detail::gpu_key_state<Curve>::event_id;
  const auto t_start = steady::now();

  CUZK_TRY(pk.validate());
  auto& st = gk.state();
  if (pk.n_vars != st.n_vars || pk.n_public != st.n_public || pk.domain_size != st.domain_size)
    return status(errc::invalid_argument,
                  "gpu_prove: proving key: (nVars, nPublic, domainSize): expected the GPU key's (" +
                      std::to_string(st.n_vars) + ", " + std::to_string(st.n_public) + ", " +
                      std::to_string(st.domain_size) + "), found (" + std::to_string(pk.n_vars) + ", " +
                      std::to_string(pk.n_public) + ", " + std::to_string(pk.domain_size) + ")");
  if (witness.size() != pk.n_vars)
    return status(errc::invalid_argument,
                  "witness: length: expected the key's nVars = " + std::to_string(pk.n_vars) + ", found " +
                      std::to_string(witness.size()));

  std::lock_guard lock(st.mutex);
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  gpu_phase_timings local;
  gpu_phase_timings& t = timings != nullptr ? *timings : local;
  t = {};
  const std::size_t n = st.domain_size, n_vars = st.n_vars, n_public = st.n_public;

  // The witness into pinned memory, so that its one copy to the device runs at the line rate.
  auto t0 = steady::now();
  repr* w = st.host_w.data();
  pool.parallel_for(
      n_vars,
      [&](std::size_t lo, std::size_t hi) {
        std::memcpy(w + lo, witness.data() + lo, (hi - lo) * sizeof(repr));
      },
      1 << 14);
  t.witness_ms = ms_since(t0);

  // The witness to the device, once: the MSMs (and the device synthesis) read it there.
  const cudaStream_t cs = st.copy_stream.get(), ns = st.ntt_stream.get();
  auto& events = st.events;
  CUZK_TRY(events[ev::w_begin].record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(st.w.data(), w, n_vars * sizeof(repr), cudaMemcpyHostToDevice, cs));
  CUZK_TRY(events[ev::w_end].record(cs));

  // A, B1, B2 and C need only the witness: they run on the GPU while a, b, c are synthesized. Each
  // run waits for its own result, hence the thread. (Each writes only its own fields of `t`.)
  struct {
    status err = status::ok();
    g1<Curve> a, b1, c;
    g2<Curve> b2;
  } w_sums;
  std::jthread msm_thread([&] {
    w_sums.err = [&]() -> status {
      CUZK_CUDA_TRY(cudaSetDevice(st.device));
      const cudaStream_t ms_stream = st.msm_stream.get();
      CUZK_CUDA_TRY(cudaStreamWaitEvent(ms_stream, events[ev::w_end].get(), 0));
      const repr* dw = st.w.data();
      auto run = [&](auto& m, const repr* scalars, std::size_t count, auto& out, double& ms) -> status {
        const auto t1 = steady::now();
        auto sum = m.run_device(scalars, count, nullptr, ms_stream);
        if (!sum) return sum.error();
        out = *sum;
        ms = ms_since(t1);
        return status::ok();
      };
      CUZK_TRY(run(st.msm_a, dw, n_vars, w_sums.a, t.msm_a_ms));
      CUZK_TRY(run(st.msm_b1, dw, n_vars, w_sums.b1, t.msm_b1_ms));
      CUZK_TRY(run(st.msm_b2, dw, n_vars, w_sums.b2, t.msm_b2_ms));
      return run(st.msm_c, dw + n_public + 1, n_vars - n_public - 1, w_sums.c, t.msm_c_ms);
    }();
  });

  // a, b, c. On the device: the synthesis kernel reads the device witness and writes a | b | c
  // in place. On the host: CPU threads fill the host buffer, then the copy stream moves one
  // vector at a time and each vector's transforms start as soon as it is there.
  fr* d = st.abc.data();
  const bool on_device = st.synthesis == synthesis_place::device;
  t.synthesis_on_device = on_device;
  t0 = steady::now();
  if (on_device) {
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, events[ev::w_end].get(), 0));
    CUZK_TRY(st.matrices->evaluate(st.w.data(), d, d + n, d + 2 * n, n, ns));
    CUZK_TRY(events[ev::synth_end].record(ns));
    CUZK_TRY(events[ev::ntt_begin].record(ns));
  } else {
    fr* host_a = st.synthesis == synthesis_place::host_pinned ? st.host_abc.data() : st.pageable_abc.data();
    CUZK_TRY(synth::evaluate_abc<fr>(*pk.matrices, witness, {host_a, n}, {host_a + n, n}, {host_a + 2 * n, n},
                                     pool));
    t.synthesis_ms = ms_since(t0);
    CUZK_TRY(events[ev::copy_begin].record(cs));
    for (unsigned k = 0; k < 3; ++k) {
      CUZK_CUDA_TRY(
          cudaMemcpyAsync(d + k * n, host_a + k * n, n * sizeof(fr), cudaMemcpyHostToDevice, cs));
      CUZK_TRY(events[ev::copy_a + k].record(cs));
    }
  }
  // Inverse NTT natural -> bit-reversed with 1/n, forward on the odd coset bit-reversed ->
  // natural: evaluations at shift * omega^j in natural order, as poly::compute_h leaves them.
  for (unsigned k = 0; k < 3; ++k) {
    if (!on_device) {
      CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, events[ev::copy_a + k].get(), 0));
      if (k == 0) CUZK_TRY(events[ev::ntt_begin].record(ns));
    }
    CUZK_TRY(
        st.plan.run(d + k * n, ntt_direction::inverse, ntt_order::natural_to_bitrev, ntt_domain::plain, ns));
    CUZK_TRY(
        st.plan.run(d + k * n, ntt_direction::forward, ntt_order::bitrev_to_natural, ntt_domain::coset, ns));
  }
  repr* d_h = reinterpret_cast<repr*>(d);  // h overwrites a
  CUZK_TRY(h_scalars<fr>(d, d + n, d + 2 * n, d_h, n, ns));
  CUZK_TRY(events[ev::ntt_end].record(ns));
  CUZK_TRY(st.ntt_stream.synchronize());
  auto span_ms = detail::event_ms(events[ev::w_begin], events[ev::w_end]);
  if (!span_ms) return span_ms.error();
  t.witness_h2d_ms = *span_ms;
  if (on_device) {
    // The copy the synthesis waited for is the witness's.
    t.h2d_bytes = static_cast<double>(n_vars * sizeof(repr));
    t.h2d_ms = t.witness_h2d_ms;
    span_ms = detail::event_ms(events[ev::w_end], events[ev::synth_end]);
    if (!span_ms) return span_ms.error();
    t.synthesis_ms = *span_ms;
  } else {
    t.h2d_bytes = static_cast<double>(3 * n * sizeof(fr));
    span_ms = detail::event_ms(events[ev::copy_begin], events[ev::copy_c]);
    if (!span_ms) return span_ms.error();
    t.h2d_ms = *span_ms;
  }
  span_ms = detail::event_ms(events[ev::ntt_begin], events[ev::ntt_end]);
  if (!span_ms) return span_ms.error();
  t.ntt_ms = *span_ms;

  // The H MSM reads h where the NTT stream left it, queued behind the h kernel on the same stream.
  t0 = steady::now();
  auto h_sum = st.msm_h.run_device(d_h, n, nullptr, ns);
  if (!h_sum) return h_sum.error();
  t.msm_h_ms = ms_since(t0);

  t0 = steady::now();
  msm_thread.join();
  t.msm_wait_ms = ms_since(t0);
  if (!w_sums.err.is_ok()) return w_sums.err;

  // Assembly with the CPU prover's own code, from the same five sums.
  t0 = steady::now();
  groth16::detail::prover_state<Curve> ps{pk, witness, r, s, pool, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  ps.pi_a = w_sums.a + pk.alpha1 + ec::scalar_mul(pk.delta1, r);
  ps.pi_b1 = w_sums.b1 + pk.beta1 + ec::scalar_mul(pk.delta1, s);
  ps.pi_b = w_sums.b2 + pk.beta2 + ec::scalar_mul(pk.delta2, s);
  ps.c_sum = w_sums.c;
  ps.h_sum = *h_sum;
  formats::proof<Curve> proof = groth16::detail::assemble(ps);
  t.assembly_ms = ms_since(t0);
  t.total_ms = ms_since(t_start);
  return proof;
}

}  // namespace cuzk::gpu
