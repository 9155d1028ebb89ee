// SPDX-License-Identifier: MIT OR Apache-2.0
// The per-proof buffers of the GPU prover, owned by whoever runs proofs one after another (a
// daemon worker, or a gpu_proving_key that proves on its own), apart from the resident key.
//
// Why apart: a key's points and MSM objects are shared by every worker that proves with it, but
// a proof's a | b | c, witness and H scalars are private to that proof. With the buffers in the
// worker, two workers on one device prove with one key at once: one synthesizes into its pinned
// a | b | c and copies them to its own device vectors while the other's kernels run (the device's
// kernel lock, gpu_prover.hpp, covers only the kernels).
//
// What it holds, for a domain of n and nVars signals: the witness in pinned memory and on the
// device (nVars each; copied once, the MSMs and the synthesis kernel read it there), the device
// a | b | c (3n; h overwrites a, and the H MSM reads it there; or, for a key that holds two of
// them at a time, abc_on_device::two, a | b with c in b's place, and with synthesis on the host
// then the witness too), the MSMs'
// scratch (up to three arenas: one for A, B1 and C, which run in turn on the MSM thread, one for B2, which runs beside
// them on a thread and stream of its own where the key gave it an arena, and in their turn
// otherwise, and one for H, which runs beside them all; sized by the key, msm_scratch_sizes),
// four streams (copies, NTTs, the G1 witness MSMs, B2) and the events that time them; and by
// where synthesis runs (synthesis_place, the key's
// choice): pinned a | b | c (3n) for synthesis on the host, or pageable a | b | c to measure the
// difference. Pinned memory costs ~0.8 s per GiB to
// allocate (pinned_buffer.hpp), so reserve() allocates only when a proof needs more than the
// buffers hold (the first proof of a larger circuit, or of a key synthesizing elsewhere) and never
// shrinks them; allocations() counts the times it did, which tests use to show the hot path
// allocates nothing. A daemon lends its pool's pinned buffers instead (lend_host(), a
// host_lease): the workspace then owns no host memory for what is lent, and the pool's budget
// counts it.
//
// Thread: one proof at a time; the device must be current for create() and reserve().
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/cuda_stream.hpp"
#include "gpu/device_arena.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/pinned_buffer.hpp"
#include "groth16/gpu/host_lease.hpp"
#include "groth16/synthesis_place.hpp"

namespace cuzk::groth16 {

// Device bytes of a proof's MSM arenas, as its key lays them out (gpu_proving_key's
// msm_scratch()): the largest of A, B1 and C (and B2's where it runs in their turn), B2's where it
// runs beside them (0: it does not), and H's.
struct msm_scratch_sizes {
  std::size_t witness_side = 0;
  std::size_t b2_side = 0;
  std::size_t h_side = 0;
  std::size_t total() const noexcept { return witness_side + b2_side + h_side; }
  bool b2_beside() const noexcept { return b2_side != 0; }
};

// How many of a, b and c a proof keeps on the device at once (the key's choice,
// gpu_key_options::abc). Three, with the witness beside them: the witness MSMs start as soon as it
// is copied, beside synthesis and the transforms. Two, for a device that cannot hold 3n + nVars
// elements (a 2^27 domain is 4 GiB per vector: 16 GiB that way, 8 GiB this one): a and b are
// transformed and multiplied into a, then c, made in b's place, is transformed and h made over a.
// With synthesis on the host c is copied there, and only then does the witness take b's place (it
// needs max(n, nVars)), so the witness MSMs wait for the transforms; with synthesis on the device
// a second kernel makes c there, and the witness keeps its own buffer (the synthesis reads it
// first). gpu_prover_impl.hpp, 'transform'.
enum class abc_on_device { three, two };

inline const char* abc_on_device_name(abc_on_device a) noexcept {
  return a == abc_on_device::two ? "two" : "three";
}

template <class Curve>
class gpu_workspace {
 public:
  using fr = typename Curve::fr;
  using repr = typename fr::repr;

