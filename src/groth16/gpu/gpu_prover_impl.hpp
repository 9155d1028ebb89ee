// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for gpu_prover.hpp and gpu_batch_prover.hpp, compiled once per curve in
// gpu_prover_<curve>.cpp and gpu_batch_prover_<curve>.cpp (host code: the kernels it launches live
// in the cuzk_gpu library; the key itself is gpu_proving_key.cpp's, its placement
// gpu_key_placement.cpp's).
//
// One path proves one witness or a batch of them: a proof is a batch of one. The steps are those
// gpu_prover.hpp lists, one function each, over one gpu_proof_run that holds what they share;
// prove_partitions() only orders them, and the witness MSMs (run_witness_msms) and the H MSM each
// take every partition's scalars at once, as gpu::device_msm::run_device_batch serves one scalar
// set or many. Clocks stay out of the steps: host phases are phase_timers around the calls, the
// kernel lock is a timed_kernel_lock, and GPU phases are read from the workspace's CUDA events
// once each partition's transforms have ended (read_device_spans).
#pragma once

#include <algorithm>
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

#include "gpu/abc_device.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/h_scalars.hpp"
#include "msm/scalar_sample.hpp"
#include "groth16/assemble.hpp"
#include "groth16/gpu/gpu_batch_prover.hpp"
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

// What the steps of one call share: one proof, or a batch of partitions of one circuit, each with
// its own witness, r and s, whose witness and H MSMs run once for all of them. One proof is a
// batch of one.
template <class Curve>
struct gpu_proof_run {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  using ev = typename gpu_workspace<Curve>::event_id;

  gpu_key_state<Curve>& key;
  gpu_workspace<Curve>& ws;
  shared_turn& turn;  // the call's turn at the key's kernel gate, shared by its sides
  const proving_key_view<Curve>& pk;
  thread_pool& pool;
  phase_timings& t;
  std::size_t parts = 1;
  // Each partition's witness once it has arrived, and its sums once the MSMs have run.
  std::vector<std::span<const repr>> witness = std::vector<std::span<const repr>>(parts);
  std::vector<msm_sums<Curve>> sums = std::vector<msm_sums<Curve>>(parts);
  // Each partition's share of witness values 0 or 1, sampled as it arrives: the witness MSMs
  // choose their accumulation by it (gpu::device_msm::run_device_batch).
  std::vector<double> zero_one = std::vector<double>(parts);
  // The MSM threads' own timings and results (A, B1, C and B2 in turn; B2 beside them), merged
  // into `t` after they have joined.
  phase_timings msm_side{}, b2_side{};
  status msm_status = status::ok();
  // The proving thread's last kernel-lock interval ("ntt_h": the last partition's transforms and
  // the H MSM), for its parts' spans.
  steady::time_point ntt_h_begin{}, ntt_h_end{};
  // A batch's device vectors: every partition's witness and h, one after another. A batch of one
  // has none: its witness is the workspace's, and its h overwrites a.
  gpu::device_buffer<repr> batch_witnesses{}, batch_h{};

  bool batch() const noexcept { return parts > 1; }
  // The events of partition q's witness copy: two pairs in turn, since a batch queues q + 1's copy
  // while q transforms, and reads q's copy span only after.
  ev witness_copy_begin(std::size_t q) const noexcept { return q % 2 == 0 ? ev::w_begin : ev::w_begin_odd; }
  ev witness_copy_end(std::size_t q) const noexcept { return q % 2 == 0 ? ev::w_end : ev::w_end_odd; }
  // The event after which every witness is on the device (the copies run in order on one stream).
  ev witnesses_copied() const noexcept { return witness_copy_end(parts - 1); }
  // Where partition q's witness goes on the device and where its h is left; read when used, since
  // the workspace's buffers are (re)allocated once the run exists.
  repr* device_witness(std::size_t q) noexcept {
    return batch() ? batch_witnesses.data() + q * key.n_vars : ws.w();
  }
  repr* device_h(std::size_t q) noexcept {
    return batch() ? batch_h.data() + q * key.domain_size : reinterpret_cast<repr*>(ws.abc());
  }
  double witness_zero_one_share() const {
    double sum = 0;
    for (const double z : zero_one) sum += z;
    return zero_one.empty() ? 0 : sum / static_cast<double>(zero_one.size());
  }
  std::vector<const repr*> witness_sets(std::size_t offset = 0) {
    std::vector<const repr*> out(parts);
    for (std::size_t q = 0; q < parts; ++q) out[q] = device_witness(q) + offset;
    return out;
  }
  std::vector<const repr*> h_sets() {
    std::vector<const repr*> out(parts);
    for (std::size_t q = 0; q < parts; ++q) out[q] = device_h(q);
    return out;
  }

