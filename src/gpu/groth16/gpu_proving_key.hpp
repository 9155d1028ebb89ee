// A Groth16 proving key resident on one GPU, made once and reused for every proof.
//
// What lives on the device: the zkey's A, B1, C and H points, each behind its own G1 MSM object,
// and its B2 points behind a G2 MSM object (msm.hpp: the points plus that MSM's scratch, which
// grows on the first proof and is then reused), the NTT plan of the domain (twiddles, 2n
// elements), the a | b | c work vectors (3n elements; h overwrites a) and, with synthesis on the
// device (the default, abc_device.hpp says why), the constraint matrices A and B and a copy of
// the witness. What lives in pinned host memory: the witness and the H scalars' staging area,
// and with synthesis on the host its output a, b, c, so every copy runs at the line rate
// (pinned_buffer.hpp says why these are allocated here, once, and not per proof).
// synthesis_place::host_pageable synthesizes into ordinary pageable memory instead: it exists to
// measure what pinned memory buys, not for production.
//
// The per-proof buffers and the MSM objects' scratch are mutable state: a key serves one proof
// at a time (gpu_prove takes the key's mutex), which is also what fills one GPU. Several keys,
// or one key per device, serve proofs in parallel.
//
// Memory: with P the G1 affine size (64 bytes on BN254, 96 on BLS12-381), about
// P (3 nVars + n) + 2P nVars for the points (G2 affine points are twice as large), 96 n for
// a | b | c, 64 n for the twiddles, 36 bytes per matrix entry plus 8 per row and 32 nVars for
// the witness with synthesis on the device, and the scratch of each of the five MSMs (sort keys, buckets,
// the affine rounds' ping-pong point buffers, which for G2 are of G2 points). Each MSM object
// keeps its own scratch, sized for its largest run: a few hundred MiB each at 2^20, up to
// several GiB each at 2^24, so at the largest domains the five together bound how many keys fit
// on one device. resident_bytes() reports what cudaMemGetInfo saw the creation take.
//
// Thread: create and destroy on any thread; the key makes its device current itself.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/cuda_stream.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/groth16/abc_device.hpp"
#include "gpu/msm.hpp"
#include "gpu/ntt.hpp"
#include "gpu/pinned_buffer.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::gpu {

// Where a = A w, b = B w and c = a∘b are computed for each proof.
enum class synthesis_place {
  device,         // by the GPU from resident matrices (abc_device.hpp); only the witness is copied
  host_pinned,    // by CPU threads into pinned buffers, then copied at the line rate
  host_pageable,  // by CPU threads into pageable memory: the slow copy, kept to be measured
};

constexpr const char* synthesis_place_name(synthesis_place p) noexcept {
  switch (p) {
    case synthesis_place::device:
      return "device";
    case synthesis_place::host_pinned:
      return "host-pinned";
    case synthesis_place::host_pageable:
      return "host-pageable";
  }
  return "?";
}

struct gpu_key_options {
  synthesis_place synthesis = synthesis_place::device;
};

namespace detail {

// Everything a gpu_proving_key owns, behind one pointer so the key can move while its mutex and
// buffers stay put.
template <class Curve>
struct gpu_key_state {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;

  // Events: the a, b, c copies' ends (the NTTs wait on them), and the bounds of the timed spans.
  // The witness copy (w_begin, w_end: the MSMs and the device synthesis wait on it); with
  // synthesis on the host, the a, b, c copies' ends (the NTTs wait on them); with synthesis on the
  // device, synth_end ends the synthesis kernel; and the bounds of the timed spans.
  enum event_id : unsigned {
    w_begin,
    w_end,
    copy_begin,
    copy_a,
    copy_b,
    copy_c,
    synth_end,
    ntt_begin,
    ntt_end,
    n_events
  };

  int device = 0;
  synthesis_place synthesis = synthesis_place::device;
  std::size_t n_vars = 0, n_public = 0, domain_size = 0;
  std::size_t resident_bytes = 0;
  std::mutex mutex;  // one proof at a time
  msm_g1<Curve> msm_a, msm_b1, msm_c, msm_h;
  msm_g2<Curve> msm_b2;
  ntt_plan<fr> plan;
  device_buffer<fr> abc;  // a | b | c, domain_size each
  // synthesis_place::device: the matrices (they read `w`).
  std::optional<device_constraint_matrices<fr>> matrices;
  device_buffer<repr> w;         // the witness on the device: A, B1, B2, C (and device synthesis) read it
  pinned_buffer<fr> host_abc;    // synthesis_place::host_pinned writes here
  std::vector<fr> pageable_abc;  // synthesis_place::host_pageable writes here
  pinned_buffer<repr> host_w;    // the witness, staged for its one copy to the device
  cuda_stream msm_stream, copy_stream, ntt_stream;
  cuda_event events[n_events];

  gpu_key_state() = default;
  gpu_key_state(const gpu_key_state&) = delete;
  gpu_key_state& operator=(const gpu_key_state&) = delete;
  // The members free device memory: make their device current first.
  ~gpu_key_state() { (void)cudaSetDevice(device); }
};

}  // namespace detail

template <class Curve>
class gpu_proving_key {
 public:
  // Uploads pk's A, B1, B2, C and H points (and, with synthesis on the device, its constraint
  // matrices) to `device` and allocates the per-proof buffers for pk's sizes.
  // Errors: an inconsistent key (pk.validate()), a CUDA failure (out of memory, no device).
  static result<gpu_proving_key> create(const groth16::proving_key_view<Curve>& pk, int device = 0,
                                        gpu_key_options options = {});

  int device() const noexcept { return state_->device; }
  synthesis_place synthesis() const noexcept { return state_->synthesis; }
  std::size_t n_vars() const noexcept { return state_->n_vars; }
  std::size_t n_public() const noexcept { return state_->n_public; }
  std::size_t domain_size() const noexcept { return state_->domain_size; }
  // Device memory the key took when it was made (cudaMemGetInfo before and after), in bytes; the
  // MSM scratch that the first proof adds is not in it.
  std::size_t resident_bytes() const noexcept { return state_->resident_bytes; }

  // For gpu_prove(): the state, whose mutex the prover holds while it uses the rest.
  detail::gpu_key_state<Curve>& state() const noexcept { return *state_; }

 private:
  std::unique_ptr<detail::gpu_key_state<Curve>> state_;
};

extern template class gpu_proving_key<bn254>;
extern template class gpu_proving_key<bls12_381>;

}  // namespace cuzk::gpu
