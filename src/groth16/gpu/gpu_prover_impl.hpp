// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for gpu_proving_key.hpp and gpu_prover.hpp, compiled once per curve in
// gpu_prover_<curve>.cpp (host code: the kernels it launches live in the cuzk_gpu library).
//
// A proof is the steps gpu_prover.hpp lists, one function each, over one gpu_proof_run that holds
// what they share; prove_with() only orders them. Clocks stay out of the steps: host phases are
// phase_timers around the calls, the kernel lock is a timed_kernel_lock, and GPU phases are read
// from the workspace's CUDA events once the proof has run (read_device_times).
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <span>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/parallel_copy.hpp"
#include "gpu/abc_device.hpp"
#include "gpu/h_scalars.hpp"
#include "gpu/locked_host_memory.hpp"
#include "groth16/assemble.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/gpu_proving_key.hpp"
#include "groth16/os_random.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::groth16 {

namespace detail {

using steady = std::chrono::steady_clock;

// Moves a created resource into its slot, or passes the creation's error on.
template <class T>
status take(T& slot, result<T>&& made) {
  if (!made) return made.error();
  slot = std::move(made).value();
  return status::ok();
}

// Seconds between two recorded events.
inline result<double> event_seconds(const gpu::cuda_event& from, const gpu::cuda_event& to) {
  auto ms = gpu::cuda_event::elapsed_ms(from, to);
  if (!ms) return ms.error();
  return static_cast<double>(*ms) / 1e3;
}

// One side's share of the proof's turn at the device's kernel gate (kernel_gate.hpp), held from
// construction to destruction (or release()): the wait for it is added to `*wait`, and the held
// interval is appended to `spans` under `name` (a part: prove_in() makes the held intervals from
// both sides' once they are done, since the two may overlap). When another proof holds the gate and
// `on_contended` is set, that runs before the wait.
class timed_kernel_lock {
 public:
  template <class OnContended>
  timed_kernel_lock(shared_turn& turn, const char* name, double& wait, std::vector<kernel_span>& spans,
                    OnContended on_contended)
      : turn_(turn), name_(name), spans_(spans) {
    const auto asked = steady::now();
    turn_.enter(on_contended);
    held_ = true;
    acquired_ = steady::now();
    wait += std::chrono::duration<double>(acquired_ - asked).count();
  }
  timed_kernel_lock(shared_turn& turn, const char* name, double& wait, std::vector<kernel_span>& spans)
      : timed_kernel_lock(turn, name, wait, spans, [] {}) {}
  ~timed_kernel_lock() { release(); }
  timed_kernel_lock(const timed_kernel_lock&) = delete;
  timed_kernel_lock& operator=(const timed_kernel_lock&) = delete;

  void release() {
    if (!held_) return;
    released_ = steady::now();
    held_ = false;
    turn_.leave();
    spans_.push_back({name_, acquired_, released_, false});
  }
  steady::time_point acquired() const noexcept { return acquired_; }
  steady::time_point released() const noexcept { return released_; }

 private:
  shared_turn& turn_;
  bool held_ = false;
  const char* name_;
  std::vector<kernel_span>& spans_;
  steady::time_point acquired_{}, released_{};
};

// The held intervals of a proof from its sides' ("msm_abc", "ntt_h", appended as parts): their
// union, as held spans named "gpu" (one where the sides overlapped or touched, two otherwise), and
// its length, what the proof's busy time on the device is.
inline double add_held_union(std::vector<kernel_span>& spans) {
  std::vector<std::pair<steady::time_point, steady::time_point>> sides;
  for (const auto& s : spans)
    if (!s.held && (s.name == std::string_view("msm_abc") || s.name == std::string_view("ntt_h")))
      sides.emplace_back(s.begin, s.end);
  std::sort(sides.begin(), sides.end());
  double held = 0;
  std::vector<kernel_span> unions;
  for (const auto& [b, e] : sides) {
    if (!unions.empty() && b <= unions.back().end) {
      unions.back().end = std::max(unions.back().end, e);
      continue;
    }
    unions.push_back({"gpu", b, e, true});
  }
  for (const auto& u : unions) held += std::chrono::duration<double>(u.end - u.begin).count();
  spans.insert(spans.begin(), unions.begin(), unions.end());
  return held;
}

// Runs `step`, timing it into `*slot` and appending it to `spans` as a part (held = false).
template <class Step>
status timed_part(const char* name, double& slot, std::vector<kernel_span>& spans, Step&& step) {
  const auto begin = steady::now();
  status done = [&] {
    phase_timer timer(&slot);
    return step();
  }();
  spans.push_back({name, begin, steady::now(), false});
  return done;
}

}  // namespace detail