  bool on_device() const noexcept { return key.synthesis == synthesis_place::device; }
  // Two of a, b, c on the device at a time (abc_on_device::two): c waits for room (made by a
  // second synthesis kernel, or copied from the host), and with synthesis on the host so does the
  // witness of a batch of one, whose place is b's.
  bool two_on_device() const noexcept { return key.abc == abc_on_device::two; }
  bool witness_after_h() const noexcept { return two_on_device() && !on_device() && !batch(); }
  // Whether the host buffers are read after the transforms begin (c's copy, and the witness's).
  bool copies_after_transforms() const noexcept { return two_on_device() && !on_device(); }
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

// Partition q's witness into pinned memory, so that its one copy to the device runs at the line
// rate; none where it is there already (a caller that made it in the staging buffer it lent).
template <class Curve>
void stage_witness(gpu_proof_run<Curve>& run, std::size_t q) {
  using repr = typename Curve::fr::repr;
  const std::span<const repr> witness = run.witness[q];
  repr* w = run.ws.host_w();
  if (witness.data() == w) return;
  run.pool.parallel_for(
      witness.size(),
      [&](std::size_t lo, std::size_t hi) { std::memcpy(w + lo, witness.data() + lo, (hi - lo) * sizeof(repr)); },
      1 << 14);
}

// Partition q's witness to the device, once, on the copy stream and outside the kernel lock: the
// MSMs (and the device synthesis) read it there.
template <class Curve>
status copy_witness(gpu_proof_run<Curve>& run, std::size_t q) {
  using repr = typename Curve::fr::repr;
  const cudaStream_t cs = run.ws.copy_stream();
  CUZK_TRY(run.ws.event(run.witness_copy_begin(q)).record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(run.device_witness(q), run.ws.host_w(), run.witness[q].size() * sizeof(repr),
                                cudaMemcpyHostToDevice, cs));
  return run.ws.event(run.witness_copy_end(q)).record(cs);
}

// One witness MSM over every partition's scalars (`sets`: one set, or a batch's, whose points then
// cross once for all of them: gpu::device_msm::run_device_batch) on `stream` into each partition's
// sums' `member`, timed as a part of `side` (its slot and spans). `zero_one_share`: the witnesses'
// share of 0 and 1, by which the MSM may choose its accumulation.
template <class Curve, class M, class Member>
status timed_witness_msm(const char* name, M& m, std::span<const typename Curve::fr::repr* const> sets,
                         std::size_t count, std::vector<msm_sums<Curve>>& sums, Member member, double& slot,
                         phase_timings& side, cudaStream_t stream, gpu::device_arena& arena,
                         double zero_one_share) {
  return timed_part(name, slot, side.kernel_spans, [&]() -> status {
    using point = std::remove_cvref_t<decltype(sums[0].*member)>;
    std::vector<point> out(sets.size());
    CUZK_TRY(m.run_device_batch(sets, count, out, stream, &arena, zero_one_share));
    for (std::size_t q = 0; q < sets.size(); ++q) sums[q].*member = out[q];
    return status::ok();
  });
}

// B2 beside A, B1 and C: on its own stream and arena, under its own share of the call's turn, once
// the last witness is on the device. Writes only the sums' b2 and b2_side.
template <class Curve>
status run_b2_beside(gpu_proof_run<Curve>& run, std::span<const typename Curve::fr::repr* const> w) {
  auto& st = run.key;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  const cudaStream_t bs = run.ws.b2_stream();
  CUZK_CUDA_TRY(cudaStreamWaitEvent(bs, run.ws.event(run.witnesses_copied()).get(), 0));
  phase_timings& side = run.b2_side;
  timed_kernel_lock lock(run.turn, "msm_abc", side.lock_wait, side.kernel_spans);
  return timed_witness_msm<Curve>("msm_b2", st.msm_b2, w, st.n_vars, run.sums, &msm_sums<Curve>::b2, side.msm_b2,
                                  side, bs, run.ws.b2_msm_scratch(), run.witness_zero_one_share());
}

// A, B1, B2 and C over every partition's witness, on the MSM stream under the kernel lock, once the
// last witness is on the device; where the key gave B2 an arena of its own (gpu_key_state::b2_beside),
// B2 runs beside the others on a thread of its own (run_b2_beside). It writes only its own fields
// of `run` (the sums' a, b1, b2, c; msm_side, b2_side; msm_status), so it can run on a thread of
// its own beside synthesis and the transforms.
template <class Curve>
status run_witness_msms(gpu_proof_run<Curve>& run) {
  using sums_t = msm_sums<Curve>;
  auto& st = run.key;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  const auto w = run.witness_sets();
  const auto c_sets = run.witness_sets(st.n_public + 1);  // C reads the private signals only
  status b2_status = status::ok();
  std::jthread b2_thread;
  bool b2_after = false;  // no thread to be had: B2 after the others, on this one, in its own arena
  if (st.b2_beside) {
    try {
      b2_thread = std::jthread([&run, &w, &b2_status] { b2_status = run_b2_beside<Curve>(run, w); });
    } catch (const std::system_error&) {
      b2_after = true;
    }
  }
  const status g1_status = [&]() -> status {
    const cudaStream_t ms = run.ws.msm_stream();
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ms, run.ws.event(run.witnesses_copied()).get(), 0));
    phase_timings& side = run.msm_side;
    timed_kernel_lock lock(run.turn, "msm_abc", side.lock_wait, side.kernel_spans);
    const std::size_t n_vars = st.n_vars, n_private = st.n_vars - st.n_public - 1;
    auto& arena = run.ws.witness_msm_scratch();
    const double zero_one = run.witness_zero_one_share();
    // In this order: B2 first (its G2 points are the most bytes to stream) was measured slower, 287
    // against 266 ms at 2^24 mostly-0/1 streamed (docs/gpu/msm.md, 'One scratch for a proof').
    CUZK_TRY(timed_witness_msm<Curve>("msm_a", st.msm_a, w, n_vars, run.sums, &sums_t::a, side.msm_a, side, ms,
                                      arena, zero_one));
    CUZK_TRY(timed_witness_msm<Curve>("msm_b1", st.msm_b1, w, n_vars, run.sums, &sums_t::b1, side.msm_b1, side, ms,
                                      arena, zero_one));
    if (!st.b2_beside)
      CUZK_TRY(timed_witness_msm<Curve>("msm_b2", st.msm_b2, w, n_vars, run.sums, &sums_t::b2, side.msm_b2, side, ms,
                                        arena, zero_one));
    return timed_witness_msm<Curve>("msm_c", st.msm_c, c_sets, n_private, run.sums, &sums_t::c, side.msm_c, side, ms,
                                    arena, zero_one);
  }();
  if (b2_thread.joinable()) b2_thread.join();
  if (b2_after && g1_status) b2_status = run_b2_beside<Curve>(run, w);
  CUZK_TRY(g1_status);
  return b2_status;
}

