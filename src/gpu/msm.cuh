// Kernels and host code behind msm.hpp, as templates over the group; included only by
// msm_<group>_<curve>.cu, which hold the explicit instantiations.
//
// The steps, for n points, c-bit windows and W = ceil((bits + 1) / c) windows:
//  1. digits: each thread turns one scalar into W signed digits d in (-2^(c-1), 2^(c-1)] (a digit
//     above 2^(c-1) becomes d - 2^c with a carry into the next window; the top window needs no
//     carry because bits <= W c - 1), and writes per window the sort key (window << c) | |d| and
//     the value (point index | sign << 31). Digit 0 lands in bucket 0, which nothing reads.
//  2. sort: one CUB radix sort of the W n (key, value) pairs on c + log2(W) key bits, so each
//     bucket's points become one contiguous run.
//  3. plan: run boundaries per bucket slot.
//  4. accumulate (msm_accumulate.cuh): rounds of pairwise affine additions with batched
//     inversions until every bucket is one affine point, for a group of windows at a time so that
//     the round buffers stay within scratch_target_bytes; or, where that is faster (G1 of BN254,
//     small BLS12-381 G1), per-thread XYZZ runs merged pairwise (msm_xyzz.cuh).
//  5. reduce (msm_reduce.cuh): per window, sum_b b S_b by levels of running sums over segments.
//  6. the per-level window sums go to the host, which combines them (4 doublings per level) and
//     then the windows (c doublings each, Horner).
//
// Work: W n point additions dominate (13 * 2^24 = 2.2e8 at 2^24 with c = 20), ~6.6 field products
// each in affine (5M + 1S + ~0.6 for the shared inversions), against ~10 for XYZZ mixed additions;
// the sort moves 2 W n words; each addition also reads two points and writes one (~0.3 KB for
// BLS12-381 G1 with the prefix products).
#pragma once

#include <cub/cub.cuh>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "ec/affine.hpp"
#include "ec/xyzz.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/cuda_event.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/fp2_device.cuh"
#include "gpu/msm.hpp"
#include "gpu/msm_accumulate.cuh"
#include "gpu/msm_reduce.cuh"
#include "gpu/msm_xyzz.cuh"

namespace cuzk::gpu {

namespace msm_detail {

template <class Group>
struct device_types {
  using field = device_field_t<typename Group::field>;
  using affine = ec::affine<field>;
  using xyzz = ec::xyzz<field>;
};

// Round buffers of a window group are sized to stay near this (the first round's output array
// holds about half the group's W n digits as affine points).
constexpr std::size_t scratch_target_bytes = std::size_t{8} << 30;

inline unsigned grid(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// Step 1. Scalars are 8 little-endian 32-bit words (canonical Fr integers of 4 64-bit limbs).
static __global__ void digits_kernel(const uint4* __restrict__ scalars, uint32_t n, unsigned c, unsigned windows,
                              uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4 s0 = __ldg(scalars + 2 * static_cast<std::size_t>(i));
  const uint4 s1 = __ldg(scalars + 2 * static_cast<std::size_t>(i) + 1);
  const uint32_t s[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
  const uint32_t mask = (1u << c) - 1;
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < windows; ++w) {
    const unsigned bit = w * c;
    const unsigned wi = bit >> 5;
    const unsigned sh = bit & 31;
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (unsigned k = 0; k < 8; ++k) {
      lo = k == wi ? s[k] : lo;
      hi = k == wi + 1 ? s[k] : hi;
    }
    uint32_t v = lo >> sh;
    if (sh != 0) v |= hi << (32 - sh);
    v = (v & mask) + carry;
    uint32_t neg = 0;
    if (w + 1 < windows && v > half) {
      v = (1u << c) - v;
      neg = 1;
      carry = 1;
    } else {
      carry = 0;
    }
    const std::size_t o = static_cast<std::size_t>(w) * n + i;
    keys[o] = (w << c) | v;
    vals[o] = i | (neg << 31);
  }
}

// Step 3a: first and one-past-last sorted position of every occupied bucket slot.
static __global__ void bounds_kernel(const uint32_t* __restrict__ keys, uint32_t total, uint32_t* __restrict__ start,
                              uint32_t* __restrict__ end) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= total) return;
  const uint32_t k = keys[p];
  if (p == 0 || keys[p - 1] != k) start[k] = p;
  if (p + 1 == total || keys[p + 1] != k) end[k] = p + 1;
}

// A bundle of events that is empty when nobody asked for timings.
class phase_timer {
 public:
  status init(bool on, unsigned count) {
    on_ = on;
    if (!on) return status::ok();
    for (unsigned i = 0; i < count; ++i) {
      auto e = cuda_event::create();
      if (!e) return e.error();
      ev_.push_back(std::move(*e));
    }
    return status::ok();
  }
  status mark(unsigned i, cudaStream_t s) { return on_ ? ev_[i].record(s) : status::ok(); }
  result<float> ms(unsigned a, unsigned b) const {
    if (!on_) return 0.f;
    return cuda_event::elapsed_ms(ev_[a], ev_[b]);
  }

