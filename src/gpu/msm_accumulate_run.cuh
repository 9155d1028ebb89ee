// SPDX-License-Identifier: MIT OR Apache-2.0
// Host drivers of the GPU MSM's bucket accumulation (msm.cuh step 4), members of device_msm
// defined after the class (msm_impl.cuh puts the two together): the affine rounds (kernels in
// msm_accumulate.cuh) over window groups, and the XYZZ runs (kernels in msm_xyzz.cuh) split into a
// plan on the prep stream and the additions on the caller's stream.
//
// Why the XYZZ plan runs on the prep stream: the additions need the number of work items and the
// most items of one bucket on the host (grid sizes, merge rounds). Planning chunk k + 1 beside
// chunk k's additions and reading those three words from pinned memory lets the host queue chunk
// k + 1 before chunk k ends, so the caller's stream never idles between chunks. The affine rounds
// still sync once per round (each round's size comes from the previous one's scan).
#pragma once

#include <string>

#include "gpu/msm.cuh"

namespace cuzk::gpu {

template <class Group>
status device_msm<Group>::accumulate_affine(unsigned c, unsigned windows, unsigned group_windows,
                                            uint32_t slots, const chunk& ch, unsigned& rounds,
                                            cudaStream_t stream) {
  using namespace msm_detail;
  using F = typename device_types<Group>::field;
  using A = typename device_types<Group>::affine;
  constexpr unsigned T = 256;
  const uint32_t bucket_mask = (1u << c) - 1;
  A* const buckets = reinterpret_cast<A*>(bucket_.data());
  F* const prefix = reinterpret_cast<F*>(prefix_.data());
  F* const totals = reinterpret_cast<F*>(totals_.data());
  const std::size_t count = ch.n;  // the chunk's points: its sorted digits hold `count` per window
  const uint32_t* start = start_.data() + std::size_t{ch.slice} * slots;
  const uint32_t* end = end_.data() + std::size_t{ch.slice} * slots;
  for (unsigned w0 = 0; w0 < windows; w0 += group_windows) {
    const unsigned w1 = std::min(windows, w0 + group_windows);
    const uint32_t s0 = w0 << c, s1 = w1 << c;
    uint32_t total_in = 0;
    for (unsigned r = 0;; ++r) {
      const unsigned in = (r + 1) % 2, out = r % 2;
      if (r == 0) {
        count_first_kernel<<<grid(s1 - s0, T), T, 0, stream>>>(start, end, s0, s1,
                                                               bucket_mask, cnt_[in].data(), off_[in].data(),
                                                               cnt_[out].data());
      } else {
        count_kernel<<<grid(s1 - s0, T), T, 0, stream>>>(cnt_[in].data(), s0, s1, cnt_[out].data());
      }
      CUZK_CUDA_TRY(cudaGetLastError());
      std::size_t temp_bytes = temp_c_.size();
      CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp_c_.data(), temp_bytes, cnt_[out].data() + s0,
                                                  off_[out].data() + s0, static_cast<int>(s1 - s0), stream));
      uint32_t last[2];
      CUZK_CUDA_TRY(cudaMemcpyAsync(&last[0], off_[out].data() + s1 - 1, sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
      CUZK_CUDA_TRY(cudaMemcpyAsync(&last[1], cnt_[out].data() + s1 - 1, sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
      CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
      const uint32_t total_out = last[0] + last[1];
      if (total_out == 0) break;
      if (total_out > (out == 0 ? buf_[0].size() : buf_[1].size()))
        return status(errc::internal, "gpu::device_msm::run: round " + std::to_string(r) + " has " +
                                          std::to_string(total_out) + " outputs, over its buffer");
      ++rounds;
      if (r == 0) {
        keys_kernel<<<grid(std::size_t{count} * (w1 - w0), T), T, 0, stream>>>(
            ch.keys, static_cast<uint32_t>(w0 * count), static_cast<uint32_t>(w1 * count), off_[in].data(),
            cnt_[out].data(), off_[out].data(), okey_[out].data());
      } else {
        keys_kernel<<<grid(total_in, T), T, 0, stream>>>(okey_[in].data(), 0, total_in, off_[in].data(),
                                                         cnt_[out].data(), off_[out].data(),
                                                         okey_[out].data());
      }
      CUZK_CUDA_TRY(cudaGetLastError());

      round_view<A> view{cnt_[in].data(),
                         off_[in].data(),
                         cnt_[out].data(),
                         off_[out].data(),
                         okey_[out].data(),
                         total_out,
                         c,
                         reinterpret_cast<A*>(buf_[out].data()),
                         buckets};
      // Enough threads to fill the GPU, each with as many pairs as that allows (up to 64).
      const uint32_t per = std::clamp<uint32_t>(total_out >> 17, 4, 64);
      const uint32_t threads = (total_out + per - 1) / per;
      auto launch = [&](auto src) -> status {
        using S = decltype(src);
        constexpr bool first = std::is_same_v<S, round_source<A, true>>;
        forward_kernel<A, first>
            <<<grid(threads, 256), 256, 0, stream>>>(src, view, per, threads, prefix, totals);
        CUZK_CUDA_TRY(cudaGetLastError());
        invert_kernel<F>
            <<<grid((threads + invert_batch - 1) / invert_batch, 128), 128, 0, stream>>>(totals, threads);
        CUZK_CUDA_TRY(cudaGetLastError());
        backward_kernel<A, first>
            <<<grid(threads, 256), 256, 0, stream>>>(src, view, per, threads, prefix, totals);
        CUZK_CUDA_TRY(cudaGetLastError());
        return status::ok();
      };
      if (r == 0) {
        CUZK_TRY(launch(round_source<A, true>{reinterpret_cast<const A*>(ch.points), ch.vals, nullptr}));
      } else {
        CUZK_TRY(
            launch(round_source<A, false>{nullptr, nullptr, reinterpret_cast<const A*>(buf_[in].data())}));
      }
      total_in = total_out;
    }
  }
  return status::ok();
}

// Chunk k's work items per slot, their first item, and (to pinned host memory) the item count and
// the most items of one slot. On the prep stream, after the chunk's bounds.
template <class Group>
status device_msm<Group>::plan_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch,
                                    cudaStream_t prep) {
  using namespace msm_detail;
  constexpr unsigned T = 256;
  const std::size_t set = std::size_t{ch.slice} * slots;
  uint32_t* parts = parts_.data() + set;
  uint32_t* offs = offs_.data() + set;
  uint32_t* misc = misc_.data() + 3 * std::size_t{k};
  parts_kernel<<<grid(slots, T), T, 0, prep>>>(start_.data() + set, end_.data() + set, slots, (1u << c) - 1,
                                               ch.part, parts);
  CUZK_CUDA_TRY(cudaGetLastError());
  std::size_t temp_bytes = temp_.size();
  CUZK_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, parts, offs, static_cast<int>(slots), prep));
  temp_bytes = temp_.size();
  CUZK_CUDA_TRY(
      cub::DeviceReduce::Max(temp_.data(), temp_bytes, parts, misc + 2, static_cast<int>(slots), prep));
  CUZK_CUDA_TRY(cudaMemcpyAsync(misc, offs + slots - 1, sizeof(uint32_t), cudaMemcpyDeviceToDevice, prep));
  CUZK_CUDA_TRY(
      cudaMemcpyAsync(misc + 1, parts + slots - 1, sizeof(uint32_t), cudaMemcpyDeviceToDevice, prep));
  CUZK_CUDA_TRY(cudaMemcpyAsync(plan_host_.data() + 3 * std::size_t{k}, misc, 3 * sizeof(uint32_t),
                                cudaMemcpyDeviceToHost, prep));
  return status::ok();
}