// Partition q's a, b, c by CPU threads into the host buffer (pinned, or pageable to measure the
// difference), then the copy stream moves one vector at a time (outside the lock, so the copy
// engine runs while another proof's kernels do); each vector's transforms start as soon as it is
// there. With two on the device, c waits on the host until b's place is free (transform copies it).
template <class Curve>
status synthesize_on_host(gpu_proof_run<Curve>& run, std::size_t q) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using fr = typename Curve::fr;
  const std::size_t n = run.n();
  fr* host_a = run.host_abc();
  {
    phase_timer timer(&run.t.synthesis);
    CUZK_TRY(synth::evaluate_abc<fr>(*run.pk.matrices, run.witness[q], {host_a, n}, {host_a + n, n},
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

// Partition q under the kernel lock, on the NTT stream: with synthesis on the device its kernel
// (reading its device witness, writing a | b | c in place); then per vector the inverse NTT natural
// -> bit-reversed with 1/n and the forward on the odd coset bit-reversed -> natural (evaluations at
// shift * omega^j in natural order, as poly::compute_h leaves them); then h = ab - c into the
// partition's h (a's place, in a batch of one). With two on the device: a and b so, then a b into
// a; c, into b's place once the product has read b (made there by a second synthesis kernel, or
// copied from the host), so; then h = ab - c (the same values, gpu/h_scalars.hpp).
template <class Curve>
status transform(gpu_proof_run<Curve>& run, std::size_t q) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using fr = typename Curve::fr;
  auto& st = run.key;
  auto& ws = run.ws;
  const std::size_t n = run.n();
  const cudaStream_t ns = ws.ntt_stream();
  fr* d = ws.abc();
  if (run.on_device()) {
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(run.witness_copy_end(q)).get(), 0));
    CUZK_TRY(ws.event(ev::synth_begin).record(ns));
    // With two on the device, a and b now and c later, into b's place (below).
    CUZK_TRY(st.matrices->evaluate(run.device_witness(q), d, d + n, run.two_on_device() ? nullptr : d + 2 * n, n,
                                   ns));
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
    CUZK_TRY(gpu::h_scalars<fr>(d, d + n, d + 2 * n, run.device_h(q), n, ns));
    return ws.event(ev::ntt_end).record(ns);
  }
  CUZK_TRY(gpu::ab_product<fr>(d, d + n, n, ns));
  CUZK_TRY(ws.event(ev::ab_made).record(ns));
  if (run.on_device()) {
    // c = (A w)(B w) again, into b's place: a few ms of the device (counted in the transforms'
    // span) where keeping c from the first kernel would take n more elements of device memory.
    CUZK_TRY(st.matrices->evaluate(run.device_witness(q), nullptr, nullptr, d + n, n, ns));
    CUZK_TRY(to_coset(d + n));
    CUZK_TRY(gpu::h_scalars_from_product<fr>(d, d + n, run.device_h(q), n, ns));
    return ws.event(ev::ntt_end).record(ns);
  }
  const cudaStream_t cs = ws.copy_stream();
  CUZK_CUDA_TRY(cudaStreamWaitEvent(cs, ws.event(ev::ab_made).get(), 0));
  CUZK_TRY(ws.event(ev::copy_c_begin).record(cs));
  CUZK_CUDA_TRY(cudaMemcpyAsync(d + n, run.host_abc() + 2 * n, n * sizeof(fr), cudaMemcpyHostToDevice, cs));
  CUZK_TRY(ws.event(ev::copy_c).record(cs));
  CUZK_CUDA_TRY(cudaStreamWaitEvent(ns, ws.event(ev::copy_c).get(), 0));
  CUZK_TRY(to_coset(d + n));
  CUZK_TRY(gpu::h_scalars_from_product<fr>(d, d + n, run.device_h(q), n, ns));
  return ws.event(ev::ntt_end).record(ns);
}