namespace detail {

// A vector's points and the MSM object that owns them: resident, or left where they are and
// streamed.
template <class Msm, class Point>
status make_msm(Msm& slot, std::span<const Point> points, bool streamed, std::size_t chunk_points) {
  return take(slot, streamed ? Msm::create_streamed(points.data(), points.size(), chunk_points)
                             : Msm::create(points.data(), points.size()));
}

// Whether the runtime knows `p` as page-locked host memory (cudaHostAlloc'd or registered).
inline bool pinned_host(const void* p) {
  cudaPointerAttributes attr{};
  const bool host = cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeHost;
  (void)cudaGetLastError();
  return host;
}

// The points a streamed vector streams from: `points` where they are pinned already, otherwise a
// pinned copy the key owns (locked memory), filled on threads of its own (base/parallel_copy.hpp).
// Where the copy cannot be allocated (host memory), the vector streams from where it is, at the
// pageable rate, and the key says so.
template <class Point>
std::span<const Point> pinned_source(std::span<const Point> points, gpu::locked_buffer<Point>& copy,
                                     bool& pageable) {
  if (points.empty() || pinned_host(points.data())) return points;
  auto made = gpu::locked_buffer<Point>::create(points.size());
  if (!made) {
    pageable = true;
    return points;
  }
  copy = std::move(made).value();
  // On threads of its own, not the global pool's: an upload beside other keys' proofs.
  const copy_range whole{copy.data(), points.data(), points.size_bytes()};
  parallel_copy(std::span(&whole, 1));
  return {copy.data(), points.size()};
}

}  // namespace detail

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
    bytes += pk.matrices->a.bytes() + pk.matrices->b.bytes();
  if (options.workspace == key_workspace::own) {
    using repr = typename fr::repr;
    const unsigned parts = std::max(1u, options.batch_partitions);
    // a | b | c and the witness (with two of a, b, c on the device, the witness in b's place).
    bytes += gpu_workspace<Curve>::abc_elements(pk.n_vars, pk.domain_size, options.abc) * sizeof(fr);
    if (options.abc == abc_on_device::three) bytes += pk.n_vars * sizeof(repr);
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

template <class Curve>
result<gpu_key_options> place_at_range(const proving_key_view<Curve>& pk, gpu_key_options options,
                                       std::size_t budget) {
  auto place = [&](bool beside) -> result<gpu_key_options> {
    gpu_key_options o = options;
    o.b2_beside = beside;
    o.twiddles = choose_twiddles(pk, o, budget);
    auto set = choose_streamed(pk, o, budget);
    if (!set) return set.error();
    o.streamed = *set;
    return o;
  };
  auto in_turn = place(false);
  if (!options.b2_beside) return in_turn;
  auto beside = place(true);
  if (!beside || !in_turn) return beside ? beside : in_turn;
  const bool same = beside->streamed == in_turn->streamed && beside->twiddles == in_turn->twiddles;
  return same ? beside : in_turn;
}

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
  if (fit_at_some_range()) return placed;
  // Two of a, b, c on the device take a third of a proof's vectors off (a 2^27 domain's 4 GiB)
  // and cost only the overlap of the witness MSMs with the transforms: the last thing tried.
  if (options.abc == abc_on_device::three && options.synthesis != synthesis_place::device) {
    options.abc = abc_on_device::two;
    fit_at_some_range();
  }
  return placed;
}

