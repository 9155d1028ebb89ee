// Kernels and host code behind msm.hpp, as templates over the curve; included only by
// msm_<curve>.cu, which hold the explicit instantiations.
//
// The steps, for n points, c-bit windows and W = ceil((bits + 1) / c) windows:
//  1. digits: each thread turns one scalar into W signed digits d in (-2^(c-1), 2^(c-1)] (a digit
//     above 2^(c-1) becomes d - 2^c with a carry into the next window; the top window needs no
//     carry because bits <= W c - 1), and writes per window the sort key (window << c) | |d| and
//     the value (point index | sign << 31). Digit 0 lands in bucket 0, which nothing reads.
//  2. sort: one CUB radix sort of the W n (key, value) pairs on c + log2(W) key bits, so each
//     bucket's points become one contiguous run.
//  3. plan: run boundaries per bucket slot; each bucket is cut into parts of at most `part`
//     points (a work item each; part = max(32, twice the mean bucket load)), so a bucket that
//     holds millions of points (real witnesses are full of 0s and 1s; the top window of a random
//     scalar has few buckets) is shared among many threads instead of serialising one.
//  4. accumulate: one thread per item sums its run into an XYZZ point with mixed additions
//     (8M + 2S each, ec/xyzz.hpp), the next point's load issued before the current addition.
//  5. merge: items of one bucket are added pairwise in log2(max parts) rounds.
//  6. reduce: per window, sum_b b S_b by running sums over segments of 16 buckets (thread per
//     segment: R = sum (b - lo + 1) S_b and T = sum S_b, then R + (lo - 1) T by double-and-add),
//     then the segment results summed 8 at a time per level.
//  7. the W window sums go to the host, which combines them with c doublings each (Horner).
//
// Work: W n mixed additions dominate (13 * 2^24 = 2.2e8 at 2^24 with c = 20, about 2.2e9 field
// products, 82 ms at BLS12-381's measured 2.66e10 products/s); the sort moves 2 W n words.
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
#include "gpu/fp_device.cuh"
#include "gpu/msm.hpp"

namespace cuzk::gpu {

namespace msm_detail {

template <class Curve>
struct device_types {
  using fq = fp_device<typename Curve::fq_params>;
  using affine = ec::affine<fq>;
  using xyzz = ec::xyzz<fq>;
};

template <class T>
__device__ __forceinline__ T load_vec(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned v = 0; v < sizeof(T) / 16; ++v) d[v] = __ldg(s + v);
  return r;
}

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

// Step 3b: parts per slot (bucket 0 of each window is "digit 0" and is skipped).
static __global__ void parts_kernel(const uint32_t* __restrict__ start, const uint32_t* __restrict__ end, uint32_t slots,
                             uint32_t bucket_mask, uint32_t part, uint32_t* __restrict__ parts) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots) return;
  parts[k] = (k & bucket_mask) == 0 ? 0 : (end[k] - start[k] + part - 1) / part;
}

// Step 3c: the slot of every work item.
static __global__ void items_kernel(const uint32_t* __restrict__ parts, const uint32_t* __restrict__ offs, uint32_t slots,
                             uint32_t* __restrict__ item_slot) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= slots) return;
  const uint32_t o = offs[k];
  for (uint32_t p = 0; p < parts[k]; ++p) item_slot[o + p] = k;
}

// Step 4.
template <class A, class X>
__global__ void accumulate_kernel(const A* __restrict__ points, const uint32_t* __restrict__ vals,
                                  const uint32_t* __restrict__ item_slot, const uint32_t* __restrict__ start,
                                  const uint32_t* __restrict__ end, const uint32_t* __restrict__ offs, uint32_t part,
                                  uint32_t items, X* __restrict__ partial) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= items) return;
  const uint32_t k = item_slot[i];
  const uint32_t b = start[k] + (i - offs[k]) * part;
  const uint32_t e = min(end[k], b + part);
  X acc = X::infinity();
  uint32_t v = vals[b];
  A next = load_vec(points + (v & 0x7fffffffu));
  for (uint32_t p = b; p < e; ++p) {
    A q = next;
    const bool neg = (v >> 31) != 0;
    if (p + 1 < e) {
      v = vals[p + 1];
      next = load_vec(points + (v & 0x7fffffffu));
    }
    if (neg) q.y = -q.y;  // -(0) = 0, so infinity stays (0, 0)
    acc += q;
  }
  partial[i] = acc;
}

// Step 5, round r: item p of a bucket (p a multiple of 2^(r+1)) absorbs item p + 2^r.
template <class X>
__global__ void merge_kernel(X* __restrict__ partial, const uint32_t* __restrict__ item_slot,
                             const uint32_t* __restrict__ offs, const uint32_t* __restrict__ parts, uint32_t items,
                             unsigned r) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= items) return;
  const uint32_t k = item_slot[i];
  const uint32_t p = i - offs[k];
  if ((p & ((2u << r) - 1)) != 0 || p + (1u << r) >= parts[k]) return;
  partial[i] = partial[i] + partial[i + (1u << r)];
}