// The H MSM over every partition's h where the NTT stream left it, queued behind the last h kernel.
template <class Curve>
status msm_h(gpu_proof_run<Curve>& run) {
  phase_timer timer(&run.t.msm_h);
  const auto h = run.h_sets();
  std::vector<g1<Curve>> out(h.size());
  CUZK_TRY(run.key.msm_h.run_device_batch(h, run.n(), out, run.ws.ntt_stream(), &run.ws.h_msm_scratch()));
  for (std::size_t q = 0; q < out.size(); ++q) run.sums[q].h = out[q];
  return status::ok();
}

// The MSM threads' times into the call's, once they have joined: their MSMs (B2 from `b2` where it
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

// What the workspace's events say of partition q, just transformed (its events are the next
// partition's after that, so each is read once its transforms have ended): the copies' time and
// bytes, the synthesis kernel's and the transforms'.
struct device_spans {
  double witness_h2d = 0, h2d = 0, h2d_bytes = 0, synthesis = 0, ntt = 0;
};

template <class Curve>
result<device_spans> read_device_spans(gpu_proof_run<Curve>& run, std::size_t q) {
  using ev = typename gpu_proof_run<Curve>::ev;
  auto& ws = run.ws;
  device_spans d;
  auto span = [&](ev from, ev to, double& out) -> status {
    auto s = event_seconds(ws.event(from), ws.event(to));
    if (!s) return s.error();
    out = *s;
    return status::ok();
  };
  CUZK_TRY(span(run.witness_copy_begin(q), run.witness_copy_end(q), d.witness_h2d));
  if (run.on_device()) {
    // The copy the synthesis waited for is the witness's; the kernel alone is the synthesis (the
    // wait for the kernel lock before it is lock_wait).
    d.h2d_bytes = static_cast<double>(run.key.n_vars * sizeof(typename Curve::fr::repr));
    d.h2d = d.witness_h2d;
    CUZK_TRY(span(ev::synth_begin, ev::synth_end, d.synthesis));
  } else if (!run.two_on_device()) {
    d.h2d_bytes = static_cast<double>(3 * run.n() * sizeof(typename Curve::fr));
    CUZK_TRY(span(ev::copy_begin, ev::copy_c, d.h2d));
  } else {
    // a and b together, c once b's place was free: the two copies, not the transforms between.
    d.h2d_bytes = static_cast<double>(3 * run.n() * sizeof(typename Curve::fr));
    double c_copy = 0;
    CUZK_TRY(span(ev::copy_begin, ev::copy_b, d.h2d));
    CUZK_TRY(span(ev::copy_c_begin, ev::copy_c, c_copy));
    d.h2d += c_copy;
  }
  CUZK_TRY(span(ev::ntt_begin, ev::ntt_end, d.ntt));
  return d;
}