template <class Curve>
result<gpu_proving_key<Curve>> gpu_proving_key<Curve>::create(const proving_key_view<Curve>& pk,
                                                              int device, gpu_key_options options) {
  using fr = typename Curve::fr;
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
  st->kernel_lock = options.kernel_lock ? std::move(options.kernel_lock) : std::make_shared<kernel_gate>();
  const std::size_t n = pk.domain_size;
  if (options.abc == abc_on_device::two && options.synthesis == synthesis_place::device)
    return status(errc::invalid_argument,
                  "gpu prover: two of a, b, c on the device (abc_on_device::two) needs synthesis on the host: the "
                  "device synthesis writes all three at once");
  if (options.device_budget_bytes) {
    const std::size_t budget = *options.device_budget_bytes;
    auto fitted = fit_to_budget(pk, std::move(options), budget);
    if (!fitted) return fitted.error();
    options = std::move(fitted).value();
  }
  st->streamed = options.streamed;
  const key_vector_set& sv = st->streamed;
  const std::size_t chunk = options.stream_chunk_points;
  st->chunk_points = chunk != 0 ? chunk : gpu::msm_g1<Curve>::default_chunk_points;
  auto vector = [&](auto& msm, auto points, key_vector v, auto& copy) -> status {
    const bool streamed = sv.contains(v);
    if (streamed) points = detail::pinned_source(points, copy, st->pageable_streamed);
    return detail::make_msm(msm, points, streamed, chunk);
  };
  CUZK_TRY(vector(st->msm_a, pk.a, key_vector::a, st->pinned_a));
  CUZK_TRY(vector(st->msm_b1, pk.b1, key_vector::b1, st->pinned_b1));
  CUZK_TRY(vector(st->msm_b2, pk.b2, key_vector::b2, st->pinned_b2));
  CUZK_TRY(vector(st->msm_c, pk.c, key_vector::c, st->pinned_c));
  CUZK_TRY(vector(st->msm_h, pk.h, key_vector::h, st->pinned_h));
  CUZK_TRY(detail::take(st->plan, gpu::ntt_plan<fr>::create(static_cast<unsigned>(std::countr_zero(n)),
                                                            nullptr, prover_ntt_tables, options.twiddles)));
  if (options.synthesis == synthesis_place::device) {
    auto m = gpu::device_constraint_matrices<fr>::create(*pk.matrices);
    if (!m) return m.error();
    st->matrices.emplace(std::move(m).value());
  }
  st->b2_beside = options.b2_beside;
  st->abc = options.abc;
  st->scratch = key_msm_scratch(pk, sv, chunk, 1, options.b2_beside);
  if (options.workspace == key_workspace::own) {
    auto ws = gpu_workspace<Curve>::create(device);
    if (!ws) return ws.error();
    st->own = std::make_unique<gpu_workspace<Curve>>(std::move(ws).value());
    CUZK_TRY(st->own->reserve(pk.n_vars, n, options.synthesis, options.abc, st->scratch));
  }
  CUZK_CUDA_TRY(cudaDeviceSynchronize());
  CUZK_CUDA_TRY(cudaMemGetInfo(&free_after, &total));
  // What the device lost, or at least what the key allocated: the driver hands memory out in
  // 2 MiB pages, so a small key can fit in pages the context already had and show no drop.
  gpu_key_options without_workspace = options;
  without_workspace.workspace = key_workspace::none;
  st->resident_bytes = std::max(free_before > free_after ? free_before - free_after : 0,
                                estimate_device_bytes(pk, without_workspace, sv));

  gpu_proving_key key;
  key.state_ = std::move(st);
  return result<gpu_proving_key>(std::move(key));
}

namespace detail {

// What the steps of one proof share.
template <class Curve>
struct gpu_proof_run {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  using ev = typename gpu_workspace<Curve>::event_id;

  gpu_key_state<Curve>& key;
  gpu_workspace<Curve>& ws;
  shared_turn& turn;  // the proof's turn at the key's kernel gate, shared by its two sides
  const proving_key_view<Curve>& pk;
  std::span<const repr> witness;
  thread_pool& pool;
  phase_timings& t;
  msm_sums<Curve> sums{};
  // The MSM threads' own timings and results (A, B1, C and B2 in turn; B2 beside them), merged
  // into `t` after they have joined.
  phase_timings msm_side{}, b2_side{};
  status msm_status = status::ok();
  // The proving thread's kernel-lock interval ("ntt_h"), for its parts' spans.
  steady::time_point ntt_h_begin{}, ntt_h_end{};
  // Where the witness goes on the device and where h is left: a batch's own vectors
  // (gpu_batch_prover.hpp), or null for the workspace's (w, and a, which h overwrites), read when
  // used, since the workspace's buffers are (re)allocated once the run exists.
  repr* witness_vector = nullptr;
  repr* h_vector = nullptr;
  repr* device_witness() const noexcept { return witness_vector != nullptr ? witness_vector : ws.w(); }
  repr* device_h() const noexcept { return h_vector != nullptr ? h_vector : reinterpret_cast<repr*>(ws.abc()); }

