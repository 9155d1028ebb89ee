// Multi-scalar multiplication on the GPU, in G1 or G2: sum_i [s_i] P_i with the points either
// resident on the device (copied once, as a proving key's are: `create`) or streamed from host
// memory during every run (`create_streamed`: for keys larger than the device), and the scalars
// either copied from host memory each call (`run`) or already on the device (`run_device`, e.g.
// the witness copied once for several MSMs, or the H scalars the NTTs leave in device memory).
//
// Pippenger's bucket method with signed c-bit digits (msm.cuh says how each step runs and what
// it costs): digits -> radix sort by (window, bucket) -> bucket accumulation by rounds of pairwise
// affine additions with batched inversions (msm_accumulate.cuh) or by per-thread XYZZ runs
// (msm_xyzz.cuh, G1), whichever measured faster -> per-window bucket reduction by
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
// buckets, reduced once at the end. The result is the same as with resident points.
//
// Scalars are canonical Fr integers (plain, not Montgomery: the .wtns layout), each < r; anything
// at or above 2^bits(r) is outside the contract. For the full copy rate they should live in
// pinned host memory (docs/BENCHMARKS.md, 'Reference points': 55 GB/s pinned against 8 GB/s pageable).
//
// Thread: the thread that owns the device; the device must be current. One run at a time per
// object (it owns the scratch buffers and the two internal streams the run uses).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/cuda_stream.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/pinned_buffer.hpp"

namespace cuzk::gpu {

// How buckets are filled (msm.cuh): affine rounds with batched inversions (msm_accumulate.cuh)
// or per-thread XYZZ runs (msm_xyzz.cuh, G1 only); `automatic` picks by group (XYZZ for G1, the
// affine rounds for G2) from the H200 measurements in docs/gpu/msm.md ('XYZZ work items sorted by length').
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

// Group is a group description (curves/<curve>_groups.hpp): bn254_g1, bn254_g2, bls12_381_g1,
// bls12_381_g2.
template <class Group>
class device_msm {
 public:
  using affine = typename Group::affine;
  using point = typename Group::jacobian;
  using xyzz = typename Group::xyzz;
  using scalar_repr = typename Group::scalar::repr;

  // Copies `n` affine points (snarkjs encoding: infinity = (0, 0)) to the current device.
  static result<device_msm> create(const affine* host_points, std::size_t n, cudaStream_t stream = nullptr);
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
  // The widest window a streamed G1 run uses: its buckets and slot tables are device memory that
  // does not shrink with the chunk (2^20 windows: ~1.3 GB of BLS12-381 XYZZ buckets).
  static constexpr unsigned streamed_max_window_bits = 20;
  // About the device bytes of scratch a run of `count` device-resident scalars (as a proof's) makes
  // an object keep: streamed in ranges of `chunk_points`, or resident points with 0 (staged
  // points, sort keys and values, slot tables, work items, buckets), for a device budget. The
  // points themselves are not in it.
  static std::size_t scratch_bytes(std::size_t count, std::size_t chunk_points);

  std::size_t size() const noexcept { return n_; }
  bool streamed() const noexcept { return streamed_; }
  std::size_t chunk_points() const noexcept { return chunk_points_; }

  // The accumulation later runs use (automatic unless set; xyzz falls back to affine for G2).
  void set_accumulation(msm_accumulation a) noexcept { accumulation_ = a; }
  // What `automatic` resolves to for `count` points.
  static bool uses_affine(std::size_t count, msm_accumulation a = msm_accumulation::automatic);

  // Point ranges for the XYZZ accumulation (0: by size for host scalars, one for device scalars;
  // msm.cuh chunks_for); ignored by the affine rounds, which always run as one.
  void set_chunks(unsigned k) noexcept { chunks_ = k; }
  // Resident points in fixed ranges of `points` taking turns on two slices, as streamed ones do
  // (0: only where the digits need it, resident_range_points). For tests of that path at small n.
  void set_resident_range(std::size_t points) noexcept { resident_range_ = points; }

  // sum_{i < count} [scalars[i]] points[i] for count <= size(); `scalars` is host memory. Returns
  // when the result is on the host; work queued on `stream` before the call comes first.
  result<point> run(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                    cudaStream_t stream = nullptr);
  // The same with `scalars` in device memory (this device), read after the work queued on
  // `stream` before the call (so a kernel that wrote them on `stream` needs no extra sync); the
  // caller keeps them unchanged until the call returns.
  result<point> run_device(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                           cudaStream_t stream = nullptr);