// Chunk k's additions into bucket_x_ on `stream`: items, their order by length, the runs (the
// first range of points from infinity, later ones from the sums already there), merges, scatter.
// Both groups: G2's points and sums are twice G1's words, so each thread needs about twice the
// registers; the kernel keeps 128 threads per block for both.
template <class Group>
status device_msm<Group>::accumulate_xyzz(unsigned k, unsigned c, uint32_t slots, const chunk& ch,
                                          unsigned& rounds, cudaStream_t stream) {
  using namespace msm_detail;
  using A = typename device_types<Group>::affine;
  using X = typename device_types<Group>::xyzz;
  constexpr unsigned T = 256;
  // The plan words are in pinned memory once the prep stream passed this chunk's event.
  CUZK_CUDA_TRY(cudaEventSynchronize(prepped_[k].get()));
  const uint32_t* plan = plan_host_.data() + 3 * std::size_t{k};
  const uint32_t items = plan[0] + plan[1];
  const uint32_t max_parts = plan[2];
  if (items > ch.items_cap) return status(errc::internal, "gpu::device_msm: work items exceed their bound");
  if (items == 0) return status::ok();
  const std::size_t set = std::size_t{ch.slice} * slots;
  const uint32_t* parts = parts_.data() + set;
  const uint32_t* offs = offs_.data() + set;
  const uint32_t* start = start_.data() + set;
  const uint32_t* end = end_.data() + set;
  items_kernel<<<grid(slots, T), T, 0, stream>>>(parts, offs, slots, item_slot_.data());
  CUZK_CUDA_TRY(cudaGetLastError());
  item_len_kernel<<<grid(items, T), T, 0, stream>>>(item_slot_.data(), start, end, offs, ch.part, items,
                                                    item_len_[0].data(), item_ord_[0].data());
  CUZK_CUDA_TRY(cudaGetLastError());
  cub::DoubleBuffer<uint32_t> lk(item_len_[0].data(), item_len_[1].data());
  cub::DoubleBuffer<uint32_t> lv(item_ord_[0].data(), item_ord_[1].data());
  std::size_t temp_bytes = temp_c_.size();
  CUZK_CUDA_TRY(
      cub::DeviceRadixSort::SortPairsDescending(temp_c_.data(), temp_bytes, lk, lv, static_cast<int>(items),
                                                0, static_cast<int>(std::bit_width(ch.part)), stream));
  X* partial = reinterpret_cast<X*>(partial_.data());
  // The bucket set of the chunk's scalar set (one per set in a batch, msm.hpp run_device_batch).
  X* buckets = reinterpret_cast<X*>(bucket_x_.data()) + std::size_t{ch.set} * (slots / 2);
  constexpr unsigned TA = 128;
  accumulate_kernel<A, X><<<grid(items, TA), TA, 0, stream>>>(
      reinterpret_cast<const A*>(ch.points), ch.vals, item_slot_.data(), start, end, offs, parts,
      lv.Current(), ch.part, items, c, ch.range > 0, partial, buckets);
  CUZK_CUDA_TRY(cudaGetLastError());
  unsigned r = 0;
  for (; (1u << r) < max_parts; ++r) {
    merge_kernel<X>
        <<<grid(items, 128), 128, 0, stream>>>(partial, item_slot_.data(), offs, parts, items, r);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  rounds += r;
  if (max_parts > 1) {
    scatter_kernel<X><<<grid(slots, T), T, 0, stream>>>(partial, offs, parts, slots, c, buckets);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  return status::ok();
}

}  // namespace cuzk::gpu
