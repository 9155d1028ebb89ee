// SPDX-License-Identifier: MIT OR Apache-2.0
// Multi-scalar multiplication on the GPU, in G1 or G2: sum_i [s_i] P_i with the points either
// resident on the device (copied once, as a proving key's are: `create`) or streamed from host
// memory during every run (`create_streamed`: for keys larger than the device), and the scalars
// either copied from host memory each call (`run`) or already on the device (`run_device`, e.g.
// the witness copied once for several MSMs, or the H scalars the NTTs leave in device memory).
//
// Pippenger's bucket method with signed c-bit digits (msm.cuh says how each step runs and what
// it costs): digits -> radix sort by (window, bucket) -> bucket accumulation by rounds of pairwise
// affine additions with batched inversions (msm_accumulate.cuh) or by per-thread XYZZ runs
// (msm_xyzz.cuh), whichever measured faster -> per-window bucket reduction by
// running sums (msm_reduce.cuh) -> the windows combined on the host (a few hundred doublings,
// cheaper there than a one-thread kernel).
//
// Overlap: the XYZZ accumulation splits the points into ranges ("chunks") that run one after
// another into the same buckets. Chunk k + 1's scalars are copied (copy stream) and its digits
// sorted and planned (prep stream) while chunk k accumulates on the caller's stream, so of the
// scalar copy only the first chunk's share and of the sorting only the first chunk's stays on
// the critical path. The affine rounds need every window's global sort and run as one chunk, and
// scalars already on the device leave no copy to hide, so they run as one too.
//
// Streamed points. The points stay in the caller's host memory (pinned, for the full copy rate)
// and cross to the device in ranges of chunk_points() during each run, two ranges in flight: while
// range k accumulates on the caller's stream, range k + 1's points and scalars are copied (copy
// stream) and its digits sorted and planned (prep stream), into the other half of double-buffered
// scratch. So a run's device memory is O(chunk_points), whatever n is (scratch_bytes).
// G1 ranges add into the same XYZZ buckets, as the resident point ranges do; G2 ranges each run
// the affine rounds into affine buckets, which one more addition per bucket adds into XYZZ
// buckets, reduced once at the end. The result is the same as with resident points. With the
// scalars on the device, the first two ranges' points start across at once, without waiting for
// the work queued on the caller's stream (the H MSM's cross while the NTTs before it run): the
// stage slices they land in are the arena's, which no earlier run still reads, since every run
// ends only once all its work has (see Scratch).
//
// Scalars are canonical Fr integers (plain, not Montgomery: the .wtns layout), each < r; anything
// at or above 2^bits(r) is outside the contract. For the full copy rate they should live in
// pinned host memory (docs/BENCHMARKS.md, 'Reference points': 55 GB/s pinned against 8 GB/s pageable).
//
// Scratch. A run lays its buffers out in a device_arena (device_arena.hpp): the caller's, when it
// passes one (a proof's worker lends one arena to all the MSMs it runs in turn), otherwise the
// object's own. scratch_bytes() is that layout's size, computed by the same code. A run returns
// only once its work on every stream has ended, so the next run, of any object, may write the
// arena from its first operation.
//
// Thread: the thread that owns the device; the device must be current. One run at a time per
// object (it owns the two internal streams the run uses) and per arena.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/counting_arena.hpp"
#include "gpu/cuda_stream.hpp"
#include "gpu/device_arena.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/pinned_buffer.hpp"