  bool on_device() const noexcept { return key.synthesis == synthesis_place::device; }
  // Two of a, b, c on the device at a time (abc_on_device::two): c's copy and the witness's wait
  // for room.
  bool two_on_device() const noexcept { return key.abc == abc_on_device::two; }
  std::size_t n() const noexcept { return key.domain_size; }
  // Where synthesis on the host writes a | b | c (pinned, or pageable to measure the difference).
  typename Curve::fr* host_abc() noexcept {
    return key.synthesis == synthesis_place::host_pinned ? ws.host_abc() : ws.pageable_abc();
  }
};

template <class Curve>
status check_inputs(const gpu_key_state<Curve>& st, const gpu_workspace<Curve>& ws,
                    const proving_key_view<Curve>& pk, std::size_t witness_size) {
  CUZK_TRY(pk.validate());
  if (pk.n_vars != st.n_vars || pk.n_public != st.n_public || pk.domain_size != st.domain_size)
    return status(errc::invalid_argument,
                  "gpu prover: proving key: (nVars, nPublic, domainSize): expected the GPU key's (" +
                      std::to_string(st.n_vars) + ", " + std::to_string(st.n_public) + ", " +
                      std::to_string(st.domain_size) + "), found (" + std::to_string(pk.n_vars) + ", " +
                      std::to_string(pk.n_public) + ", " + std::to_string(pk.domain_size) + ")");
  if (witness_size != pk.n_vars)
    return status(errc::invalid_argument, "witness: length: expected the key's nVars = " +
                                              std::to_string(pk.n_vars) + ", found " + std::to_string(witness_size));
  if (ws.device() != st.device)
    return status(errc::invalid_argument, "gpu prover: workspace: expected one on the key's device " +
                                              std::to_string(st.device) + ", found device " +
                                              std::to_string(ws.device()));
  return status::ok();
}

// The witness into pinned memory, so that its one copy to the device runs at the line rate; none
// where it is there already (a caller that made it in the staging buffer it lent).
template <class Curve>
void stage_witness(gpu_proof_run<Curve>& run) {
  using repr = typename Curve::fr::repr;
  repr* w = run.ws.host_w();
  if (run.witness.data() == w) return;
  run.pool.parallel_for(
      run.witness.size(),
      [&](std::size_t lo, std::size_t hi) {
        std::memcpy(w + lo, run.witness.data() + lo, (hi - lo) * sizeof(repr));
      },
      1 << 14);
}

// The witness to the device, once, on the copy stream and outside the kernel lock: the MSMs (and
// the device synthesis) read it there.
template <class Curve>
status copy_witness(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using repr = typename Curve::fr::repr;
  const cudaStream_t cs = run.ws.copy_stream();
  CUZK_TRY(run.ws.event(ev::w_begin).record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(run.device_witness(), run.ws.host_w(), run.witness.size() * sizeof(repr),
                                cudaMemcpyHostToDevice, cs));
  return run.ws.event(ev::w_end).record(cs);
}

// One witness MSM on `stream` into `out`, timed as a part of `side` (its slot and spans).
template <class M, class Out, class Repr>
status timed_witness_msm(const char* name, M& m, const Repr* scalars, std::size_t count, Out& out, double& slot,
                         phase_timings& side, cudaStream_t stream, gpu::device_arena& arena) {
  return timed_part(name, slot, side.kernel_spans, [&]() -> status {
    auto sum = m.run_device(scalars, count, nullptr, stream, &arena);
    if (!sum) return sum.error();
    out = *sum;
    return status::ok();
  });
}

// B2 beside A, B1 and C: on its own stream and arena, under its own share of the proof's turn,
// once the witness is on the device. Writes only sums.b2 and b2_side.
template <class Curve>
status run_b2_beside(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  auto& st = run.key;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  const cudaStream_t bs = run.ws.b2_stream();
  CUZK_CUDA_TRY(cudaStreamWaitEvent(bs, run.ws.event(ev::w_end).get(), 0));
  phase_timings& side = run.b2_side;
  timed_kernel_lock lock(run.turn, "msm_abc", side.lock_wait, side.kernel_spans);
  return timed_witness_msm("msm_b2", st.msm_b2, run.device_witness(), st.n_vars, run.sums.b2, side.msm_b2, side, bs,
                           run.ws.b2_msm_scratch());
}

// A, B1, B2 and C, on the MSM stream under the kernel lock, once the witness is on the device;
// where the key gave B2 an arena of its own (gpu_key_state::b2_beside), B2 runs beside the
// others on a thread of its own (run_b2_beside). It writes only its own fields of `run` (sums a,
// b1, b2, c; msm_side, b2_side; msm_status), so it can run on a thread of its own beside synthesis.
template <class Curve>
status run_witness_msms(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using repr = typename Curve::fr::repr;
  auto& st = run.key;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  status b2_status = status::ok();
  std::jthread b2_thread;
  bool b2_after = false;  // no thread to be had: B2 after the others, on this one, in its own arena
  if (st.b2_beside) {
    try {
      b2_thread = std::jthread([&run, &b2_status] { b2_status = run_b2_beside(run); });
    } catch (const std::system_error&) {
      b2_after = true;
    }
  }
  const status g1_status = [&]() -> status {
    const cudaStream_t ms = run.ws.msm_stream();
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ms, run.ws.event(ev::w_end).get(), 0));
    phase_timings& side = run.msm_side;
    timed_kernel_lock lock(run.turn, "msm_abc", side.lock_wait, side.kernel_spans);
    const repr* dw = run.device_witness();
    const std::size_t n_vars = st.n_vars, n_private = st.n_vars - st.n_public - 1;
    auto& arena = run.ws.witness_msm_scratch();
    // In this order: B2 first (its G2 points are the most bytes to stream) was measured slower, 287
    // against 266 ms at 2^24 mostly-0/1 streamed (docs/gpu/msm.md, 'One scratch for a proof').
    CUZK_TRY(timed_witness_msm("msm_a", st.msm_a, dw, n_vars, run.sums.a, side.msm_a, side, ms, arena));
    CUZK_TRY(timed_witness_msm("msm_b1", st.msm_b1, dw, n_vars, run.sums.b1, side.msm_b1, side, ms, arena));
    if (!st.b2_beside)
      CUZK_TRY(timed_witness_msm("msm_b2", st.msm_b2, dw, n_vars, run.sums.b2, side.msm_b2, side, ms, arena));
    return timed_witness_msm("msm_c", st.msm_c, dw + st.n_public + 1, n_private, run.sums.c, side.msm_c, side, ms,
                             arena);
  }();
  if (b2_thread.joinable()) b2_thread.join();
  if (b2_after && g1_status) b2_status = run_b2_beside(run);
  CUZK_TRY(g1_status);
  return b2_status;
}