 private:
  bool on_ = false;
  std::vector<cuda_event> ev_;
};

}  // namespace msm_detail


template <class Group>
result<device_msm<Group>> device_msm<Group>::create(const affine* host_points, std::size_t n, cudaStream_t stream) {
  using A = typename msm_detail::device_types<Group>::affine;
  static_assert(sizeof(A) == sizeof(affine), "device and host affine points must share a layout");
  if (n >= (std::size_t{1} << 31)) return status(errc::invalid_argument, "gpu::device_msm: more than 2^31 - 1 points");
  if (n != 0 && host_points == nullptr) return status(errc::invalid_argument, "gpu::device_msm: null points");
  device_msm m;
  m.n_ = n;
  auto pts = device_buffer<affine>::create(n);
  if (!pts) return pts.error();
  m.points_ = std::move(*pts);
  if (n != 0) {
    CUZK_CUDA_TRY(cudaMemcpyAsync(m.points_.data(), host_points, n * sizeof(affine), cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  return result<device_msm>(std::move(m));
}

template <class Group>
bool device_msm<Group>::uses_affine(std::size_t count, msm_accumulation a) {
  constexpr bool g1 = std::is_same_v<typename Group::field, typename Group::curve::fq>;
  if (!g1) return true;
  if (a != msm_accumulation::automatic) return a == msm_accumulation::affine;
  // H200 (NOTES.md): XYZZ is faster for BN254 G1 at every size and for BLS12-381 G1 up to 2^20.
  return sizeof(typename Group::field) >= 48 && count > (std::size_t{1} << 20);
}

template <class Group>
status device_msm<Group>::reserve(std::size_t count, unsigned c, unsigned windows, unsigned group_windows,
                                  bool affine_path, std::size_t items_cap) {
  auto grow = [](auto& buf, std::size_t want) -> status {
    using B = std::remove_reference_t<decltype(buf)>;
    if (buf.size() >= want) return status::ok();
    buf = B{};
    auto b = B::create(want);
    if (!b) return b.error();
    buf = std::move(*b);
    return status::ok();
  };
  const std::size_t total = count * windows;
  const std::size_t slots = std::size_t{windows} << c;
  CUZK_TRY(grow(scalars_, count));
  for (auto* b : {&keys_[0], &keys_[1], &vals_[0], &vals_[1]}) CUZK_TRY(grow(*b, total));
  for (auto* b : {&start_, &end_, &cnt_[0], &cnt_[1], &off_[0], &off_[1]}) CUZK_TRY(grow(*b, slots));
  if (affine_path) {
    // Round 0 of a group writes sum ceil(m_k / 2) <= (digits + occupied buckets) / 2 entries;
    // each later round at most 3/4 of its input (every live bucket has >= 2 entries).
    const std::size_t gn = count * group_windows;
    const std::size_t cap0 = (gn + std::min(gn, std::size_t{group_windows} << c)) / 2 + 1;
    const std::size_t cap1 = cap0 * 3 / 4 + 1;
    CUZK_TRY(grow(buf_[0], cap0));
    CUZK_TRY(grow(okey_[0], cap0));
    CUZK_TRY(grow(buf_[1], cap1));
    CUZK_TRY(grow(okey_[1], cap1));
    CUZK_TRY(grow(prefix_, cap0 + 64));
    CUZK_TRY(grow(totals_, cap0 / 4 + 2));
    CUZK_TRY(grow(bucket_, std::size_t{windows} << (c - 1)));
  } else {
    CUZK_TRY(grow(item_slot_, items_cap));
    CUZK_TRY(grow(partial_, items_cap));
    CUZK_TRY(grow(bucket_x_, std::size_t{windows} << (c - 1)));
  }
  const std::size_t segs0 = ((std::size_t{1} << (c - 1)) + msm_detail::segment - 1) / msm_detail::segment;
  CUZK_TRY(grow(red_, 4 * segs0 * windows + 64 * windows));
  CUZK_TRY(grow(misc_, 4));

  std::size_t sort_bytes = 0, scan_bytes = 0, max_bytes = 0;
  cub::DoubleBuffer<uint32_t> k(keys_[0].data(), keys_[1].data()), v(vals_[0].data(), vals_[1].data());
  CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(total), 0, 32));
  CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt_[0].data(), off_[0].data(),
                                              static_cast<int>(slots)));
  CUZK_CUDA_TRY(cub::DeviceReduce::Max(nullptr, max_bytes, cnt_[0].data(), misc_.data(), static_cast<int>(slots)));
  CUZK_TRY(grow(temp_, std::max({sort_bytes, scan_bytes, max_bytes, std::size_t{1}})));
  return status::ok();
}