namespace cuzk::gpu {

// How buckets are filled (msm.cuh): affine rounds with batched inversions (msm_accumulate.cuh)
// or per-thread XYZZ runs (msm_xyzz.cuh); `automatic` picks from the H200 measurements in
// docs/gpu/msm.md: XYZZ for G1 ('XYZZ work items sorted by length'), msm_g2_prefers_xyzz for G2.
enum class msm_accumulation { automatic, affine, xyzz };

// Where one run's time went (CUDA events; milliseconds), filled when a caller asks for it. With
// several chunks the phases overlap (copy, prep and accumulation run on three streams), so they
// do not add up to the total: copy, digits, sort and plan are summed over the chunks (a copy from
// when its slice is free to its end), accumulate runs from the first chunk's start to the last
// one's end.
struct msm_timing {
  float copy_ms = 0;        // scalars host -> device
  float digits_ms = 0;      // signed digits and sort keys
  float sort_ms = 0;        // radix sort by (window, bucket)
  float plan_ms = 0;        // bucket boundaries and counts (xyzz: and the work items' counts)
  float accumulate_ms = 0;  // all rounds of pairwise additions (their plans included)
  float reduce_ms = 0;      // sum_b b * S_b per window
  float total_ms = 0;       // first event to the result on the host
  unsigned window_bits = 0;
  unsigned windows = 0;
  unsigned rounds = 0;      // accumulation rounds (affine: summed over window groups; xyzz: merge rounds)
  unsigned chunks = 0;      // point ranges accumulated one after another
  bool affine = false;      // which accumulation ran
  bool streamed = false;    // the points crossed in the copies (copy_ms is their and the scalars' copy time)
};

// The window width c the cost model picks for n points and scalars of `bits` bits: it minimises
// windows * (n additions into buckets + 2^(c-1) bucket reduction steps), msm_window.cpp.
unsigned msm_window_bits(std::size_t n, unsigned bits);

// Whether G2's `automatic` accumulation is the XYZZ runs rather than the affine rounds, for
// `count` points, resident or streamed, over a base field of `fq_limbs` 64-bit words (BN254 4,
// BLS12-381 6), with `zero_one_share` of the scalars 0 or 1 (a sample's, msm/scalar_sample.hpp; 0
// where the caller did not look); msm_window.cpp, beside the measurements it follows.
bool msm_g2_prefers_xyzz(std::size_t count, bool streamed, unsigned fq_limbs, double zero_one_share);

// Group is a group description (curves/<curve>_groups.hpp): bn254_g1, bn254_g2, bls12_381_g1,
// bls12_381_g2.
template <class Group>
class device_msm {
 public:
  using affine = typename Group::affine;
  using point = typename Group::jacobian;
  using xyzz = typename Group::xyzz;
  using scalar_repr = typename Group::scalar::repr;

  // Copies `n` affine points (snarkjs encoding: infinity = (0, 0)) to the current device, into a
  // buffer from `points_from` where one is given (n affine points' bytes).
  static result<device_msm> create(const affine* host_points, std::size_t n, cudaStream_t stream = nullptr,
                                   counting_arena* points_from = nullptr);
  // Leaves the `n` points where they are (they must stay there, unchanged, for the object's
  // lifetime) and streams them in ranges of `chunk_points` (0: default_chunk_points) each run.
  static result<device_msm> create_streamed(const affine* host_points, std::size_t n,
                                            std::size_t chunk_points = 0);

  // A range of 2^22 points: ~0.4 GB of BLS12-381 G1 points, copied in ~8 ms at the pinned rate,
  // a quarter of what accumulating them takes (docs/gpu/msm.md, 'Streamed points').
  static constexpr std::size_t default_chunk_points = std::size_t{1} << 22;
  // The largest range: two slices of its digits (13 windows at 2^26) stay below 2^31.
  static constexpr std::size_t max_chunk_points = std::size_t{1} << 26;
  // Resident points too many to index all their digits with 32 bits run in ranges of this many,
  // as streamed ones do (msm.cuh).
  static constexpr std::size_t resident_range_points = std::size_t{1} << 24;
  // The widest window of resident points run in ranges (BN254 G1 at 2^28): its buckets and slot
  // tables do not shrink with the range.
  static constexpr unsigned resident_ranges_max_window_bits = 20;
  // Streamed G1 takes the window the cost model gives this many ranges' points, so that its whole
  // scratch is O(chunk_points): with the default range, c = 20 as for 2^24 points (as fast per
  // point as before), and a budget that asks for smaller ranges gets narrower windows too
  // (docs/gpu/msm.md, 'One scratch for a proof').
  static constexpr std::size_t streamed_window_ranges = 4;
  // The device bytes of the arena a run of `count` device-resident scalars (as a proof's) lays
  // out: streamed in ranges of `chunk_points`, or resident points with 0 (staged points, sort keys
  // and values, slot tables, work items, buckets, CUB's scratch), for a device budget. The points
  // themselves are not in it. The device must be current (CUB asks it for its scratch sizes).
  static std::size_t scratch_bytes(std::size_t count, std::size_t chunk_points,
                                    msm_accumulation a = msm_accumulation::automatic, unsigned sets = 1);

  std::size_t size() const noexcept { return n_; }
  bool streamed() const noexcept { return streamed_; }
  std::size_t chunk_points() const noexcept { return chunk_points_; }

  // The accumulation later runs use (automatic unless set; an explicit choice holds for G2 too).
  void set_accumulation(msm_accumulation a) noexcept { accumulation_ = a; }
  // Whether `a` resolves to the affine rounds for `count` points, resident or streamed, with
  // `zero_one_share` of the scalars 0 or 1 (msm_g2_prefers_xyzz).
  static bool uses_affine(std::size_t count, msm_accumulation a = msm_accumulation::automatic,
                          bool streamed = false, double zero_one_share = 0);

