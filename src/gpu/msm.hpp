// Multi-scalar multiplication on the GPU, in G1 or G2: sum_i [s_i] P_i with the points resident
// on the device (copied once, as a proving key's are) and the scalars copied from host memory each
// call.
//
// Pippenger's bucket method with signed c-bit digits (msm.cuh says how each step runs and what
// it costs): digits -> radix sort by (window, bucket) -> bucket accumulation by rounds of pairwise
// affine additions with batched inversions (msm_accumulate.cuh) or by per-thread XYZZ runs
// (msm_xyzz.cuh, G1), whichever measured faster -> per-window bucket reduction by
// running sums (msm_reduce.cuh) -> the windows combined on the host (a few hundred doublings,
// cheaper there than a one-thread kernel).
//
// Scalars are canonical Fr integers (plain, not Montgomery: the .wtns layout), each < r; anything
// at or above 2^bits(r) is outside the contract. For the full copy rate they should live in
// pinned host memory (../shared/ANCHORS.md: 55 GB/s pinned against 8 GB/s pageable).
//
// Thread: the thread that owns the device; the device must be current. One run at a time per
// object (it owns the scratch buffers the run uses).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

// How buckets are filled (msm.cuh): affine rounds with batched inversions (msm_accumulate.cuh)
// or per-thread XYZZ runs (msm_xyzz.cuh, G1 only); `automatic` picks by group, curve and size
// from the H200 measurements in NOTES.md.
enum class msm_accumulation { automatic, affine, xyzz };

// Where one run's time went (CUDA events; milliseconds), filled when a caller asks for it.
struct msm_timing {
  float copy_ms = 0;        // scalars host -> device
  float digits_ms = 0;      // signed digits and sort keys
  float sort_ms = 0;        // radix sort by (window, bucket)
  float plan_ms = 0;        // bucket boundaries and counts
  float accumulate_ms = 0;  // all rounds of pairwise additions (their plans included)
  float reduce_ms = 0;      // sum_b b * S_b per window
  float total_ms = 0;       // first event to the result on the host
  unsigned window_bits = 0;
  unsigned windows = 0;
  unsigned rounds = 0;      // accumulation rounds (affine: summed over window groups; xyzz: merge rounds)
  bool affine = false;      // which accumulation ran
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

  std::size_t size() const noexcept { return n_; }

  // The accumulation later runs use (automatic unless set; xyzz falls back to affine for G2).
  void set_accumulation(msm_accumulation a) noexcept { accumulation_ = a; }
  // What `automatic` resolves to for `count` points.
  static bool uses_affine(std::size_t count, msm_accumulation a = msm_accumulation::automatic);

  // sum_{i < count} [scalars[i]] points[i] for count <= size(); `scalars` is host memory.
  result<point> run(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                    cudaStream_t stream = nullptr);

 private:
  status reserve(std::size_t count, unsigned c, unsigned windows, unsigned group_windows, bool affine,
                 std::size_t items_cap);
  status accumulate_xyzz(std::size_t count, unsigned c, uint32_t slots, uint32_t part, std::size_t items_cap,
                         const uint32_t* vals, unsigned& rounds, cudaStream_t stream);

  std::size_t n_ = 0;
  msm_accumulation accumulation_ = msm_accumulation::automatic;
  device_buffer<affine> points_;
  device_buffer<scalar_repr> scalars_;
  device_buffer<uint32_t> keys_[2], vals_[2];       // sort double buffers
  device_buffer<uint32_t> start_, end_;             // per (window, bucket) slot: sorted run
  device_buffer<uint32_t> cnt_[2], off_[2];         // per slot: a round's input/output counts, offsets
  device_buffer<uint32_t> okey_[2];                 // per round entry: its slot
  device_buffer<affine> buf_[2];                    // round outputs (ping-pong)
  device_buffer<typename Group::field> prefix_;     // batched inversion: running products
  device_buffer<typename Group::field> totals_;     // batched inversion: per-thread products
  device_buffer<affine> bucket_;                    // final bucket sums, W x 2^(c-1)
  device_buffer<uint32_t> item_slot_;               // xyzz: the slot of every work item
  device_buffer<xyzz> partial_;                     // xyzz: per work item sums
  device_buffer<xyzz> bucket_x_;                    // xyzz: final bucket sums, W x 2^(c-1)
  device_buffer<xyzz> red_;                         // reduction scratch
  device_buffer<uint32_t> misc_;
  device_buffer<unsigned char> temp_;               // CUB scratch
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