 private:
  // One chunk: its point range, its slice of the scratch, and where its sort left its digits.
  struct chunk {
    std::size_t i0 = 0, n = 0;  // points [i0, i0 + n)
    unsigned slice = 0;         // its slice of the digits and slot tables (streamed: k % 2)
    const affine* points = nullptr;           // the device copy its digits index
    const scalar_repr* scalars = nullptr;     // its scalars on the device
    uint32_t index_base = 0;                  // the index of its first point in `points`' numbering
    const uint32_t* keys = nullptr;
    const uint32_t* vals = nullptr;
    uint32_t part = 0;              // xyzz: the most points per work item
    std::size_t items_cap = 0;      // xyzz: a bound on its work items
  };
  result<point> run_impl(const scalar_repr* scalars, bool on_device, std::size_t count, msm_timing* timing,
                         cudaStream_t stream);
  unsigned chunks_for(std::size_t count, bool on_device) const;
  status reserve(std::size_t digits, unsigned c, unsigned windows, unsigned group_windows, bool affine,
                 bool in_turns, unsigned slices, unsigned chunks, std::size_t chunk_n, std::size_t items_cap);
  status ensure_streams(unsigned chunks);
  status accumulate_affine(unsigned c, unsigned windows, unsigned group_windows, uint32_t slots, const chunk& ch,
                           unsigned& rounds, cudaStream_t stream);
  status plan_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch, cudaStream_t prep);
  status accumulate_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch, unsigned& rounds,
                         cudaStream_t stream);
  status reduce(unsigned c, unsigned windows, bool affine_path, std::vector<xyzz>& host_res, unsigned& levels,
                cudaStream_t stream);
  static point combine_windows(const std::vector<xyzz>& host_res, unsigned levels, unsigned windows, unsigned c);

  std::size_t n_ = 0;
  msm_accumulation accumulation_ = msm_accumulation::automatic;
  unsigned chunks_ = 0;
  device_buffer<affine> points_;                    // resident points
  bool streamed_ = false;
  const affine* host_points_ = nullptr;             // streamed points (the caller's memory)
  std::size_t chunk_points_ = 0;                    // streamed: points per range
  std::size_t resident_range_ = 0;                  // set_resident_range
  device_buffer<affine> stage_[2];                  // streamed: two ranges of points
  device_buffer<scalar_repr> scalars_;
  device_buffer<uint32_t> keys_[2], vals_[2];       // sort double buffers, chunk k at windows x i0
  device_buffer<uint32_t> start_, end_;             // per chunk and (window, bucket) slot: sorted run
  device_buffer<uint32_t> cnt_[2], off_[2];         // per slot: a round's input/output counts, offsets
  device_buffer<uint32_t> okey_[2];                 // per round entry: its slot
  device_buffer<affine> buf_[2];                    // round outputs (ping-pong)
  device_buffer<typename Group::field> prefix_;     // batched inversion: running products
  device_buffer<typename Group::field> totals_;     // batched inversion: per-thread products
  device_buffer<affine> bucket_;                    // final bucket sums, W x 2^(c-1)
  device_buffer<uint32_t> parts_, offs_;            // xyzz: per chunk and slot: work items, first item
  device_buffer<uint32_t> item_slot_;               // xyzz: the slot of every work item
  device_buffer<uint32_t> item_len_[2], item_ord_[2];  // xyzz: items sorted by length (sort buffers)
  device_buffer<xyzz> partial_;                     // xyzz: per work item sums
  device_buffer<xyzz> bucket_x_;                    // xyzz: final bucket sums, W x 2^(c-1)
  device_buffer<xyzz> red_;                         // reduction scratch
  device_buffer<uint32_t> misc_;                    // per chunk: last offset, last count, max parts
  device_buffer<unsigned char> temp_;               // CUB scratch of the prep stream
  device_buffer<unsigned char> temp_c_;             // CUB scratch of the caller's stream
  pinned_buffer<uint32_t> plan_host_;               // misc_ on the host, per chunk
  cuda_stream copy_stream_, prep_stream_;
  cuda_event entry_;                                // the caller's stream at the call
  std::vector<cuda_event> copied_, prepped_;        // per chunk: scalars there, digits sorted and planned
  cuda_event consumed_[2];                          // streamed: a slice's last accumulation queued
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