  // Point ranges for the XYZZ accumulation (0: by size for host scalars, one for device scalars;
  // msm.cuh chunks_for); ignored by the affine rounds, which always run as one.
  void set_chunks(unsigned k) noexcept { chunks_ = k; }
  // Resident points in fixed ranges of `points` taking turns on two slices, as streamed ones do
  // (0: only where the digits need it, resident_range_points). For tests of that path at small n.
  void set_resident_range(std::size_t points) noexcept { resident_range_ = points; }

  // sum_{i < count} [scalars[i]] points[i] for count <= size(); `scalars` is host memory. Returns
  // when the result is on the host; work queued on `stream` before the call comes first. The
  // scratch is laid out in `scratch` (grown if it holds too little), or in the object's own arena.
  result<point> run(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                    cudaStream_t stream = nullptr, device_arena* scratch = nullptr);
  // The same with `scalars` in device memory (this device), read after the work queued on
  // `stream` before the call (so a kernel that wrote them on `stream` needs no extra sync); the
  // caller keeps them unchanged until the call returns.
  result<point> run_device(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                           cudaStream_t stream = nullptr, device_arena* scratch = nullptr);
  // One sum per scalar set over the same points, sum_{i < count} [sets[p][i]] points[i] into
  // out[p], the scalars in device memory as for run_device. Streamed points (and resident ones in
  // ranges) cross once for all the sets: each range, while on the device, is accumulated into one
  // bucket set per scalar set, which is how a job's partitions on one key share the copy of its
  // points. The arena then holds sets.size() bucket sets (scratch_bytes' `sets`). Other resident
  // runs gain nothing from it and run one set after another. out.size() must be sets.size().
  // `zero_one_share`: the share of the scalars that are 0 or 1 (msm/scalar_sample.hpp; 0: not
  // looked at), which `automatic` may choose by (msm_g2_prefers_xyzz); a choice it changes holds
  // only where its scratch fits `scratch` as it is, so that a proof's arena, sized up front for
  // its device budget, never grows for it.
  status run_device_batch(std::span<const scalar_repr* const> sets, std::size_t count, std::span<point> out,
                          cudaStream_t stream = nullptr, device_arena* scratch = nullptr,
                          double zero_one_share = 0);
  // Device bytes of the object's own arena (zero where every run had the caller's).
  std::size_t own_scratch_bytes() const noexcept { return own_scratch_.capacity(); }