  // Events: the witness copy (w_begin, w_end: the MSMs and the device synthesis wait on it; a
  // batch's odd partitions take w_begin_odd and w_end_odd, since partition q + 1's copy is queued
  // while q transforms, before q's span is read); with
  // synthesis on the host, the a, b, c copies' ends (the NTTs wait on them), and with two of them
  // on the device, the start of c's copy (copy_c_begin) and the product a b it waits for
  // (ab_made); with synthesis on the device, synth_begin and synth_end bound the synthesis kernel;
  // and the bounds of the timed spans.
  enum event_id : unsigned {
    w_begin,
    w_end,
    w_begin_odd,
    w_end_odd,
    copy_begin,
    copy_a,  // copy_a, copy_b, copy_c in this order: the copies index them from copy_a
    copy_b,
    copy_c,
    ab_made,
    copy_c_begin,
    synth_begin,
    synth_end,
    ntt_begin,
    ntt_end,
    n_events
  };

  gpu_workspace() = default;
  gpu_workspace(gpu_workspace&&) noexcept = default;
  gpu_workspace& operator=(gpu_workspace&&) noexcept = default;
  gpu_workspace(const gpu_workspace&) = delete;
  gpu_workspace& operator=(const gpu_workspace&) = delete;
  // The members free device memory with their device current; the caller's current device is
  // restored after (the members are destroyed between the two), so that whoever frees a workspace
  // (a daemon's evictor, on any thread) need not know which device it was on.
  ~gpu_workspace() {
    if (created_) {
      (void)cudaGetDevice(&restore_.device);
      (void)cudaSetDevice(device_);
    }
  }

  // Streams and events on `device`; no buffers yet (reserve() sizes them).
  static result<gpu_workspace> create(int device) {
    gpu_workspace w;
    CUZK_CUDA_TRY(cudaSetDevice(device));
    w.device_ = device;
    w.created_ = true;
    for (auto* s : {&w.copy_stream_, &w.ntt_stream_}) {
      auto made = gpu::cuda_stream::create();
      if (!made) return made.error();
      *s = std::move(made).value();
    }
    // The witness MSMs (B2's stream too) first wherever they share the SMs with the transforms and H: streamed, they
    // wait on the copy engine, and each range's additions that start at once let the next range's
    // copy start, so the copies run beside H's compute instead of after it (docs/gpu/msm.md, 'One
    // scratch for a proof').
    auto high = gpu::cuda_stream::highest_priority();
    if (!high) return high.error();
    for (auto* s : {&w.msm_stream_, &w.b2_stream_}) {
      auto made = gpu::cuda_stream::create(*high);
      if (!made) return made.error();
      *s = std::move(made).value();
    }
    for (auto& ev : w.events_) {
      auto made = gpu::cuda_event::create();
      if (!made) return made.error();
      ev = std::move(made).value();
    }
    return result<gpu_workspace>(std::move(w));
  }

  // Buffers for a proof with `n_vars` signals over a domain of `domain_size`, synthesizing at
  // `place`, with `abc` of a, b, c on the device at once and MSM arenas of `scratch`; allocates
  // only what is larger than before. A buffer that grows is freed before its
  // larger replacement is allocated, so the device never holds both (what device_bytes_after()
  // says is the most it holds); on an error that buffer stays empty until the next reserve().
  status reserve(std::size_t n_vars, std::size_t domain_size, synthesis_place place, abc_on_device abc,
                 msm_scratch_sizes scratch) {
    CUZK_CUDA_TRY(cudaSetDevice(device_));
    if (lent_w_ != nullptr && lent_w_count_ < n_vars)
      return status(errc::invalid_argument, "gpu workspace: the lent witness buffer holds " +
                                                std::to_string(lent_w_count_) + " values, expected nVars = " +
                                                std::to_string(n_vars));
    if (place == synthesis_place::host_pinned && lent_abc_ != nullptr && lent_abc_count_ < 3 * domain_size)
      return status(errc::invalid_argument, "gpu workspace: the lent a | b | c buffer holds " +
                                                std::to_string(lent_abc_count_) + " values, expected 3n = " +
                                                std::to_string(3 * domain_size));
    bool grew = false;
    auto grow = [&grew](auto& buf, std::size_t want) -> status {
      using B = std::remove_reference_t<decltype(buf)>;
      if (buf.size() >= want) return status::ok();
      buf = B{};
      grew = true;
      auto b = B::create(want);
      if (!b) return b.error();
      buf = std::move(b).value();
      return status::ok();
    };
    if (lent_w_ == nullptr) CUZK_TRY(grow(host_w_, n_vars));
    // With two on the device and synthesis on the host the witness lives in b's place, which must
    // hold it (repr and fr are the same size: a canonical integer and a Montgomery element share a
    // layout). Synthesis on the device reads the witness before a and b exist: its own buffer.
    static_assert(sizeof(repr) == sizeof(fr));
    if (witness_of_its_own(place, abc))
      CUZK_TRY(grow(w_, n_vars));
    else
      w_ = {};  // a buffer of an earlier key's: b's place holds the witness now
    witness_in_b_ = !witness_of_its_own(place, abc);
    CUZK_TRY(grow(abc_, abc_elements(n_vars, domain_size, place, abc)));
    domain_size_ = domain_size;
    const std::size_t arena_allocations = arena_allocation_count();
    CUZK_TRY(msm_scratch_[0].reserve(scratch.witness_side));
    CUZK_TRY(msm_scratch_[1].reserve(scratch.h_side));
    CUZK_TRY(msm_scratch_[2].reserve(scratch.b2_side));
    if (arena_allocation_count() != arena_allocations) grew = true;
    switch (place) {
      case synthesis_place::device:
        break;
      case synthesis_place::host_pinned:
        if (lent_abc_ == nullptr) CUZK_TRY(grow(host_abc_, 3 * domain_size));
        break;
      case synthesis_place::host_pageable:
        if (pageable_abc_.size() < 3 * domain_size) {
          pageable_abc_.resize(3 * domain_size);
          grew = true;
        }
        break;
    }
    if (grew) ++allocations_;
    return status::ok();
  }