// Step 6a: thread t = (window w, segment j) covers buckets lo = j S + 1 .. j S + S.
template <class X>
__global__ void segment_kernel(const X* __restrict__ partial, const uint32_t* __restrict__ offs,
                               const uint32_t* __restrict__ parts, unsigned c, unsigned log_seg, uint32_t segs,
                               uint32_t total, X* __restrict__ out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total) return;
  const uint32_t w = t / segs;
  const uint32_t j = t % segs;
  const uint32_t lo = (j << log_seg) + 1;
  X run = X::infinity(), sum = X::infinity();
  for (uint32_t b = lo + (1u << log_seg) - 1;; --b) {
    const uint32_t slot = (w << c) | b;
    if (parts[slot] != 0) run += partial[offs[slot]];
    sum += run;
    if (b == lo) break;
  }
  // + (lo - 1) * run, double-and-add from the low bit.
  uint32_t m = lo - 1;
  X q = run, acc = X::infinity();
  while (m != 0) {
    if (m & 1) acc += q;
    m >>= 1;
    if (m != 0) q = q.dbl();
  }
  out[t] = sum + acc;
}

// Step 6b: out[t] = sum of in[t g .. t g + g) within rows of `len` (the last group may be short).
template <class X>
__global__ void group_sum_kernel(const X* __restrict__ in, uint32_t len, uint32_t g, uint32_t out_len,
                                 uint32_t rows, X* __restrict__ out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= out_len * rows) return;
  const uint32_t row = t / out_len;
  const uint32_t col = t % out_len;
  const uint32_t b = col * g;
  const uint32_t e = min(len, b + g);
  X acc = X::infinity();
  for (uint32_t p = b; p < e; ++p) acc += in[static_cast<std::size_t>(row) * len + p];
  out[t] = acc;
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

template <class Curve>
result<msm_g1<Curve>> msm_g1<Curve>::create(const affine* host_points, std::size_t n, cudaStream_t stream) {
  using A = typename msm_detail::device_types<Curve>::affine;
  static_assert(sizeof(A) == sizeof(affine), "device and host affine points must share a layout");
  if (n >= (std::size_t{1} << 31)) return status(errc::invalid_argument, "gpu::msm_g1: more than 2^31 - 1 points");
  if (n != 0 && host_points == nullptr) return status(errc::invalid_argument, "gpu::msm_g1: null points");
  msm_g1 m;
  m.n_ = n;
  auto pts = device_buffer<affine>::create(n);
  if (!pts) return pts.error();
  m.points_ = std::move(*pts);
  if (n != 0) {
    CUZK_CUDA_TRY(cudaMemcpyAsync(m.points_.data(), host_points, n * sizeof(affine), cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  return result<msm_g1>(std::move(m));
}

template <class Curve>
status msm_g1<Curve>::reserve(std::size_t count, unsigned c, unsigned windows, std::size_t items_cap) {
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
  for (auto* b : {&start_, &end_, &parts_, &offs_}) CUZK_TRY(grow(*b, slots));
  CUZK_TRY(grow(item_slot_, items_cap));
  CUZK_TRY(grow(misc_, 4));
  CUZK_TRY(grow(partial_, items_cap));
  const std::size_t segs = (slots >> 1) / 16 + windows;
  CUZK_TRY(grow(seg_a_, segs));
  CUZK_TRY(grow(seg_b_, segs));

  std::size_t sort_bytes = 0, scan_bytes = 0, max_bytes = 0;
  cub::DoubleBuffer<uint32_t> k(keys_[0].data(), keys_[1].data()), v(vals_[0].data(), vals_[1].data());
  CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(total), 0, 32));
  CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, parts_.data(), offs_.data(), static_cast<int>(slots)));
  CUZK_CUDA_TRY(cub::DeviceReduce::Max(nullptr, max_bytes, parts_.data(), misc_.data(), static_cast<int>(slots)));
  CUZK_TRY(grow(temp_, std::max({sort_bytes, scan_bytes, max_bytes, std::size_t{1}})));
  return status::ok();
}