 private:
  // One chunk: its point range, its scalar set, its slice of the scratch, and where its sort left
  // its digits. A batch of P sets runs P chunks per range, one per set, taking turns on the slices.
  struct chunk {
    std::size_t i0 = 0, n = 0;  // points [i0, i0 + n)
    unsigned range = 0;         // which range of points (the stage slice of streamed points: range % 2)
    unsigned set = 0;           // which scalar set, and so which bucket set
    bool last_of_range = true;  // the range's last set: its stage slice is free after this chunk
    unsigned slice = 0;         // its slice of the digits and slot tables (in turns: k % 2)
    const affine* points = nullptr;           // the device copy its digits index
    const scalar_repr* scalars = nullptr;     // its scalars on the device
    uint32_t index_base = 0;                  // the index of its first point in `points`' numbering
    const uint32_t* keys = nullptr;
    const uint32_t* vals = nullptr;
    uint32_t part = 0;              // xyzz: the most points per work item
    std::size_t items_cap = 0;      // xyzz: a bound on its work items
  };
  // What a run of `count` scalars does: window, ranges and their slices, and the sizes its scratch
  // follows from; the one place these are decided, for run_impl and scratch_bytes alike.
  struct run_shape {
    bool affine_path = false, in_turns = false, stream_points = false, on_device = false;
    unsigned c = 0, windows = 0, chunks = 0, slices = 0, group_windows = 0;
    uint32_t slots = 0;
    unsigned sets = 1, ranges = 0;
    std::size_t chunk_n = 0, items_cap = 0, digits_total = 0, scalar_room = 0;
    std::vector<chunk> ch;
  };
  struct shape_inputs {
    std::size_t count = 0;
    bool on_device = false, streamed = false;
    std::size_t chunk_points = 0, resident_range = 0;
    msm_accumulation accumulation = msm_accumulation::automatic;
    double zero_one_share = 0;
    unsigned chunks = 0;
    unsigned sets = 1;
  };
  static result<run_shape> shape_of(const shape_inputs& in);
  // Lays the scratch of `shape` out with `cut` (views into its base, or a count only).
  status layout(const run_shape& shape, carver& cut);
  result<point> run_impl(const scalar_repr* scalars, bool on_device, std::size_t count, msm_timing* timing,
                         cudaStream_t stream, device_arena* scratch);
  // The run of every entry point: `sets` of scalars (one, except run_device_batch), sums to `out`.
  status run_sets(std::span<const scalar_repr* const> sets, bool on_device, std::size_t count,
                  std::span<point> out, msm_timing* timing, cudaStream_t stream, device_arena* scratch,
                  double zero_one_share = 0);
  static unsigned chunks_for(std::size_t count, bool on_device, unsigned chosen);
  status ensure_streams(unsigned chunks, cudaStream_t caller);
  status accumulate_affine(unsigned c, unsigned windows, unsigned group_windows, uint32_t slots, const chunk& ch,
                           unsigned& rounds, cudaStream_t stream);
  status plan_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch, cudaStream_t prep);
  status accumulate_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch, unsigned& rounds,
                         cudaStream_t stream);
  status reduce(unsigned c, unsigned windows, bool affine_path, std::size_t bucket_offset,
                std::vector<xyzz>& host_res, unsigned& levels, cudaStream_t stream);
  static point combine_windows(const std::vector<xyzz>& host_res, unsigned levels, unsigned windows, unsigned c);

  std::size_t n_ = 0;
  msm_accumulation accumulation_ = msm_accumulation::automatic;
  unsigned chunks_ = 0;
  device_buffer<affine> points_;                    // resident points
  bool streamed_ = false;
  const affine* host_points_ = nullptr;             // streamed points (the caller's memory)
  std::size_t chunk_points_ = 0;                    // streamed: points per range
  std::size_t resident_range_ = 0;                  // set_resident_range
  device_view<affine> stage_[2];                  // streamed: two ranges of points
  device_view<scalar_repr> scalars_;               // host scalars, copied
  device_view<uint32_t> keys_[2], vals_[2];       // sort double buffers, chunk k at windows x i0
  device_view<uint32_t> start_, end_;             // per chunk and (window, bucket) slot: sorted run
  device_view<uint32_t> cnt_[2], off_[2];         // per slot: a round's input/output counts, offsets
  device_view<uint32_t> okey_[2];                 // per round entry: its slot
  device_view<affine> buf_[2];                    // round outputs (ping-pong)
  device_view<typename Group::field> prefix_;     // batched inversion: running products
  device_view<typename Group::field> totals_;     // batched inversion: per-thread products
  device_view<affine> bucket_;                    // final bucket sums, W x 2^(c-1)
  device_view<uint32_t> parts_, offs_;            // xyzz: per chunk and slot: work items, first item
  device_view<uint32_t> item_slot_;               // xyzz: the slot of every work item
  device_view<uint32_t> item_len_[2], item_ord_[2];  // xyzz: items sorted by length (sort buffers)
  device_view<xyzz> partial_;                     // xyzz: per work item sums
  device_view<xyzz> bucket_x_;                    // xyzz: final bucket sums, W x 2^(c-1)
  device_view<xyzz> red_;                         // reduction scratch
  device_view<uint32_t> misc_;                    // per chunk: last offset, last count, max parts
  device_view<unsigned char> temp_;               // CUB scratch of the prep stream
  device_view<unsigned char> temp_c_;             // CUB scratch of the caller's stream
  device_arena own_scratch_;                        // where the views are laid out without the caller's arena
  pinned_buffer<uint32_t> plan_host_;               // misc_ on the host, per chunk
  cuda_stream copy_stream_, prep_stream_;
  cuda_event entry_;                                // the caller's stream at the call
  std::vector<cuda_event> copied_, prepped_;        // per chunk: scalars there, digits sorted and planned
  cuda_event consumed_[2];                          // in turns: a slice's last accumulation queued
  cuda_event stage_consumed_[2];                    // streamed: a stage slice's range fully accumulated
};

template <class C>
using msm_g1 = device_msm<g1_group<C>>;
template <class C>
using msm_g2 = device_msm<g2_group<C>>;

extern template class device_msm<bn254_g1>;
extern template class device_msm<bls12_381_g1>;
extern template class device_msm<bn254_g2>;
extern template class device_msm<bls12_381_g2>;

}  // namespace cuzk::gpu