// a, b, c by CPU threads into the host buffer (pinned, or pageable to measure the difference),
// then the copy stream moves one vector at a time (outside the lock, so the copy engine runs while
// another proof's kernels do); each vector's transforms start as soon as it is there. With two on
// the device, c waits on the host until b's place is free (transform copies it).
template <class Curve>
status synthesize_on_host(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using fr = typename Curve::fr;
  const std::size_t n = run.n();
  fr* host_a = run.host_abc();
  {
    phase_timer timer(&run.t.synthesis);
    CUZK_TRY(synth::evaluate_abc<fr>(*run.pk.matrices, run.witness, {host_a, n}, {host_a + n, n},
                                     {host_a + 2 * n, n}, run.pool));
  }
  const cudaStream_t cs = run.ws.copy_stream();
  fr* d = run.ws.abc();
  CUZK_TRY(run.ws.event(ev::copy_begin).record(cs));
  for (unsigned k = 0; k < (run.two_on_device() ? 2u : 3u); ++k) {
    CUZK_CUDA_TRY(cudaMemcpyAsync(d + k * n, host_a + k * n, n * sizeof(fr), cudaMemcpyHostToDevice, cs));
    CUZK_TRY(run.ws.event(static_cast<ev>(ev::copy_a + k)).record(cs));
  }
  return status::ok();
}

