// SPDX-License-Identifier: MIT OR Apache-2.0
// A Groth16 proving key resident on one GPU, made once and reused for every proof.
//
// What lives on the device: the zkey's A, B1, C and H points, each behind its own G1 MSM object,
// and its B2 points behind a G2 MSM object (msm.hpp), the NTT plan of the domain (the coset powers
// and the twiddles of its two transforms: 6n elements) and, with synthesis on the device (the
// default, abc_device.hpp says why), the constraint matrices A and B. A proof's own buffers
// (a | b | c, the witness on both sides, the MSMs' scratch, and with synthesis on the host its
// pinned or pageable a | b | c) live in a gpu_workspace (gpu_workspace.hpp), owned by whoever
// proves; a key made with key_workspace::own carries one for callers that have none (the CLI, the
// benches, tests), and then serves one such proof at a time. synthesis_place::host_pageable
// synthesizes into ordinary pageable memory: it exists to measure what pinned memory buys, not for
// production.
//
// The kernel lock. Two proofs' kernels on one device must not interleave (each would slow the
// other, and the MSM objects' streams and events are the key's): the lock that orders them is the
// key's, or one shared by every key of a device (gpu_key_options::kernel_lock), which is how a
// daemon lets its workers take turns on a GPU. The prover (gpu_prover.hpp) holds it only while it
// launches and waits for kernels (synthesis on the device among them), never while it copies the
// witness or a, b, c to the device (except, with two of a, b, c on the device, c and the witness,
// which wait for room), synthesizes on the host or assembles; the sides of one proof
// (A, B1, C; B2, beside them or in their turn; and synthesis, NTTs, H) hold it together.
//
// Memory: with P the G1 affine size (64 bytes on BN254, 96 on BLS12-381), about P (3 nVars + n) +
// 2P nVars for the points (G2 affine points are twice as large), 192 n for the NTT plan
// (ntt_plan::device_bytes) and, with synthesis on the device, the matrices: 6 bytes an entry and a
// table of its distinct values where they are few, 36 otherwise, plus 4 a row (8 beyond 2^32
// entries; gpu/abc_device.hpp). The MSMs' scratch is the workspace's: up to three arenas per
// worker, whatever the number of keys (msm_scratch(): the largest G1 witness MSM's, B2's where it
// runs beside them, and H's; a few GiB each at 2^24 resident, O(chunk) when streamed). A key in a
// budget too small for the plan's 192 n keeps its twiddles compact (tens of MiB; choose_twiddles).
// A key_workspace::own adds its workspace (96 n of device a | b | c, 32 nVars of device witness,
// the arenas; with two of a, b, c on the device 64 n for a and b's place, and with synthesis on
// the host 32 n + 32 max(n, nVars) and no witness of its own, the witness then in b's place),
// allocated by create(). Every buffer the key keeps comes from its
// counting arena (gpu/counting_arena.hpp), so resident_bytes() is their sum, whatever else
// allocates on the device meanwhile, and equals estimate_device_bytes() with key_workspace::none.
//
// Streamed vectors. A key larger than the device keeps some point vectors in host memory and
// streams them to the device in every proof (gpu/msm.hpp, 'Streamed points'): which ones is
// gpu_key_options::streamed, or what a device budget makes choose_streamed() add
// (gpu_key_placement.hpp, where the options and the choices that fit a key live). A streamed vector
// crosses from pinned memory: where the view's points are pinned already (the bench's random key)
// they stream from there, and must stay unchanged while the key lives; otherwise (a mapped zkey,
// a key in ordinary memory) create() copies them into page-locked memory of its own
// (gpu/locked_host_memory.hpp), on threads of their own. Page-locking the view's memory in place
// (cudaHostRegister of the mapping) is not used: a copy whose
// source starts in pageable memory and runs into registered pages fails (cudaErrorInvalidValue,
// seen on the H200 with the vectors of one mapped zkey), and the vectors of a zkey share pages at
// their ends. If the pinned copy cannot be allocated, the vector streams from pageable memory at a
// fraction of the rate (pageable_streamed() says so).
//
// Thread: create and destroy on any thread; the key makes its device current itself.
#pragma once

#include <cuda_runtime_api.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/abc_device.hpp"
#include "gpu/counting_arena.hpp"
#include "gpu/msm.hpp"
#include "gpu/ntt.hpp"
#include "gpu/locked_host_memory.hpp"
#include "groth16/gpu/gpu_key_placement.hpp"
#include "groth16/gpu/gpu_workspace.hpp"
#include "groth16/gpu/kernel_gate.hpp"
#include "groth16/key_vectors.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

namespace detail {

// Everything a gpu_proving_key owns, behind one pointer so the key can move while its locks and
// buffers stay put.
template <class Curve>
struct gpu_key_state {
  using fr = typename Curve::fr;

