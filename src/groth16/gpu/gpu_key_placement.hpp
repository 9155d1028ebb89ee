// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a GPU proving key goes on its device: the options a key is made with (gpu_key_options),
// what such a key takes on the device (estimate_device_bytes), and the choices that fit a key in a
// device budget (fit_to_budget and the steps it is made of). Host code only: nothing here
// allocates; gpu_proving_key.hpp makes the key the options describe.
//
// Why a file of its own: placement is arithmetic over a key's shape (how many points each vector
// has, the domain, the matrices' entries), asked before any key exists, by the daemon's device tier
// (engine/backends/gpu_device_key.cpp), by `cuzk bench prove --gpu-budget-mib`, and by create()
// itself with a budget. The proof's steps (gpu_prover_impl.hpp) need none of it.
//
// The estimate is exact for the key: with key_workspace::none it is the bytes the key's counting
// arena hands out (gpu_proving_key::resident_bytes; gpu_prover_test.cpp checks the two are equal
// for every placement). With key_workspace::own it adds one proof's workspace, what a budget must
// hold beside the key for its prover.
//
// Streamed vectors. A key larger than the device keeps some point vectors in host memory and
// streams them to the device in every proof (gpu/msm.hpp, 'Streamed points'): which ones is
// gpu_key_options::streamed, or, given a device budget, choose_streamed() picks the fewest that
// make the key fit, in the order streaming costs least (streaming_order).
//
// Thread: any; the functions that count MSM arenas (key_msm_scratch and those that call it) need
// the device current (CUB asks it for its scratch sizes).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/ntt.hpp"
#include "groth16/gpu/gpu_workspace.hpp"
#include "groth16/gpu/kernel_gate.hpp"
#include "groth16/key_vectors.hpp"
#include "groth16/proving_key.hpp"
#include "groth16/synthesis_place.hpp"

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
  // How many of a, b, c a proof keeps on the device at once (gpu_workspace.hpp, abc_on_device).
  // With a budget, create() keeps three wherever the key fits with them at some range, and takes
  // two only where it fits no other way, or, with synthesis on the device, where two lets B2 run
  // beside A, B1 and C (fit_to_budget): with synthesis on the host two costs the witness MSMs'
  // overlap with the transforms (the witness waits for b's place), on the device a second
  // synthesis kernel that makes c once a b is made.
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
// resident points, the NTT plan, the matrices with synthesis on the device (exactly what the key's
// counting arena hands out), and with key_workspace::own one proof's workspace (the MSM arenas
// among it) and, with options.batch_partitions > 1, what a batch of that many adds.
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
// at which it fits; where none fits, the same again with two of a, b, c on the device
// (abc_on_device::two). With synthesis on the device two is also taken where three fits only with
// B2 in turn and two places B2 beside giving up nothing else (no vector streamed, no table, no
// range smaller): there two costs one synthesis kernel, and B2 in turn its whole G2 MSM on the
// witness side's path; the result has no budget left in it. What is
// counted follows options.workspace: a caller that lends its own workspace asks with
// key_workspace::own to count it, then makes the key with none. The error of the smallest range
// where none fits.
template <class Curve>
result<gpu_key_options> fit_to_budget(const proving_key_view<Curve>& pk, gpu_key_options options,
                                      std::size_t budget);

#define CUZK_GPU_KEY_PLACEMENT_EXTERN(C)                                                                       \
  extern template msm_scratch_sizes key_msm_scratch<C>(const proving_key_view<C>&, key_vector_set, std::size_t, \
                                                       unsigned, bool);                                        \
  extern template std::size_t estimate_device_bytes<C>(const proving_key_view<C>&, const gpu_key_options&,     \
                                                       key_vector_set);                                        \
  extern template gpu::ntt_memory choose_twiddles<C>(const proving_key_view<C>&, const gpu_key_options&,       \
                                                     std::size_t);                                             \
  extern template result<key_vector_set> choose_streamed<C>(const proving_key_view<C>&, const gpu_key_options&, \
                                                            std::size_t);                                      \
  extern template result<gpu_key_options> place_at_range<C>(const proving_key_view<C>&, gpu_key_options,       \
                                                            std::size_t);                                      \
  extern template result<gpu_key_options> fit_to_budget<C>(const proving_key_view<C>&, gpu_key_options,        \
                                                           std::size_t)
CUZK_GPU_KEY_PLACEMENT_EXTERN(bn254);
CUZK_GPU_KEY_PLACEMENT_EXTERN(bls12_381);
#undef CUZK_GPU_KEY_PLACEMENT_EXTERN

}  // namespace cuzk::groth16