// Under the kernel lock, on the NTT stream: with synthesis on the device its kernel (reading the
// device witness, writing a | b | c in place); then per vector the inverse NTT natural ->
// bit-reversed with 1/n and the forward on the odd coset bit-reversed -> natural (evaluations at
// shift * omega^j in natural order, as poly::compute_h leaves them); then h = ab - c, over a.
// With two on the device: a and b so, then a b into a; c, copied into b's place once the product
// has read b, so; then h = ab - c over a (the same values, gpu/h_scalars.hpp).
template <class Curve>
status transform(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using fr = typename Curve::fr;
  auto& st = run.key;
  auto& ws = run.ws;
  const std::size_t n = run.n();
  const cudaStream_t ns = ws.ntt_stream();
  fr* d = ws.abc();
  if (run.on_device()) {
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(ev::w_end).get(), 0));
    CUZK_TRY(ws.event(ev::synth_begin).record(ns));
    CUZK_TRY(st.matrices->evaluate(run.device_witness(), d, d + n, d + 2 * n, n, ns));
    CUZK_TRY(ws.event(ev::synth_end).record(ns));
    CUZK_TRY(ws.event(ev::ntt_begin).record(ns));
  }
  auto to_coset = [&](fr* v) -> status {
    CUZK_TRY(st.plan.run(v, gpu::ntt_direction::inverse, gpu::ntt_order::natural_to_bitrev, gpu::ntt_domain::plain,
                         ns));
    return st.plan.run(v, gpu::ntt_direction::forward, gpu::ntt_order::bitrev_to_natural, gpu::ntt_domain::coset,
                       ns);
  };
  const unsigned together = run.two_on_device() ? 2 : 3;
  for (unsigned k = 0; k < together; ++k) {
    if (!run.on_device()) {
      CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(static_cast<ev>(ev::copy_a + k)).get(), 0));
      if (k == 0) CUZK_TRY(ws.event(ev::ntt_begin).record(ns));
    }
    CUZK_TRY(to_coset(d + k * n));
  }
  if (!run.two_on_device()) {
    CUZK_TRY(gpu::h_scalars<fr>(d, d + n, d + 2 * n, run.device_h(), n, ns));  // by default over a
    return ws.event(ev::ntt_end).record(ns);
  }
  CUZK_TRY(gpu::ab_product<fr>(d, d + n, n, ns));
  CUZK_TRY(ws.event(ev::ab_made).record(ns));
  const cudaStream_t cs = ws.copy_stream();
  CUZK_CUDA_TRY(cudaStreamWaitEvent(cs, ws.event(ev::ab_made).get(), 0));
  CUZK_TRY(ws.event(ev::copy_c_begin).record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(d + n, run.host_abc() + 2 * n, n * sizeof(fr), cudaMemcpyHostToDevice, cs));
  CUZK_TRY(ws.event(ev::copy_c).record(cs));
  CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(ev::copy_c).get(), 0));
  CUZK_TRY(to_coset(d + n));
  CUZK_TRY(gpu::h_scalars_from_product<fr>(d, d + n, run.device_h(), n, ns));
  return ws.event(ev::ntt_end).record(ns);
}

// The H MSM on h where the NTT stream left it, queued behind the h kernel.
template <class Curve>
status msm_h(gpu_proof_run<Curve>& run) {
  phase_timer timer(&run.t.msm_h);
  auto sum = run.key.msm_h.run_device(run.device_h(), run.n(), nullptr,
                                      run.ws.ntt_stream(), &run.ws.h_msm_scratch());
  if (!sum) return sum.error();
  run.sums.h = *sum;
  return status::ok();
}

// The synthesis (on the host), the transforms, `after_h` (queued work that needs h made) and the
// H MSM; the lock is taken after the copies were queued, and when another holds it, lent host
// buffers go back first (the copies end while this proof waits, so the next proof's synthesis can
// fill them), except with two of a, b, c on the device, whose c and witness are copied later.
template <class Curve, class AfterH>
status synthesize_and_transform(gpu_proof_run<Curve>& run, AfterH&& after_h) {
  if (!run.on_device()) CUZK_TRY(synthesize_on_host(run));
  auto& ws = run.ws;
  timed_kernel_lock lock(run.turn, "ntt_h", run.t.lock_wait, run.t.kernel_spans, [&] {
    if (run.two_on_device()) return;
    if (ws.has_lent_host() && cudaStreamSynchronize(ws.copy_stream()) == cudaSuccess) ws.give_back_host();
  });
  run.ntt_h_begin = lock.acquired();
  const status done = [&]() -> status {
    CUZK_TRY(transform(run));
    CUZK_TRY(after_h());
    return msm_h(run);
  }();
  lock.release();
  run.ntt_h_end = lock.released();
  return done;
}