template <class Group>
result<typename device_msm<Group>::point> device_msm<Group>::run(const scalar_repr* scalars, std::size_t count,
                                                                  msm_timing* timing, cudaStream_t stream) {
  using namespace msm_detail;
  using F = typename device_types<Group>::field;
  using A = typename device_types<Group>::affine;
  using X = typename device_types<Group>::xyzz;
  static_assert(sizeof(X) == sizeof(xyzz) && sizeof(F) == sizeof(typename Group::field) && sizeof(scalar_repr) == 32);
  if (count > n_) return status(errc::invalid_argument, "gpu::device_msm::run: more scalars than resident points");
  if (count == 0) return point::infinity();
  if (scalars == nullptr) return status(errc::invalid_argument, "gpu::device_msm::run: null scalars");

  const unsigned bits = Group::scalar::bits;
  const unsigned c = msm_window_bits(count, bits);
  const unsigned windows = (bits + 1 + c - 1) / c;
  const std::size_t total = count * windows;
  if (total >= (std::size_t{1} << 31)) return status(errc::invalid_argument, "gpu::device_msm::run: too many digits");
  const uint32_t slots = windows << c;
  const uint32_t bucket_mask = (1u << c) - 1;
  const unsigned group_windows = static_cast<unsigned>(
      std::clamp<std::size_t>(scratch_target_bytes / (count * sizeof(affine)), 1, windows));
  const bool affine_path = uses_affine(count, accumulation_);
  // XYZZ work items: at most one per occupied slot plus one per `part` points.
  const uint32_t mean = static_cast<uint32_t>((count + (std::size_t{1} << (c - 1)) - 1) >> (c - 1));
  const uint32_t part = std::max<uint32_t>(32, 2 * mean);
  const std::size_t items_cap = std::min<std::size_t>(slots, total) + total / part + 1;
  CUZK_TRY(reserve(count, c, windows, group_windows, affine_path, items_cap));

  phase_timer tm;
  CUZK_TRY(tm.init(timing != nullptr, 8));
  constexpr unsigned T = 256;

  CUZK_TRY(tm.mark(0, stream));
  CUZK_CUDA_TRY(cudaMemcpyAsync(scalars_.data(), scalars, count * sizeof(scalar_repr), cudaMemcpyHostToDevice, stream));
  CUZK_TRY(tm.mark(1, stream));
  digits_kernel<<<grid(count, T), T, 0, stream>>>(reinterpret_cast<const uint4*>(scalars_.data()),
                                                  static_cast<uint32_t>(count), c, windows, keys_[0].data(),
                                                  vals_[0].data());
  CUZK_CUDA_TRY(cudaGetLastError());
  CUZK_TRY(tm.mark(2, stream));

  cub::DoubleBuffer<uint32_t> kb(keys_[0].data(), keys_[1].data()), vb(vals_[0].data(), vals_[1].data());
  std::size_t temp_bytes = temp_.size();
  const int end_bit = static_cast<int>(c + std::bit_width(windows - 1));
  CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, kb, vb, static_cast<int>(total), 0, end_bit,
                                                stream));
  const uint32_t* keys = kb.Current();
  const uint32_t* vals = vb.Current();
  CUZK_TRY(tm.mark(3, stream));

  CUZK_CUDA_TRY(cudaMemsetAsync(start_.data(), 0, slots * sizeof(uint32_t), stream));
  CUZK_CUDA_TRY(cudaMemsetAsync(end_.data(), 0, slots * sizeof(uint32_t), stream));
  bounds_kernel<<<grid(total, T), T, 0, stream>>>(keys, static_cast<uint32_t>(total), start_.data(), end_.data());
  CUZK_CUDA_TRY(cudaGetLastError());
  // Empty buckets stay all zero: (0, 0) is the affine infinity, ZZ = ZZZ = 0 the XYZZ one.
  if (affine_path)
    CUZK_CUDA_TRY(cudaMemsetAsync(bucket_.data(), 0, (std::size_t{windows} << (c - 1)) * sizeof(affine), stream));
  else
    CUZK_CUDA_TRY(cudaMemsetAsync(bucket_x_.data(), 0, (std::size_t{windows} << (c - 1)) * sizeof(xyzz), stream));
  CUZK_TRY(tm.mark(4, stream));

  A* const buckets = reinterpret_cast<A*>(bucket_.data());
  F* const prefix = reinterpret_cast<F*>(prefix_.data());
  F* const totals = reinterpret_cast<F*>(totals_.data());
  unsigned rounds = 0;
  if constexpr (std::is_same_v<typename Group::field, typename Group::curve::fq>) {
    if (!affine_path) CUZK_TRY(accumulate_xyzz(count, c, slots, part, items_cap, vals, rounds, stream));
  }
  for (unsigned w0 = 0; affine_path && w0 < windows; w0 += group_windows) {
    const unsigned w1 = std::min(windows, w0 + group_windows);
    const uint32_t s0 = w0 << c, s1 = w1 << c;
    uint32_t total_in = 0;
    for (unsigned r = 0;; ++r) {
      const unsigned in = (r + 1) % 2, out = r % 2;
      if (r == 0) {
        count_first_kernel<<<grid(s1 - s0, T), T, 0, stream>>>(start_.data(), end_.data(), s0, s1, bucket_mask,
                                                                cnt_[in].data(), off_[in].data(), cnt_[out].data());
      } else {
        count_kernel<<<grid(s1 - s0, T), T, 0, stream>>>(cnt_[in].data(), s0, s1, cnt_[out].data());
      }
      CUZK_CUDA_TRY(cudaGetLastError());
      temp_bytes = temp_.size();
      CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, cnt_[out].data() + s0,
                                                  off_[out].data() + s0, static_cast<int>(s1 - s0), stream));
      uint32_t last[2];
      CUZK_CUDA_TRY(cudaMemcpyAsync(&last[0], off_[out].data() + s1 - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    stream));
      CUZK_CUDA_TRY(cudaMemcpyAsync(&last[1], cnt_[out].data() + s1 - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    stream));
      CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
      const uint32_t total_out = last[0] + last[1];
      if (total_out == 0) break;
      if (total_out > (out == 0 ? buf_[0].size() : buf_[1].size()))
        return status(errc::internal, "gpu::device_msm::run: round " + std::to_string(r) + " has " +
                                          std::to_string(total_out) + " outputs, over its buffer");
      ++rounds;
      if (r == 0) {
        keys_kernel<<<grid(std::size_t{count} * (w1 - w0), T), T, 0, stream>>>(
            keys, static_cast<uint32_t>(w0 * count), static_cast<uint32_t>(w1 * count), off_[in].data(),
            cnt_[out].data(), off_[out].data(), okey_[out].data());
      } else {
        keys_kernel<<<grid(total_in, T), T, 0, stream>>>(okey_[in].data(), 0, total_in, off_[in].data(),
                                                         cnt_[out].data(), off_[out].data(), okey_[out].data());
      }
      CUZK_CUDA_TRY(cudaGetLastError());

      round_view<A> view{cnt_[in].data(), off_[in].data(), cnt_[out].data(), off_[out].data(), okey_[out].data(),
                         total_out, c, reinterpret_cast<A*>(buf_[out].data()), buckets};
      // Enough threads to fill the GPU, each with as many pairs as that allows (up to 64).
      const uint32_t per = std::clamp<uint32_t>(total_out >> 17, 4, 64);
      const uint32_t threads = (total_out + per - 1) / per;
      auto launch = [&](auto src) -> status {
        using S = decltype(src);
        constexpr bool first = std::is_same_v<S, round_source<A, true>>;
        forward_kernel<A, first><<<grid(threads, 256), 256, 0, stream>>>(src, view, per, threads, prefix, totals);
        CUZK_CUDA_TRY(cudaGetLastError());
        invert_kernel<F><<<grid((threads + 31) / 32, 128), 128, 0, stream>>>(totals, threads);
        CUZK_CUDA_TRY(cudaGetLastError());
        backward_kernel<A, first><<<grid(threads, 256), 256, 0, stream>>>(src, view, per, threads, prefix, totals);
        CUZK_CUDA_TRY(cudaGetLastError());
        return status::ok();
      };
      if (r == 0) {
        CUZK_TRY(launch(round_source<A, true>{reinterpret_cast<const A*>(points_.data()), vals, nullptr}));
      } else {
        CUZK_TRY(launch(round_source<A, false>{nullptr, nullptr, reinterpret_cast<const A*>(buf_[in].data())}));
      }
      total_in = total_out;
    }
  }
  CUZK_TRY(tm.mark(5, stream));

  // Reduction levels: level 0 over the affine buckets (rows of B), level l over T_{l-1}.
  const uint32_t B = 1u << (c - 1);
  X* red = reinterpret_cast<X*>(red_.data());
  X* res = nullptr;     // per level l < L: G_l per window; then H per window
  unsigned levels = 0;  // L
  {
    std::vector<X*> r_of;  // R_l per level
    std::vector<uint32_t> segs_of;
    X* t0 = nullptr;
    X* free_at = red;
    uint32_t len = B;
    const X* t_prev = nullptr;
    for (unsigned l = 0;; ++l) {
      const uint32_t segs = (len + segment - 1) / segment;
      X* r_l = free_at;
      X* t_l = free_at + std::size_t{segs} * windows;
      free_at = t_l + std::size_t{segs} * windows;
      constexpr unsigned TR = 64;
      if (l == 0) t0 = t_l;
      if (l == 0 && affine_path) {
        running_sum_kernel<A, X><<<grid(std::size_t{segs} * windows, TR), TR, 0, stream>>>(buckets, len, segs, windows,
                                                                                          r_l, t_l);
      } else if (l == 0) {
        running_sum_kernel<X, X><<<grid(std::size_t{segs} * windows, TR), TR, 0, stream>>>(
            reinterpret_cast<const X*>(bucket_x_.data()), len, segs, windows, r_l, t_l);
      } else {
        running_sum_kernel<X, X><<<grid(std::size_t{segs} * windows, TR), TR, 0, stream>>>(t_prev, len, segs, windows,
                                                                                          r_l, t_l);
      }
      CUZK_CUDA_TRY(cudaGetLastError());
      r_of.push_back(r_l);
      segs_of.push_back(segs);
      t_prev = t_l;
      if (segs == 1) break;
      len = segs;
    }
    // Each R_l (and T_0) summed to one element per row, then all gathered in `res`.
    levels = static_cast<unsigned>(r_of.size());
    res = free_at;
    X* tmp_a = res + std::size_t{levels + 1} * windows;
    X* tmp_b = tmp_a + (std::size_t{segs_of[0]} / 8 + 1) * windows;
    auto sum_rows = [&](X* in_rows, uint32_t len_rows, X* dst) -> status {
      constexpr uint32_t g = 8;
      X* src = in_rows;
      while (len_rows > 1) {
        const uint32_t out_len = (len_rows + g - 1) / g;
        X* dst_tmp = src == tmp_a ? tmp_b : tmp_a;
        group_sum_kernel<X><<<grid(std::size_t{out_len} * windows, 64), 64, 0, stream>>>(src, len_rows, g, out_len,
                                                                                         windows, dst_tmp);
        CUZK_CUDA_TRY(cudaGetLastError());
        src = dst_tmp;
        len_rows = out_len;
      }
      CUZK_CUDA_TRY(cudaMemcpyAsync(dst, src, windows * sizeof(X), cudaMemcpyDeviceToDevice, stream));
      return status::ok();
    };
    for (unsigned l = 0; l < levels; ++l) CUZK_TRY(sum_rows(r_of[l], segs_of[l], res + std::size_t{l} * windows));
    CUZK_TRY(sum_rows(t0, segs_of[0], res + std::size_t{levels} * windows));
  }
  std::vector<xyzz> host_res(std::size_t{levels + 1} * windows);
  CUZK_CUDA_TRY(cudaMemcpyAsync(host_res.data(), res, host_res.size() * sizeof(xyzz), cudaMemcpyDeviceToHost,
                                stream));
  CUZK_TRY(tm.mark(6, stream));
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));

  // Window w: G_0 + 16 (G_1 + 16 (... G_{L-1})) + H, then Horner over the windows.
  auto window_sum = [&](unsigned w) {
    xyzz acc = host_res[std::size_t{levels - 1} * windows + w];
    for (unsigned l = levels - 1; l-- > 0;) {
      for (unsigned d = 0; d < log_segment; ++d) acc = acc.dbl();
      acc += host_res[std::size_t{l} * windows + w];
    }
    return acc + host_res[std::size_t{levels} * windows + w];
  };
  xyzz acc = window_sum(windows - 1);
  for (unsigned w = windows - 1; w-- > 0;) {
    for (unsigned d = 0; d < c; ++d) acc = acc.dbl();
    acc += window_sum(w);
  }
  CUZK_TRY(tm.mark(7, stream));

  if (timing != nullptr) {
    auto get = [&](unsigned a, unsigned b, float& f) -> status {
      auto ms = tm.ms(a, b);
      if (!ms) return ms.error();
      f = *ms;
      return status::ok();
    };
    CUZK_TRY(get(0, 1, timing->copy_ms));
    CUZK_TRY(get(1, 2, timing->digits_ms));
    CUZK_TRY(get(2, 3, timing->sort_ms));
    CUZK_TRY(get(3, 4, timing->plan_ms));
    CUZK_TRY(get(4, 5, timing->accumulate_ms));
    CUZK_TRY(get(5, 6, timing->reduce_ms));
    CUZK_TRY(get(0, 7, timing->total_ms));
    timing->window_bits = c;
    timing->windows = windows;
    timing->rounds = rounds;
    timing->affine = affine_path;
  }
  return acc.to_jacobian();
}