// The partition's spans added to the call's phases.
inline void add_device_spans(phase_timings& t, const device_spans& d, bool on_device) {
  t.synthesis_on_device = on_device;
  t.witness_h2d += d.witness_h2d;
  t.h2d += d.h2d;
  t.h2d_bytes += d.h2d_bytes;
  t.synthesis += d.synthesis;
  t.ntt += d.ntt;
}

// The parts of the last "ntt_h" interval (clipped to it), from the last partition's spans: with
// synthesis on the device its kernel, the transforms, and the H MSM the rest. The kernels are
// queued at once, so each part is placed from the interval's start by its CUDA-event length.
template <class Curve>
void place_last_hold(gpu_proof_run<Curve>& run, const device_spans& d) {
  phase_timings& t = run.t;
  auto at = [&](double seconds) {
    return std::min(run.ntt_h_end, run.ntt_h_begin + std::chrono::duration_cast<steady::duration>(
                                                          std::chrono::duration<double>(seconds)));
  };
  const double synth = run.on_device() ? d.synthesis : 0;
  if (run.on_device()) t.kernel_spans.push_back({"synthesis", run.ntt_h_begin, at(synth), false});
  t.kernel_spans.push_back({"ntt", at(synth), at(synth + d.ntt), false});
  t.kernel_spans.push_back({"msm_h", at(synth + d.ntt), run.ntt_h_end, false});
}

// The MSM arenas of a call of `parts` proofs (batch_msm_scratch): the key's for one.
template <class Curve>
msm_scratch_sizes call_msm_scratch(const proving_key_view<Curve>& pk, const gpu_key_state<Curve>& st,
                                   std::size_t parts) {
  if (parts <= 1) return st.scratch;
  return key_msm_scratch(pk, st.streamed, st.chunk_points, static_cast<unsigned>(parts), st.b2_beside);
}

// The workspace a call runs in: the caller's, or the key's own, locked into `own_lock` (one call
// at a time on it).
template <class Curve>
result<gpu_workspace<Curve>*> workspace_of(const gpu_context<Curve>& where, std::unique_lock<std::mutex>& own_lock) {
  auto& st = where.key.state();
  if (where.workspace != nullptr) return where.workspace;
  if (!st.own)
    return status(errc::invalid_argument, "gpu prover: the key was made with key_workspace::none: pass a gpu_workspace");
  own_lock = std::unique_lock<std::mutex>(st.own_mutex);
  return st.own.get();
}

