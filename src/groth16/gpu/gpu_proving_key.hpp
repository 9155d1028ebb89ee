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
// (ntt_plan::device_bytes) and 36 bytes per matrix entry plus 8 per row with synthesis on the
// device. The MSMs' scratch is the workspace's: up to three arenas per worker, whatever the number
// of keys (msm_scratch(): the largest G1 witness MSM's, B2's where it runs beside them, and H's; a
// few GiB each at 2^24 resident, O(chunk) when streamed). A key in a budget too small for the plan's 192 n keeps its twiddles compact (tens of
// MiB; choose_twiddles). A key_workspace::own adds its workspace (96 n of device a | b | c, 32 nVars of device
// witness, the arenas; 32 n + 32 max(n, nVars) for a and b's place with two of a, b, c on the
// device, the witness then in b's place), allocated by create(). resident_bytes() reports what cudaMemGetInfo
// saw the creation take (other allocations on the device at the same moment would count too: a
// daemon serializes them, engine/backends/gpu_prover_backend.cpp).
//
// Streamed vectors. A key larger than the device keeps some point vectors in host memory and
// streams them to the device in every proof (gpu/msm.hpp, 'Streamed points'): which ones is
// gpu_key_options::streamed, or, given a device budget, choose_streamed() picks the fewest that
// make the key fit, in the order streaming costs least (streaming_order). A streamed vector
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
#include "gpu/msm.hpp"
#include "gpu/ntt.hpp"
#include "gpu/locked_host_memory.hpp"
#include "groth16/gpu/gpu_workspace.hpp"
#include "groth16/gpu/kernel_gate.hpp"
#include "groth16/key_vectors.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

// Whether a key carries a workspace of its own (proving with no workspace of the caller's needs it).
enum class key_workspace { own, none };

// The transforms of the key's NTT plan, the two compute_h runs per column (gpu_prover_impl.hpp):
// an inverse from natural order, then a forward on the odd coset from bit-reversed order.
inline constexpr gpu::ntt_tables prover_ntt_tables =
    gpu::ntt_tables::inverse_from_natural | gpu::ntt_tables::forward_from_bitrev;

// Device bytes of the NTT plan a key makes for a domain of `domain_size` with its twiddles kept as
// `twiddles` (ntt_plan::device_bytes of prover_ntt_tables), for a daemon's estimate of a key's
// size before it is made.
template <class Curve>
uint64_t gpu_ntt_plan_bytes(std::size_t domain_size, gpu::ntt_memory twiddles = gpu::ntt_memory::tables) {
  return gpu::ntt_plan<typename Curve::fr>::device_bytes(
      static_cast<unsigned>(std::countr_zero(uint64_t{domain_size})), prover_ntt_tables, twiddles);
}

struct gpu_key_options {
  gpu_key_options() = default;
  explicit gpu_key_options(synthesis_place place) : synthesis(place) {}

  synthesis_place synthesis = synthesis_place::device;
  // Orders the kernels of every key that shares it; null: a lock of the key's own.
  std::shared_ptr<kernel_gate> kernel_lock;
  key_workspace workspace = key_workspace::own;
  // Point vectors streamed from host memory in every proof instead of resident (see above).
  key_vector_set streamed;
  // With a budget, create() streams `streamed` plus what choose_streamed() adds to fit in it.
  std::optional<std::size_t> device_budget_bytes;
  // Points per streamed range (0: gpu::device_msm's default, or with a budget the largest of the
  // default, its halves down to min_budget_chunk_points, that fits).
  std::size_t stream_chunk_points = 0;
  // How the NTT plan keeps its twiddles; with a budget, create() makes them compact where the key
  // does not fit with tables (choose_twiddles).
  gpu::ntt_memory twiddles = gpu::ntt_memory::tables;
  // B2's G2 MSM beside A, B1 and C (its own thread, stream and arena) rather than in their turn:
  // its affine rounds wait on the host between rounds, and streamed, the G1 MSMs wait on the copy
  // engine, so each fills the other's gaps (docs/gpu/msm.md, 'B2 beside A, B1 and C'). The arena
  // costs device memory: with a budget, create() keeps B2 in turn where beside would stream a
  // vector more or compact the twiddles (place_at_range).
  bool b2_beside = true;
  // The partitions one batch proves (groth16/gpu/gpu_batch_prover.hpp): with more than one,
  // estimate_device_bytes (and so a budget's fit) counts the batch's witnesses, h vectors and
  // bucket sets too (batch_device_bytes), for a caller that proves batches of this size.
  unsigned batch_partitions = 1;
  // How many of a, b, c a proof keeps on the device at once (gpu_workspace.hpp, abc_on_device);
  // two needs synthesis on the host. With a budget, create() keeps three wherever the key fits
  // with them at some range, and takes two only where it fits no other way (fit_to_budget): two
  // costs the witness MSMs' overlap with the transforms.
  abc_on_device abc = abc_on_device::three;
};