template <class Curve>
result<typename msm_g1<Curve>::point> msm_g1<Curve>::run(const scalar_repr* scalars, std::size_t count,
                                                          msm_timing* timing, cudaStream_t stream) {
  using namespace msm_detail;
  using A = typename device_types<Curve>::affine;
  using X = typename device_types<Curve>::xyzz;
  using HX = g1_xyzz<Curve>;
  static_assert(sizeof(X) == sizeof(HX) && sizeof(scalar_repr) == 32);
  if (count > n_) return status(errc::invalid_argument, "gpu::msm_g1::run: more scalars than resident points");
  if (count == 0) return point::infinity();
  if (scalars == nullptr) return status(errc::invalid_argument, "gpu::msm_g1::run: null scalars");

  const unsigned bits = Curve::fr::bits;
  const unsigned c = msm_window_bits(count, bits);
  const unsigned windows = (bits + 1 + c - 1) / c;
  const std::size_t total = count * windows;
  if (total >= (std::size_t{1} << 31)) return status(errc::invalid_argument, "gpu::msm_g1::run: too many digits");
  const uint32_t slots = windows << c;
  const uint32_t bucket_mask = (1u << c) - 1;
  const uint32_t mean = static_cast<uint32_t>((count + (std::size_t{1} << (c - 1)) - 1) >> (c - 1));
  const uint32_t part = std::max<uint32_t>(32, 2 * mean);
  // Items: at most one per occupied slot plus one per `part` points.
  const std::size_t items_cap = std::min<std::size_t>(slots, total) + total / part + 1;
  CUZK_TRY(reserve(count, c, windows, items_cap));

  phase_timer tm;
  CUZK_TRY(tm.init(timing != nullptr, 9));
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
  parts_kernel<<<grid(slots, T), T, 0, stream>>>(start_.data(), end_.data(), slots, bucket_mask, part, parts_.data());
  CUZK_CUDA_TRY(cudaGetLastError());
  temp_bytes = temp_.size();
  CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, parts_.data(), offs_.data(),
                                              static_cast<int>(slots), stream));
  temp_bytes = temp_.size();
  CUZK_CUDA_TRY(cub::DeviceReduce::Max(temp_.data(), temp_bytes, parts_.data(), misc_.data() + 2,
                                       static_cast<int>(slots), stream));
  CUZK_CUDA_TRY(cudaMemcpyAsync(misc_.data(), offs_.data() + slots - 1, sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                stream));
  CUZK_CUDA_TRY(cudaMemcpyAsync(misc_.data() + 1, parts_.data() + slots - 1, sizeof(uint32_t),
                                cudaMemcpyDeviceToDevice, stream));
  uint32_t plan[3];
  CUZK_CUDA_TRY(cudaMemcpyAsync(plan, misc_.data(), sizeof plan, cudaMemcpyDeviceToHost, stream));
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  const uint32_t items = plan[0] + plan[1];
  const uint32_t max_parts = plan[2];
  if (items > items_cap) return status(errc::internal, "gpu::msm_g1::run: work items exceed their bound");
  items_kernel<<<grid(slots, T), T, 0, stream>>>(parts_.data(), offs_.data(), slots, item_slot_.data());
  CUZK_CUDA_TRY(cudaGetLastError());
  CUZK_TRY(tm.mark(4, stream));

  X* partial = reinterpret_cast<X*>(partial_.data());
  if (items != 0) {
    constexpr unsigned TA = 128;
    accumulate_kernel<A, X><<<grid(items, TA), TA, 0, stream>>>(reinterpret_cast<const A*>(points_.data()), vals,
                                                              item_slot_.data(), start_.data(), end_.data(),
                                                              offs_.data(), part, items, partial);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  CUZK_TRY(tm.mark(5, stream));
  for (unsigned r = 0; (1u << r) < max_parts; ++r) {
    merge_kernel<X><<<grid(items, 128), 128, 0, stream>>>(partial, item_slot_.data(), offs_.data(),
                                                                    parts_.data(), items, r);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  CUZK_TRY(tm.mark(6, stream));

  // Bucket sums are partial[offs[slot]] where parts[slot] != 0.
  const unsigned log_seg = std::min(4u, c - 1);
  const uint32_t segs = (1u << (c - 1)) >> log_seg;
  X* sa = reinterpret_cast<X*>(seg_a_.data());
  X* sb = reinterpret_cast<X*>(seg_b_.data());
  constexpr unsigned TR = 64;
  segment_kernel<X><<<grid(std::size_t{segs} * windows, TR), TR, 0, stream>>>(
      partial, offs_.data(), parts_.data(), c, log_seg, segs, segs * windows, sa);
  CUZK_CUDA_TRY(cudaGetLastError());
  uint32_t len = segs;
  constexpr uint32_t group = 8;
  while (len > 1) {
    const uint32_t out_len = (len + group - 1) / group;
    group_sum_kernel<X><<<grid(std::size_t{out_len} * windows, TR), TR, 0, stream>>>(sa, len, group, out_len,
                                                                                    windows, sb);
    CUZK_CUDA_TRY(cudaGetLastError());
    std::swap(sa, sb);
    len = out_len;
  }
  std::vector<HX> window_sums(windows);
  CUZK_CUDA_TRY(cudaMemcpyAsync(window_sums.data(), sa, windows * sizeof(HX), cudaMemcpyDeviceToHost, stream));
  CUZK_TRY(tm.mark(7, stream));
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));

  HX acc = window_sums[windows - 1];
  for (unsigned w = windows - 1; w-- > 0;) {
    for (unsigned d = 0; d < c; ++d) acc = acc.dbl();
    acc += window_sums[w];
  }
  CUZK_TRY(tm.mark(8, stream));

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
    CUZK_TRY(get(5, 6, timing->merge_ms));
    CUZK_TRY(get(6, 7, timing->reduce_ms));
    CUZK_TRY(get(0, 8, timing->total_ms));
    timing->window_bits = c;
    timing->windows = windows;
  }
  return acc.to_jacobian();
}

}  // namespace cuzk::gpu