// The MSM sums of every partition of `witnesses` (run.parts of them), in the steps' order. Per
// partition, on the proving thread: its witness from the source (waiting for it where it is late)
// staged into pinned memory and copied to the device; its synthesis on the device (or on the host,
// copied in); under the call's turn its NTTs and h. The next witness is staged on the host while
// the device transforms this one, if it has arrived (batch_witness_source::ready), and its copy
// queued at once, beside the transforms; if not, the call lets go of the kernel gate once the
// transforms have ended and then waits for it. Once the last witness's copy is queued, the MSM
// thread runs A, B1 and C once for all of them, beside the remaining synthesis and transforms,
// and B2 beside them on a thread of its own where the key gave it an arena (or in their turn).
// The last partition's transforms and the H MSM over every h hold the gate at once. In a batch of
// one with two of a, b, c on the device and synthesis on the host, the witness takes b's place
// once h is made, and only then do the witness MSMs start.
template <class Curve>
status prove_partitions(gpu_proof_run<Curve>& run, const batch_witness_source<Curve>& witnesses) {
  using ev = typename gpu_proof_run<Curve>::ev;
  using repr = typename Curve::fr::repr;
  auto& st = run.key;
  auto& ws = run.ws;
  phase_timings& t = run.t;
  const std::size_t parts = run.parts;
  CUZK_CUDA_TRY(cudaSetDevice(st.device));
  // The arenas for the whole call up front (bucket sets per partition), so that no MSM grows one
  // mid-call and a caller's budget (batch_device_bytes) saw every byte.
  CUZK_TRY(ws.reserve(st.n_vars, st.domain_size, st.synthesis, st.abc, call_msm_scratch(run.pk, st, parts)));
  if (run.batch()) {
    CUZK_TRY(take(run.batch_witnesses, gpu::device_buffer<repr>::create(parts * st.n_vars)));
    CUZK_TRY(take(run.batch_h, gpu::device_buffer<repr>::create(parts * st.domain_size)));
  }

  // Partition q's witness from the source, its length checked, staged.
  auto arrive_and_stage = [&](std::size_t q) -> status {
    phase_timer timer(&t.witness);
    auto w = witnesses.wait(q);
    if (!w) return w.error();
    if (w->size() != st.n_vars) {
      status wrong(errc::invalid_argument, "witness: length: expected the key's nVars = " +
                                               std::to_string(st.n_vars) + ", found " + std::to_string(w->size()));
      return run.batch() ? wrong.with_context("partition " + std::to_string(q)) : wrong;
    }
    run.witness[q] = *w;
    run.zero_one[q] = msm::zero_one_share(*w);
    stage_witness(run, q);
    return status::ok();
  };
  auto has_arrived = [&](std::size_t q) { return !witnesses.ready || witnesses.ready(q); };

  // A, B1, B2 and C need only the witnesses: they run while the last ones are synthesized and
  // transformed. Each run waits for its own result, hence the thread.
  std::jthread msm_thread;
  auto start_witness_msms = [&] {
    try {
      msm_thread = std::jthread([&run] { run.msm_status = run_witness_msms(run); });
    } catch (const std::system_error&) {
      run.msm_status = run_witness_msms(run);  // no thread to be had: here, in turn
    }
  };
  // Partition q's witness to the device, after every one before it: the last one's copy starts
  // the witness MSMs.
  std::size_t copied = 0;
  auto queue_copy = [&](std::size_t q) -> status {
    CUZK_TRY(copy_witness(run, q));
    copied = q + 1;
    if (copied == parts) start_witness_msms();
    return status::ok();
  };

  const status main_path = [&]() -> status {
    CUZK_TRY(arrive_and_stage(0));
    for (std::size_t q = 0; q < parts; ++q) {
      const bool last = q + 1 == parts;
      if (!run.witness_after_h() && copied == q) CUZK_TRY(queue_copy(q));
      // A witness late for its partition crosses before the gate is taken, as the gate holds
      // kernels' time, not a copy's (another worker's proof may use it meanwhile); one staged
      // during the transforms before has crossed by now. Either way the one pinned staging buffer
      // is free for the next witness from here on. The last one's copy is waited for on the
      // device, beside the witness MSMs it started.
      if (!last) CUZK_CUDA_TRY(cudaEventSynchronize(ws.event(run.witness_copy_end(q)).get()));
      if (!run.on_device()) CUZK_TRY(synthesize_on_host(run, q));
      // The lock is taken after the copies were queued. When another proof holds it, host buffers
      // lent for the last partition go back first (its copies end while this call waits, so the
      // next proof's synthesis can fill them), except with two of a, b, c on the device and
      // synthesis on the host, whose c (and in a batch of one the witness) are copied later.
      timed_kernel_lock lock(run.turn, "ntt_h", t.lock_wait, t.kernel_spans, [&] {
        if (!last || run.copies_after_transforms()) return;
        if (ws.has_lent_host() && cudaStreamSynchronize(ws.copy_stream()) == cudaSuccess) ws.give_back_host();
      });
      if (!last) {
        CUZK_TRY(transform(run, q));
        // The next witness, if it is there, is staged while the device transforms this one, and
        // its copy queued at once (a batch gives each partition its own place on the device), so
        // that it crosses beside these transforms rather than before the next ones: ~40 ms a
        // partition at 2^26, where the transforms take ~150. The workspace's a | b | c and
        // other events are the next partition's once the transforms have ended. A witness whose
        // read failed ends the batch only after that.
        const bool next_staged = has_arrived(q + 1);
        status staged = status::ok();
        if (next_staged) {
          staged = arrive_and_stage(q + 1);
          if (staged) staged = queue_copy(q + 1);
        }
        CUZK_CUDA_TRY(cudaStreamSynchronize(ws.ntt_stream()));
        lock.release();
        CUZK_TRY(staged);
        auto spans = read_device_spans(run, q);
        if (!spans) return spans.error();
        add_device_spans(t, *spans, run.on_device());
        if (!next_staged) CUZK_TRY(arrive_and_stage(q + 1));  // a late witness, waited for without the gate
        continue;
      }
      run.ntt_h_begin = lock.acquired();
      const status done = [&]() -> status {
        CUZK_TRY(transform(run, q));
        if (run.witness_after_h()) {
          // c is in b's place until the h kernel has read it.
          CUZK_CUDA_TRY(cudaStreamWaitEvent(ws.copy_stream(), ws.event(ev::ntt_end).get(), 0));
          CUZK_TRY(queue_copy(q));
        }
        return msm_h(run);
      }();
      lock.release();
      run.ntt_h_end = lock.released();
      return done;
    }
    return status::ok();
  }();
  // After a failure the copies may still be reading the pinned buffers: let them end before the
  // workspace serves another call or gives them back. (After success they ended before the last
  // NTTs began, except, with two of a, b, c on the device and synthesis on the host, c's, between
  // them, and in a batch of one the witness's, beside H.)
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
  auto spans = read_device_spans(run, parts - 1);
  if (!spans) return spans.error();
  add_device_spans(t, *spans, run.on_device());
  place_last_hold(run, *spans);
  return status::ok();
}

