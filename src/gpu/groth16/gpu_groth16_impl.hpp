// Definitions for gpu_proving_key.hpp and gpu_prover.hpp, compiled once per curve in
// gpu_groth16_<curve>.cpp (host code: the kernels it launches live in the cuzk_gpu library and
// h_scalars_<curve>.cu).
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

// Runs each of the key's MSMs once on zero scalars of the sizes a proof uses (A, B1, B2: nVars;
// C: nVars - nPublic - 1; H: domainSize), from device memory as gpu_prove does, so that their
// scratch, which depends only on the count and the entry point, is allocated now and not by the
// first proof.
template <class Curve>
status size_msm_scratch(detail::gpu_key_state<Curve>& st) {
  using repr = typename Curve::fr::repr;
  auto zeros = device_buffer<repr>::create(std::max(st.n_vars, st.domain_size));
  if (!zeros) return zeros.error();
  CUZK_CUDA_TRY(cudaMemset(zeros->data(), 0, zeros->bytes()));
  auto stream = cuda_stream::create();
  if (!stream) return stream.error();
  auto run = [&](auto& m, std::size_t count) -> status {
    auto sum = m.run_device(zeros->data(), count, nullptr, stream->get());
    return sum ? status::ok() : sum.error();
  };
  CUZK_TRY(run(st.msm_a, st.n_vars));
  CUZK_TRY(run(st.msm_b1, st.n_vars));
  CUZK_TRY(run(st.msm_b2, st.n_vars));
  CUZK_TRY(run(st.msm_c, st.n_vars - st.n_public - 1));
  return run(st.msm_h, st.domain_size);
}

template <class Curve>
result<gpu_proving_key<Curve>> gpu_proving_key<Curve>::create(const groth16::proving_key_view<Curve>& pk,
                                                              int device, gpu_key_options options) {
  using fr = typename Curve::fr;
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
  st->kernel_lock = options.kernel_lock ? std::move(options.kernel_lock) : std::make_shared<std::mutex>();
  const std::size_t n = pk.domain_size;
  CUZK_TRY(take(st->msm_a, msm_g1<Curve>::create(pk.a.data(), pk.a.size())));
  CUZK_TRY(take(st->msm_b1, msm_g1<Curve>::create(pk.b1.data(), pk.b1.size())));
  CUZK_TRY(take(st->msm_b2, msm_g2<Curve>::create(pk.b2.data(), pk.b2.size())));
  CUZK_TRY(take(st->msm_c, msm_g1<Curve>::create(pk.c.data(), pk.c.size())));
  CUZK_TRY(take(st->msm_h, msm_g1<Curve>::create(pk.h.data(), pk.h.size())));
  CUZK_TRY(take(st->plan, ntt_plan<fr>::create(static_cast<unsigned>(std::countr_zero(n)), nullptr,
                                              prover_ntt_tables)));
  if (options.synthesis == synthesis_place::device) {
    auto m = device_constraint_matrices<fr>::create(*pk.matrices);
    if (!m) return m.error();
    st->matrices.emplace(std::move(m).value());
  }
  if (options.scratch == key_scratch::at_creation) CUZK_TRY(size_msm_scratch(*st));
  if (options.workspace == key_workspace::own) {
    auto ws = gpu_workspace<Curve>::create(device);
    if (!ws) return ws.error();
    st->own = std::make_unique<gpu_workspace<Curve>>(std::move(ws).value());
    CUZK_TRY(st->own->reserve(pk.n_vars, n, options.synthesis));
  }
  CUZK_CUDA_TRY(cudaDeviceSynchronize());
  CUZK_CUDA_TRY(cudaMemGetInfo(&free_after, &total));
  st->resident_bytes = free_before > free_after ? free_before - free_after : 0;

  gpu_proving_key key;
  key.state_ = std::move(st);
  return result<gpu_proving_key>(std::move(key));
}