  int device = 0;
  synthesis_place synthesis = synthesis_place::device;
  std::size_t n_vars = 0, n_public = 0, domain_size = 0;
  // Where every device buffer the key keeps comes from (its points, plan and matrices), and so
  // their sum: resident_bytes().
  gpu::counting_arena arena;
  std::shared_ptr<kernel_gate> kernel_lock;  // held while this key's kernels run
  // Pinned copies of streamed vectors that were not pinned where the view has them; declared
  // before the MSM objects that read them, so they go after them.
  gpu::locked_buffer<g1_affine<Curve>> pinned_a, pinned_b1, pinned_c, pinned_h;
  gpu::locked_buffer<g2_affine<Curve>> pinned_b2;
  gpu::msm_g1<Curve> msm_a, msm_b1, msm_c, msm_h;
  gpu::msm_g2<Curve> msm_b2;
  gpu::ntt_plan<fr> plan;
  std::optional<gpu::device_constraint_matrices<fr>> matrices;  // synthesis_place::device
  std::mutex own_mutex;                                     // one proof at a time on `own`
  std::unique_ptr<gpu_workspace<Curve>> own;                // key_workspace::own only
  key_vector_set streamed;                                  // vectors streamed from host memory
  bool pageable_streamed = false;                           // some stream from pageable memory
  msm_scratch_sizes scratch;                                // a proof's MSM arenas (key_msm_scratch)
  std::size_t chunk_points = 0;                             // points per streamed range
  bool b2_beside = true;                                    // gpu_key_options::b2_beside, as chosen
  abc_on_device abc = abc_on_device::three;                 // gpu_key_options::abc, as chosen

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
  // matrices) to `device` and makes the NTT plan; with key_workspace::own also a workspace for
  // pk's sizes. Errors: an inconsistent key (pk.validate()), a CUDA failure (out of memory, no
  // device).
  static result<gpu_proving_key> create(const proving_key_view<Curve>& pk, int device = 0,
                                        gpu_key_options options = {});

  int device() const noexcept { return state_->device; }
  synthesis_place synthesis() const noexcept { return state_->synthesis; }
  std::size_t n_vars() const noexcept { return state_->n_vars; }
  std::size_t n_public() const noexcept { return state_->n_public; }
  std::size_t domain_size() const noexcept { return state_->domain_size; }
  // Device bytes the key keeps: what its counting arena handed out (resident points, the NTT
  // plan, the matrices with synthesis on the device), estimate_device_bytes() of its placement
  // with key_workspace::none to the byte. A key_workspace::own's workspace is not in it (its
  // device_bytes() are).
  std::size_t resident_bytes() const noexcept { return state_->arena.bytes(); }
  // The MSM arenas a workspace needs to prove with this key (gpu_workspace::reserve).
  msm_scratch_sizes msm_scratch() const noexcept { return state_->scratch; }
  // The vectors streamed from host memory in every proof, and whether any of them streams from
  // pageable memory because page-locking it failed.
  key_vector_set streamed() const noexcept { return state_->streamed; }
  bool pageable_streamed() const noexcept { return state_->pageable_streamed; }
  // Pinned host memory the key holds: the copies of streamed vectors that were not pinned where
  // the view has them (0 when every vector is resident, or streams from the view's own pinned
  // memory).
  std::size_t pinned_host_bytes() const noexcept {
    const auto& s = *state_;
    return s.pinned_a.bytes() + s.pinned_b1.bytes() + s.pinned_b2.bytes() + s.pinned_c.bytes() + s.pinned_h.bytes();
  }
  // How the NTT plan keeps its twiddles (the option's, or what a budget chose).
  gpu::ntt_memory twiddles() const noexcept { return state_->plan.memory(); }
  // Points per range of the streamed vectors (the option's, or what a budget chose).
  std::size_t stream_chunk_points() const noexcept { return state_->chunk_points; }
  // Whether B2 runs beside A, B1 and C (the option's, or what a budget chose).
  bool b2_beside() const noexcept { return state_->b2_beside; }
  // How many of a, b, c a proof keeps on the device at once (the option's, or what a budget
  // chose): what a workspace is reserved with (gpu_workspace::reserve).
  abc_on_device abc() const noexcept { return state_->abc; }
  // The lock the prover holds around this key's kernels.
  kernel_gate& kernel_lock() const noexcept { return *state_->kernel_lock; }

  // For the prover's steps: the state (MSM objects, plan, matrices, the key's own workspace).
  detail::gpu_key_state<Curve>& state() const noexcept { return *state_; }

 private:
  std::unique_ptr<detail::gpu_key_state<Curve>> state_;
};

extern template class gpu_proving_key<bn254>;
extern template class gpu_proving_key<bls12_381>;

}  // namespace cuzk::groth16