// The smallest range a budget makes create() try: below it the per-range costs (a carry per
// bucket, the prep of each range) outweigh what the arena saves.
inline constexpr std::size_t min_budget_chunk_points = std::size_t{1} << 19;

// The order in which vectors are streamed when a key does not fit: the one whose copy hides best
// behind its own MSM first. H's scalars are always dense, so its MSM does the most work per point;
// B2's G2 additions cost ~3x a G1 one for 2x the bytes; A, B1 and C take the witness, mostly 0/1
// in the circuits this is for, whose MSMs are the shortest per point (docs/gpu/msm.md, 'Streamed
// points').
inline constexpr key_vector streaming_order[] = {key_vector::h, key_vector::b2, key_vector::c, key_vector::b1,
                                                 key_vector::a};

// The MSM arenas a proof with a key of pk's shape needs, with `streamed` vectors streamed in
// ranges of `chunk_points` (0: the default): the largest of A, B1 and C (and B2 unless
// `b2_beside`), B2's own with `b2_beside`, and H (gpu::device_msm::scratch_bytes; the device must
// be current). With `sets` > 1, those of a batch of that many partitions (gpu_batch_prover.hpp).
template <class Curve>
msm_scratch_sizes key_msm_scratch(const proving_key_view<Curve>& pk, key_vector_set streamed,
                                  std::size_t chunk_points, unsigned sets = 1, bool b2_beside = true);

// Device bytes a key of pk's shape made with `options` takes with `streamed` vectors streamed:
// resident points, the NTT plan, the matrices with synthesis on the device, and with
// key_workspace::own its workspace (the MSM arenas among it): an estimate for a budget.
template <class Curve>
std::size_t estimate_device_bytes(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                  key_vector_set streamed);

// How the key's NTT plan keeps its twiddles in `budget`: options.twiddles where the key fits with
// them and options.streamed, compact otherwise. Compact twiddles come before any streamed vector:
// at 2^26 they free 12 GiB for a few ms of multiplications in a third of the transforms' passes,
// where streaming H frees 6 GiB and slows its MSM by a third (docs/gpu/ntt.md, 'Compact plans').
template <class Curve>
gpu::ntt_memory choose_twiddles(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                std::size_t budget);

// `options.streamed` plus the vectors, in streaming_order, that make estimate_device_bytes fit in
// `budget`; an error when even all streamed does not fit.
template <class Curve>
result<key_vector_set> choose_streamed(const proving_key_view<Curve>& pk, const gpu_key_options& options,
                                       std::size_t budget);

// `options` placed in `budget` bytes at its own range (options.stream_chunk_points): the twiddles
// (choose_twiddles) and the streamed vectors (choose_streamed), and B2 beside A, B1 and C only
// where that keeps the same vectors resident and the same twiddles as B2 in turn does. Beside
// gains a few percent (docs/gpu/msm.md, 'B2 beside A, B1 and C'); streaming one more vector or
// compacting the twiddles for its arena would cost more. With options.b2_beside false, in turn.
// An error when even every vector streamed does not fit.
template <class Curve>
result<gpu_key_options> place_at_range(const proving_key_view<Curve>& pk, gpu_key_options options,
                                       std::size_t budget);

// `options` placed in `budget` bytes as create() places a key with options.device_budget_bytes:
// place_at_range at the largest range of streamed points, from the option's own (or the MSM's
// default and its halves down to min_budget_chunk_points where the option leaves it to the key),
// at which it fits; where none fits and synthesis is on the host, the same again with two of a,
// b, c on the device (abc_on_device::two); the result has no budget left in it. What is
// counted follows options.workspace: a caller that lends its own workspace asks with
// key_workspace::own to count it, then makes the key with none. The error of the smallest range
// where none fits.
template <class Curve>
result<gpu_key_options> fit_to_budget(const proving_key_view<Curve>& pk, gpu_key_options options,
                                      std::size_t budget);

namespace detail {

// Everything a gpu_proving_key owns, behind one pointer so the key can move while its locks and
// buffers stay put.
template <class Curve>
struct gpu_key_state {
  using fr = typename Curve::fr;

  int device = 0;
  synthesis_place synthesis = synthesis_place::device;
  std::size_t n_vars = 0, n_public = 0, domain_size = 0;
  std::size_t resident_bytes = 0;
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
  // Device memory the key took when it was made (cudaMemGetInfo before and after), in bytes.
  std::size_t resident_bytes() const noexcept { return state_->resident_bytes; }
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