// The MSM threads' times into the proof's, once they have joined: their MSMs (B2 from `b2` where it
// ran beside the others), their wait for the kernel lock (the longer of the two, which waited at
// once), and their spans first (they began first).
inline void merge_msm_side(phase_timings& t, const phase_timings& side, const phase_timings& b2 = {}) {
  t.msm_a = side.msm_a;
  t.msm_b1 = side.msm_b1;
  t.msm_b2 = side.msm_b2 + b2.msm_b2;
  t.msm_c = side.msm_c;
  t.lock_wait += std::max(side.lock_wait, b2.lock_wait);
  std::vector<kernel_span> spans = side.kernel_spans;
  spans.insert(spans.end(), b2.kernel_spans.begin(), b2.kernel_spans.end());
  spans.insert(spans.end(), t.kernel_spans.begin(), t.kernel_spans.end());
  t.kernel_spans = std::move(spans);
  t.lock_held = add_held_union(t.kernel_spans);
}

// The GPU phases from the workspace's events and the parts of "ntt_h" (clipped to the interval),
// once both threads are done.
template <class Curve>
status read_device_times(gpu_proof_run<Curve>& run) {
  using ev = typename gpu_proof_run<Curve>::ev;
  phase_timings& t = run.t;
  auto& ws = run.ws;
  auto span = [&](ev from, ev to, double& out) -> status {
    auto s = event_seconds(ws.event(from), ws.event(to));
    if (!s) return s.error();
    out = *s;
    return status::ok();
  };
  CUZK_TRY(span(ev::w_begin, ev::w_end, t.witness_h2d));
  t.synthesis_on_device = run.on_device();
  if (run.on_device()) {
    // The copy the synthesis waited for is the witness's; the kernel alone is the synthesis (the
    // wait for the kernel lock before it is lock_wait).
    t.h2d_bytes = static_cast<double>(run.key.n_vars * sizeof(typename Curve::fr::repr));
    t.h2d = t.witness_h2d;
    CUZK_TRY(span(ev::synth_begin, ev::synth_end, t.synthesis));
  } else if (!run.two_on_device()) {
    t.h2d_bytes = static_cast<double>(3 * run.n() * sizeof(typename Curve::fr));
    CUZK_TRY(span(ev::copy_begin, ev::copy_c, t.h2d));
  } else {
    // a and b together, c once b's place was free: the two copies, not the transforms between.
    t.h2d_bytes = static_cast<double>(3 * run.n() * sizeof(typename Curve::fr));
    double c_copy = 0;
    CUZK_TRY(span(ev::copy_begin, ev::copy_b, t.h2d));
    CUZK_TRY(span(ev::copy_c_begin, ev::copy_c, c_copy));
    t.h2d += c_copy;
  }
  CUZK_TRY(span(ev::ntt_begin, ev::ntt_end, t.ntt));
  auto at = [&](double seconds) {
    return std::min(run.ntt_h_end, run.ntt_h_begin + std::chrono::duration_cast<steady::duration>(
                                                          std::chrono::duration<double>(seconds)));
  };
  const double synth = run.on_device() ? t.synthesis : 0;
  if (run.on_device()) t.kernel_spans.push_back({"synthesis", run.ntt_h_begin, at(synth), false});
  t.kernel_spans.push_back({"ntt", at(synth), at(synth + t.ntt), false});
  t.kernel_spans.push_back({"msm_h", at(synth + t.ntt), run.ntt_h_end, false});
  return status::ok();
}

// The workspace a proof runs in: the caller's, or the key's own, locked into `own_lock` (one
// proof at a time on it).
template <class Curve>
result<gpu_workspace<Curve>*> workspace_of(const gpu_context<Curve>& where, std::unique_lock<std::mutex>& own_lock) {
  auto& st = where.key.state();
  if (where.workspace != nullptr) return where.workspace;
  if (!st.own)
    return status(errc::invalid_argument, "gpu prover: the key was made with key_workspace::none: pass a gpu_workspace");
  own_lock = std::unique_lock<std::mutex>(st.own_mutex);
  return st.own.get();
}