  // Host buffers for the next call in place of the workspace's own (host_lease.hpp): the witness
  // staging and, for synthesis on the host into pinned memory, a | b | c (empty: the workspace's
  // own). The workspace holds the lease until the device has read them and then ends it, giving
  // them back, once, on the proving thread (the prover calls give_back_host() when its copies have
  // ended: before it waits for another proof's kernels, or at its end; with two of a, b, c on the
  // device and synthesis on the host, whose c and witness are copied after the transforms, at its
  // end), or in unlend_host()
  // at the latest, which must come after the call returned. A lease lent before is ended first.
  void lend_host(std::unique_ptr<host_lease<Curve>> lease) {
    give_back_host();
    const std::span<repr> w = lease != nullptr ? lease->witness() : std::span<repr>();
    const std::span<fr> abc = lease != nullptr ? lease->abc() : std::span<fr>();
    lent_w_ = w.empty() ? nullptr : w.data();
    lent_w_count_ = w.size();
    lent_abc_ = abc.empty() ? nullptr : abc.data();
    lent_abc_count_ = abc.size();
    lease_ = std::move(lease);
  }
  // The lent buffers are no longer read: the lease ends now (once; no-op without one). The
  // workspace keeps their addresses until unlend_host(), for a lender whose lease gives nothing
  // back (a plain host_lease: the bench lends its witness once for every proof); a lender that
  // takes its buffers back lends them again for its next call.
  void give_back_host() { lease_.reset(); }
  bool has_lent_host() const noexcept { return lease_ != nullptr; }
  void unlend_host() { lend_host(nullptr); }

  int device() const noexcept { return device_; }
  // Bytes of pinned host memory and of device memory the buffers hold now.
  std::size_t pinned_bytes() const noexcept { return host_abc_.bytes() + host_w_.bytes(); }
  std::size_t device_bytes() const noexcept {
    return abc_.bytes() + w_.bytes() + msm_scratch_[0].capacity() + msm_scratch_[1].capacity() +
           msm_scratch_[2].capacity();
  }
  // Device bytes the buffers hold after reserve(n_vars, domain_size, place, abc, scratch): what a
  // caller reserves in a device memory budget before it calls reserve().
  std::size_t device_bytes_after(std::size_t n_vars, std::size_t domain_size, synthesis_place place,
                                 abc_on_device abc, msm_scratch_sizes scratch) const noexcept {
    const std::size_t w = witness_of_its_own(place, abc) ? std::max(w_.size(), n_vars) : 0;
    return std::max(abc_.size(), abc_elements(n_vars, domain_size, place, abc)) * sizeof(fr) + w * sizeof(repr) +
           std::max(msm_scratch_[0].capacity(), scratch.witness_side) +
           std::max(msm_scratch_[1].capacity(), scratch.h_side) +
           std::max(msm_scratch_[2].capacity(), scratch.b2_side);
  }
  // How many reserve() calls allocated (an MSM that finds its arena too small grows it during a
  // proof; that is not counted here, and does not happen with the key's sizes).
  uint64_t allocations() const noexcept { return allocations_; }