// The proofs of every partition of `witnesses` with r[q], s[q], in `ws` (checked against the key
// by the caller), timed into `t`.
template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_in(gpu_key_state<Curve>& st, gpu_workspace<Curve>& ws,
                                                    const proving_key_view<Curve>& pk,
                                                    const batch_witness_source<Curve>& witnesses,
                                                    std::span<const typename Curve::fr> r,
                                                    std::span<const typename Curve::fr> s, thread_pool& pool,
                                                    phase_timings& t) {
  shared_turn turn(*st.kernel_lock);
  gpu_proof_run<Curve> run{st, ws, turn, pk, pool, t, witnesses.count};
  CUZK_TRY(prove_partitions(run, witnesses));
  phase_timer timer(&t.assembly);
  std::vector<formats::proof<Curve>> proofs;
  proofs.reserve(run.parts);
  for (std::size_t q = 0; q < run.parts; ++q) proofs.push_back(assemble(pk, run.sums[q], r[q], s[q]));
  return proofs;
}

}  // namespace detail

template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings, const gpu_context<Curve>& where) {
  using repr = typename Curve::fr::repr;
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
  // A batch of one.
  batch_witness_source<Curve> one;
  one.count = 1;
  one.wait = [witness](std::size_t) -> result<std::span<const repr>> { return witness; };
  auto proofs = detail::prove_in<Curve>(st, *ws, pk, one, std::span(&r, 1), std::span(&s, 1), *where.pool, t);
  whole.stop();
  if (!proofs) return proofs.error();
  return std::move(proofs->front());
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
  template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&, std::span<const C::fr::repr>, \
                                                   const C::fr&, const C::fr&, phase_timings*,          \
                                                   const gpu_context<C>&);                              \
  template result<formats::proof<C>> prove<C>(const proving_key_view<C>&, std::span<const C::fr::repr>,   \
                                              phase_timings*, const gpu_context<C>&);                   \
  }  // namespace cuzk::groth16