template <class Curve>
result<formats::proof<Curve>> prove_in(gpu_proof_run<Curve>& run, const typename Curve::fr& r,
                                       const typename Curve::fr& s) {
  phase_timings& t = run.t;
  auto& ws = run.ws;
  CUZK_CUDA_TRY(cudaSetDevice(run.key.device));
  CUZK_TRY(ws.reserve(run.key.n_vars, run.key.domain_size, run.key.synthesis, run.key.abc, run.key.scratch));
  {
    phase_timer timer(&t.witness);
    stage_witness(run);
  }
  // A, B1, B2 and C need only the witness: they run while a, b, c are synthesized (with two of a,
  // b, c on the device, once h is made and the witness has taken b's place). Each run waits for
  // its own result, hence the thread.
  std::jthread msm_thread;
  auto start_witness_msms = [&]() -> status {
    CUZK_TRY(copy_witness(run));
    try {
      msm_thread = std::jthread([&run] { run.msm_status = run_witness_msms(run); });
    } catch (const std::system_error&) {
      run.msm_status = run_witness_msms(run);  // no thread to be had: here, in turn
    }
    return status::ok();
  };
  if (!run.two_on_device()) CUZK_TRY(start_witness_msms());
  const status main_path = synthesize_and_transform(run, [&]() -> status {
    if (!run.two_on_device()) return status::ok();
    // c is in b's place until the h kernel has read it.
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ws.copy_stream(), ws.event(gpu_workspace<Curve>::ntt_end).get(), 0));
    return start_witness_msms();
  });
  // After a failure the copies may still be reading the pinned buffers: let them end before the
  // workspace serves another proof or gives them back. (After success they ended before the NTTs
  // began, except, with two of a, b, c on the device, c's, between them, and the witness's, beside
  // H.)
  (void)cudaStreamSynchronize(ws.copy_stream());
  ws.give_back_host();
  {
    // The MSM thread must end before anything returns: it reads `ws` and writes `run`.
    phase_timer timer(&t.msm_wait);
    if (msm_thread.joinable()) msm_thread.join();
  }
  CUZK_TRY(main_path);
  CUZK_TRY(run.msm_status);
  merge_msm_side(t, run.msm_side, run.b2_side);
  CUZK_TRY(read_device_times(run));
  phase_timer timer(&t.assembly);
  return assemble(run.pk, run.sums, r, s);
}

}  // namespace detail

template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings, const gpu_context<Curve>& where) {
  auto& st = where.key.state();
  std::unique_lock<std::mutex> own_lock;
  auto found = detail::workspace_of(where, own_lock);
  if (!found) return found.error();
  gpu_workspace<Curve>* ws = *found;
  CUZK_TRY(detail::check_inputs(st, *ws, pk, witness.size()));
  phase_timings local;
  phase_timings& t = timings != nullptr ? *timings : local;
  t = {};
  phase_timer whole(&t.total);
  shared_turn turn(*st.kernel_lock);
  detail::gpu_proof_run<Curve> run{st, *ws, turn, pk, witness, *where.pool, t};
  auto proof = detail::prove_in(run, r, s);
  whole.stop();
  return proof;
}

template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness, phase_timings* timings,
                                    const gpu_context<Curve>& where) {
  using fr = typename Curve::fr;
  return prove_with<Curve>(pk, witness, os_random_scalar<fr>(), os_random_scalar<fr>(), timings, where);
}

}  // namespace cuzk::groth16

// The explicit instantiations for one curve, written once (gpu_prover_<curve>.cpp expand it).
#define CUZK_GPU_PROVER_INSTANTIATE(C)                                                                  \
  namespace cuzk::groth16 {                                                                             \
  template class gpu_proving_key<C>;                                                                    \
  template msm_scratch_sizes key_msm_scratch<C>(const proving_key_view<C>&, key_vector_set, std::size_t,      \
                                                unsigned, bool);                                                \
  template std::size_t estimate_device_bytes<C>(const proving_key_view<C>&, const gpu_key_options&,            \
                                                key_vector_set);                                        \
  template result<key_vector_set> choose_streamed<C>(const proving_key_view<C>&, const gpu_key_options&,       \
                                                     std::size_t);                                      \
  template gpu::ntt_memory choose_twiddles<C>(const proving_key_view<C>&, const gpu_key_options&,          \
                                              std::size_t);                                             \
  template result<gpu_key_options> place_at_range<C>(const proving_key_view<C>&, gpu_key_options, std::size_t); \
  template result<gpu_key_options> fit_to_budget<C>(const proving_key_view<C>&, gpu_key_options, std::size_t); \
  template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&, std::span<const C::fr::repr>, \
                                                   const C::fr&, const C::fr&, phase_timings*,          \
                                                   const gpu_context<C>&);                              \
  template result<formats::proof<C>> prove<C>(const proving_key_view<C>&, std::span<const C::fr::repr>,   \
                                              phase_timings*, const gpu_context<C>&);                   \
  }  // namespace cuzk::groth16