  // For the GPU prover's steps (gpu_prover_impl.hpp).
  fr* host_abc() noexcept { return lent_abc_ != nullptr ? lent_abc_ : host_abc_.data(); }
  fr* pageable_abc() noexcept { return pageable_abc_.data(); }
  repr* host_w() noexcept { return lent_w_ != nullptr ? lent_w_ : host_w_.data(); }
  fr* abc() noexcept { return abc_.data(); }
  // The device witness: its own buffer, or with two of a, b, c on the device and synthesis on the
  // host b's place (which it takes once h is made).
  repr* w() noexcept {
    return witness_in_b_ ? reinterpret_cast<repr*>(abc_.data() + domain_size_) : w_.data();
  }
  // Whether the device witness has a buffer of its own: with three of a, b, c, or with synthesis on
  // the device (which reads it before a and b are made); otherwise it waits for b's place.
  static bool witness_of_its_own(synthesis_place place, abc_on_device abc) noexcept {
    return abc == abc_on_device::three || place == synthesis_place::device;
  }
  // Elements of the device a | b | c for a proof of that shape: 3n, or with two on the device n
  // for a (and h) and for b, then c, and with synthesis on the host then the witness too (the
  // larger of n and nVars).
  static std::size_t abc_elements(std::size_t n_vars, std::size_t domain_size, synthesis_place place,
                                  abc_on_device abc) noexcept {
    if (abc == abc_on_device::three) return 3 * domain_size;
    return domain_size + (witness_of_its_own(place, abc) ? domain_size : std::max(domain_size, n_vars));
  }
  // The arena of the A, B1 and C MSMs (and B2's in their turn), H's, and B2's beside them.
  gpu::device_arena& witness_msm_scratch() noexcept { return msm_scratch_[0]; }
  gpu::device_arena& h_msm_scratch() noexcept { return msm_scratch_[1]; }
  gpu::device_arena& b2_msm_scratch() noexcept { return msm_scratch_[2]; }
  cudaStream_t copy_stream() const noexcept { return copy_stream_.get(); }
  cudaStream_t ntt_stream() const noexcept { return ntt_stream_.get(); }
  cudaStream_t msm_stream() const noexcept { return msm_stream_.get(); }
  cudaStream_t b2_stream() const noexcept { return b2_stream_.get(); }
  const gpu::cuda_stream& ntt_stream_owner() const noexcept { return ntt_stream_; }
  gpu::cuda_event& event(event_id e) noexcept { return events_[e]; }

 private:
  std::size_t arena_allocation_count() const noexcept {
    return msm_scratch_[0].allocations() + msm_scratch_[1].allocations() + msm_scratch_[2].allocations();
  }

  // Declared first, so destroyed last: sets the device that was current before ~gpu_workspace back.
  struct restore_device {
    int device = -1;
    ~restore_device() {
      if (device >= 0) (void)cudaSetDevice(device);
    }
    restore_device() = default;
    restore_device(restore_device&&) noexcept {}  // a moved-to workspace restores nothing yet
    restore_device& operator=(restore_device&&) noexcept { return *this; }
  } restore_;
  int device_ = 0;
  bool created_ = false;
  uint64_t allocations_ = 0;
  gpu::pinned_buffer<fr> host_abc_;    // synthesis_place::host_pinned writes here
  std::vector<fr> pageable_abc_;  // synthesis_place::host_pageable writes here
  gpu::pinned_buffer<repr> host_w_;    // the witness, staged for its one copy to the device
  gpu::device_buffer<fr> abc_;         // a | b | c, domain_size each (abc_elements)
  gpu::device_buffer<repr> w_;  // the witness the MSMs (and the device synthesis) read; none where it is in b's place
  bool witness_in_b_ = false;                    // the last reserve()'s: w() is b's place
  std::size_t domain_size_ = 0;                  // the last reserve()'s
  gpu::device_arena msm_scratch_[3];   // the witness MSMs', H's and B2's (beside them) scratch
  repr* lent_w_ = nullptr;        // lend_host()'s, used instead of host_w_ / host_abc_
  std::size_t lent_w_count_ = 0;
  fr* lent_abc_ = nullptr;
  std::size_t lent_abc_count_ = 0;
  std::unique_ptr<host_lease<Curve>> lease_;  // the lender's hold on lent buffers, until given back
  gpu::cuda_stream copy_stream_, ntt_stream_, msm_stream_, b2_stream_;
  gpu::cuda_event events_[n_events];
};

}  // namespace cuzk::groth16