// The XYZZ accumulation (msm_xyzz.cuh) over all windows: plan work items, sum their runs, merge
// the items of each bucket, scatter the bucket sums. G1 only.
template <class Group>
status device_msm<Group>::accumulate_xyzz(std::size_t count, unsigned c, uint32_t slots, uint32_t part,
                                          std::size_t items_cap, const uint32_t* vals, unsigned& rounds,
                                          cudaStream_t stream) {
  if constexpr (!std::is_same_v<typename Group::field, typename Group::curve::fq>) {
    (void)count, (void)c, (void)slots, (void)part, (void)items_cap, (void)vals, (void)rounds, (void)stream;
    return status(errc::internal, "gpu::device_msm: the XYZZ accumulation is G1 only");
  } else {
    using namespace msm_detail;
    using A = typename device_types<Group>::affine;
    using X = typename device_types<Group>::xyzz;
    constexpr unsigned T = 256;
    const uint32_t bucket_mask = (1u << c) - 1;
    uint32_t* parts = cnt_[0].data();
    uint32_t* offs = off_[0].data();
    parts_kernel<<<grid(slots, T), T, 0, stream>>>(start_.data(), end_.data(), slots, bucket_mask, part, parts);
    CUZK_CUDA_TRY(cudaGetLastError());
    std::size_t temp_bytes = temp_.size();
    CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, parts, offs, static_cast<int>(slots), stream));
    temp_bytes = temp_.size();
    CUZK_CUDA_TRY(cub::DeviceReduce::Max(temp_.data(), temp_bytes, parts, misc_.data() + 2, static_cast<int>(slots),
                                         stream));
    CUZK_CUDA_TRY(cudaMemcpyAsync(misc_.data(), offs + slots - 1, sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
    CUZK_CUDA_TRY(cudaMemcpyAsync(misc_.data() + 1, parts + slots - 1, sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                  stream));
    uint32_t plan[3];
    CUZK_CUDA_TRY(cudaMemcpyAsync(plan, misc_.data(), sizeof plan, cudaMemcpyDeviceToHost, stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
    const uint32_t items = plan[0] + plan[1];
    const uint32_t max_parts = plan[2];
    if (items > items_cap) return status(errc::internal, "gpu::device_msm: work items exceed their bound");
    items_kernel<<<grid(slots, T), T, 0, stream>>>(parts, offs, slots, item_slot_.data());
    CUZK_CUDA_TRY(cudaGetLastError());
    X* partial = reinterpret_cast<X*>(partial_.data());
    if (items != 0) {
      constexpr unsigned TA = 128;
      accumulate_kernel<A, X><<<grid(items, TA), TA, 0, stream>>>(reinterpret_cast<const A*>(points_.data()), vals,
                                                                item_slot_.data(), start_.data(), end_.data(), offs,
                                                                part, items, partial);
      CUZK_CUDA_TRY(cudaGetLastError());
    }
    for (unsigned r = 0; (1u << r) < max_parts; ++r, ++rounds) {
      merge_kernel<X><<<grid(items, 128), 128, 0, stream>>>(partial, item_slot_.data(), offs, parts, items, r);
      CUZK_CUDA_TRY(cudaGetLastError());
    }
    scatter_kernel<X><<<grid(slots, T), T, 0, stream>>>(partial, offs, parts, slots, c,
                                                        reinterpret_cast<X*>(bucket_x_.data()));
    CUZK_CUDA_TRY(cudaGetLastError());
    return status::ok();
  }
}

}  // namespace cuzk::gpu
