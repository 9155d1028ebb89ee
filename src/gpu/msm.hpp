// Multi-scalar multiplication in G1 on the GPU: sum_i [s_i] P_i with the points resident on the
// device (copied once, as a proving key's are) and the scalars copied from host memory each call.
//
// Pippenger's bucket method with signed c-bit digits (msm.cuh says how each step runs and what
// it costs): digits -> radix sort by (window, bucket) -> bucket accumulation in XYZZ with mixed
// affine additions -> per-window bucket reduction -> the windows combined on the host (a few
// hundred doublings, cheaper there than a one-thread kernel).
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

// Where one run's time went (CUDA events; milliseconds), filled when a caller asks for it.
struct msm_timing {
  float copy_ms = 0;        // scalars host -> device
  float digits_ms = 0;      // signed digits and sort keys
  float sort_ms = 0;        // radix sort by (window, bucket)
  float plan_ms = 0;        // bucket boundaries, work items
  float accumulate_ms = 0;  // bucket += point, in runs of at most `part` points
  float merge_ms = 0;       // partial sums of split buckets combined
  float reduce_ms = 0;      // sum_b b * S_b per window
  float total_ms = 0;       // first event to window sums on the host
  unsigned window_bits = 0;
  unsigned windows = 0;
};

// The window width c the cost model picks for n points and scalars of `bits` bits: it minimises
// windows * (n mixed additions + 2 * 2^(c-1) full additions for the bucket reduction).
unsigned msm_window_bits(std::size_t n, unsigned bits);

template <class Curve>
class msm_g1 {
 public:
  using affine = g1_affine<Curve>;
  using point = g1<Curve>;
  using scalar_repr = typename Curve::fr::repr;

  // Copies `n` affine points (snarkjs encoding: infinity = (0, 0)) to the current device.
  static result<msm_g1> create(const affine* host_points, std::size_t n, cudaStream_t stream = nullptr);

  std::size_t size() const noexcept { return n_; }

  // sum_{i < count} [scalars[i]] points[i] for count <= size(); `scalars` is host memory.
  result<point> run(const scalar_repr* scalars, std::size_t count, msm_timing* timing = nullptr,
                    cudaStream_t stream = nullptr);

 private:
  status reserve(std::size_t count, unsigned c, unsigned windows, std::size_t items_cap);

  std::size_t n_ = 0;
  device_buffer<affine> points_;
  device_buffer<scalar_repr> scalars_;
  device_buffer<uint32_t> keys_[2], vals_[2];
  device_buffer<uint32_t> start_, end_, parts_, offs_, item_slot_, misc_;
  device_buffer<g1_xyzz<Curve>> partial_, seg_a_, seg_b_;
  device_buffer<unsigned char> temp_;
};

extern template class msm_g1<bn254>;
extern template class msm_g1<bls12_381>;

}  // namespace cuzk::gpu