template <class Curve>
result<formats::proof<Curve>> gpu_prove(const gpu_proving_key<Curve>& gk, gpu_workspace<Curve>& ws,
                                        const groth16::proving_key_view<Curve>& pk,
                                        std::span<const typename Curve::fr::repr> witness,
                                        const typename Curve::fr& r, const typename Curve::fr& s,
                                        gpu_phase_timings* timings, thread_pool& pool) {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  using detail::ms_since;
  using detail::steady;
  using ev = typename gpu_workspace<Curve>::event_id;
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
  if (ws.device() != st.device)
    return status(errc::invalid_argument, "gpu_prove: workspace: expected one on the key's device " +
                                              std::to_string(st.device) + ", found device " +
                                              std::to_string(ws.device()));

  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  gpu_phase_timings local;
  gpu_phase_timings& t = timings != nullptr ? *timings : local;
  t = {};
  const std::size_t n = st.domain_size, n_vars = st.n_vars, n_public = st.n_public;
  CUZK_TRY(ws.reserve(n_vars, n, st.synthesis));
  std::mutex& kernels = *st.kernel_lock;

  // The witness into pinned memory, so that its one copy to the device runs at the line rate.
  auto t0 = steady::now();
  repr* w = ws.host_w();
  pool.parallel_for(
      n_vars,
      [&](std::size_t lo, std::size_t hi) {
        std::memcpy(w + lo, witness.data() + lo, (hi - lo) * sizeof(repr));
      },
      1 << 14);
  t.witness_ms = ms_since(t0);

  // The witness to the device, once, on the copy stream and outside the kernel lock: the MSMs
  // (and the device synthesis) read it there.
  const cudaStream_t cs = ws.copy_stream(), ns = ws.ntt_stream();
  CUZK_TRY(ws.event(ev::w_begin).record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(ws.w(), w, n_vars * sizeof(repr), cudaMemcpyHostToDevice, cs));
  CUZK_TRY(ws.event(ev::w_end).record(cs));

  // A, B1, B2 and C need only the witness: they run on the GPU while a, b, c are synthesized. Each
  // run waits for its own result, hence the thread. (It writes only its own fields: the MSMs',
  // and its share of the lock times, added to `t` after the join.)
  struct {
    status err = status::ok();
    g1<Curve> a, b1, c;
    g2<Curve> b2;
    double lock_wait_ms = 0, lock_held_ms = 0;
    std::vector<gpu_phase_timings::lock_span> spans;
  } w_sums;
  std::jthread msm_thread([&] {
    w_sums.err = [&]() -> status {
      CUZK_CUDA_TRY(cudaSetDevice(st.device));
      const cudaStream_t ms = ws.msm_stream();
      CUZK_CUDA_TRY(cudaStreamWaitEvent(ms, ws.event(ev::w_end).get(), 0));
      const auto tw = steady::now();
      std::lock_guard lock(kernels);
      const auto th = steady::now();
      w_sums.lock_wait_ms = std::chrono::duration<double, std::milli>(th - tw).count();
      const repr* dw = ws.w();
      auto run = [&](auto& m, const repr* scalars, std::size_t count, auto& out, double& ms_out) -> status {
        const auto t1 = steady::now();
        auto sum = m.run_device(scalars, count, nullptr, ms);
        if (!sum) return sum.error();
        out = *sum;
        ms_out = ms_since(t1);
        return status::ok();
      };
      auto part = [&](const char* name, auto&& step) -> status {
        const auto b = steady::now();
        status done = step();
        w_sums.spans.push_back({name, b, steady::now(), false});
        return done;
      };
      status st_run = part("msm_a", [&] { return run(st.msm_a, dw, n_vars, w_sums.a, t.msm_a_ms); });
      if (st_run) st_run = part("msm_b1", [&] { return run(st.msm_b1, dw, n_vars, w_sums.b1, t.msm_b1_ms); });
      if (st_run) st_run = part("msm_b2", [&] { return run(st.msm_b2, dw, n_vars, w_sums.b2, t.msm_b2_ms); });
      if (st_run)
        st_run = part("msm_c", [&] {
          return run(st.msm_c, dw + n_public + 1, n_vars - n_public - 1, w_sums.c, t.msm_c_ms);
        });
      const auto released = steady::now();
      w_sums.lock_held_ms = std::chrono::duration<double, std::milli>(released - th).count();
      w_sums.spans.push_back({"msm_abc", th, released, true});
      return st_run;
    }();
  });

  // a, b, c. On the device: the synthesis kernel, under the lock, reads the device witness and
  // writes a | b | c in place. On the host: CPU threads fill the host buffer, then the copy stream
  // moves one vector at a time (outside the lock, so the copy engine runs while another proof's
  // kernels do) and each vector's transforms start as soon as it is there.
  fr* d = ws.abc();
  const bool on_device = st.synthesis == synthesis_place::device;
  t.synthesis_on_device = on_device;
  t0 = steady::now();
  const status copied = [&]() -> status {
    if (on_device) return status::ok();
    fr* host_a = st.synthesis == synthesis_place::host_pinned ? ws.host_abc() : ws.pageable_abc();
    CUZK_TRY(synth::evaluate_abc<fr>(*pk.matrices, witness, {host_a, n}, {host_a + n, n}, {host_a + 2 * n, n},
                                     pool));
    t.synthesis_ms = ms_since(t0);
    CUZK_TRY(ws.event(ev::copy_begin).record(cs));
    for (unsigned k = 0; k < 3; ++k) {
      CUZK_CUDA_TRY(cudaMemcpyAsync(d + k * n, host_a + k * n, n * sizeof(fr), cudaMemcpyHostToDevice, cs));
      CUZK_TRY(ws.event(static_cast<ev>(ev::copy_a + k)).record(cs));
    }
    return status::ok();
  }();
  result<g1<Curve>> h_sum = status(errc::internal, "gpu_prove: the H MSM did not run");
  steady::time_point ntt_h_begin{}, ntt_h_end{};
  if (copied) {
    const auto tw = steady::now();
    std::unique_lock lock(kernels, std::try_to_lock);
    if (!lock.owns_lock()) {
      // Other kernels run (another proof's, or this one's A, B, C MSMs): the copies end
      // meanwhile, so lent host buffers go back to their lender now rather than after this
      // proof's turn on the device, and the next proof's synthesis can fill them.
      if (ws.has_lent_host() && cudaStreamSynchronize(cs) == cudaSuccess) ws.give_back_host();
      lock.lock();
    }
    const auto th = steady::now();
    t.lock_wait_ms = std::chrono::duration<double, std::milli>(th - tw).count();
    const status transformed = [&]() -> status {
      if (on_device) {
        CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(ev::w_end).get(), 0));
        CUZK_TRY(ws.event(ev::synth_begin).record(ns));
        CUZK_TRY(st.matrices->evaluate(ws.w(), d, d + n, d + 2 * n, n, ns));
        CUZK_TRY(ws.event(ev::synth_end).record(ns));
        CUZK_TRY(ws.event(ev::ntt_begin).record(ns));
      }
      // Inverse NTT natural -> bit-reversed with 1/n, forward on the odd coset bit-reversed ->
      // natural: evaluations at shift * omega^j in natural order, as poly::compute_h leaves them.
      for (unsigned k = 0; k < 3; ++k) {
        if (!on_device) {
          CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(static_cast<ev>(ev::copy_a + k)).get(), 0));
          if (k == 0) CUZK_TRY(ws.event(ev::ntt_begin).record(ns));
        }
        CUZK_TRY(st.plan.run(d + k * n, ntt_direction::inverse, ntt_order::natural_to_bitrev, ntt_domain::plain,
                             ns));
        CUZK_TRY(st.plan.run(d + k * n, ntt_direction::forward, ntt_order::bitrev_to_natural, ntt_domain::coset,
                             ns));
      }
      CUZK_TRY(h_scalars<fr>(d, d + n, d + 2 * n, reinterpret_cast<repr*>(d), n, ns));  // h overwrites a
      CUZK_TRY(ws.event(ev::ntt_end).record(ns));
      return status::ok();
    }();
    if (transformed) {
      // The H MSM reads h where the NTT stream left it, queued behind the h kernel.
      const auto t1 = steady::now();
      h_sum = st.msm_h.run_device(reinterpret_cast<const repr*>(d), n, nullptr, ns);
      t.msm_h_ms = ms_since(t1);
    } else {
      h_sum = transformed;
    }
    ntt_h_begin = th;
    ntt_h_end = steady::now();
    t.lock_held_ms = std::chrono::duration<double, std::milli>(ntt_h_end - th).count();
  } else {
    h_sum = copied;
  }
  // After a failure the copies may still be reading the pinned buffers: let them end before the
  // workspace serves another proof or gives them back. (After success they ended before the NTTs
  // began.)
  (void)cudaStreamSynchronize(cs);
  ws.give_back_host();
  // The MSM thread must end before anything returns: it reads `ws` and writes `w_sums`.
  t0 = steady::now();
  msm_thread.join();
  t.msm_wait_ms = ms_since(t0);
  t.lock_wait_ms += w_sums.lock_wait_ms;
  t.lock_held_ms += w_sums.lock_held_ms;
  t.lock_spans = std::move(w_sums.spans);
  if (ntt_h_end != steady::time_point{}) t.lock_spans.push_back({"ntt_h", ntt_h_begin, ntt_h_end, true});
  if (!h_sum) return h_sum.error();
  if (!w_sums.err.is_ok()) return w_sums.err;

  auto span_ms = detail::event_ms(ws.event(ev::w_begin), ws.event(ev::w_end));
  if (!span_ms) return span_ms.error();
  t.witness_h2d_ms = *span_ms;
  if (on_device) {
    // The copy the synthesis waited for is the witness's.
    t.h2d_bytes = static_cast<double>(n_vars * sizeof(repr));
    t.h2d_ms = t.witness_h2d_ms;
    // The kernel alone: the wait for the kernel lock before it is gpu_wait, not synthesis.
    span_ms = detail::event_ms(ws.event(ev::synth_begin), ws.event(ev::synth_end));
    if (!span_ms) return span_ms.error();
    t.synthesis_ms = *span_ms;
  } else {
    t.h2d_bytes = static_cast<double>(3 * n * sizeof(fr));
    span_ms = detail::event_ms(ws.event(ev::copy_begin), ws.event(ev::copy_c));
    if (!span_ms) return span_ms.error();
    t.h2d_ms = *span_ms;
  }
  span_ms = detail::event_ms(ws.event(ev::ntt_begin), ws.event(ev::ntt_end));
  if (!span_ms) return span_ms.error();
  t.ntt_ms = *span_ms;
  {
    // The parts of "ntt_h" (see gpu_phase_timings::lock_spans), clipped to the interval.
    auto at = [&](double ms) {
      return std::min(ntt_h_end, ntt_h_begin + std::chrono::duration_cast<steady::duration>(
                                                   std::chrono::duration<double, std::milli>(ms)));
    };
    const double synth_ms = on_device ? t.synthesis_ms : 0;
    if (on_device) t.lock_spans.push_back({"synthesis", ntt_h_begin, at(synth_ms), false});
    t.lock_spans.push_back({"ntt", at(synth_ms), at(synth_ms + t.ntt_ms), false});
    t.lock_spans.push_back({"msm_h", at(synth_ms + t.ntt_ms), ntt_h_end, false});
  }

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

template <class Curve>
result<formats::proof<Curve>> gpu_prove(const gpu_proving_key<Curve>& gk,
                                        const groth16::proving_key_view<Curve>& pk,
                                        std::span<const typename Curve::fr::repr> witness,
                                        const typename Curve::fr& r, const typename Curve::fr& s,
                                        gpu_phase_timings* timings, thread_pool& pool) {
  auto& st = gk.state();
  if (!st.own)
    return status(errc::invalid_argument,
                  "gpu_prove: the key was made with key_workspace::none: pass a gpu_workspace");
  std::lock_guard lock(st.own_mutex);
  return gpu_prove<Curve>(gk, *st.own, pk, witness, r, s, timings, pool);
}

}  // namespace cuzk::gpu
