// SPDX-License-Identifier: MIT OR Apache-2.0
// Kernels and host code behind msm.hpp, as templates over the group; included (through
// msm_impl.cuh, with the accumulation's host drivers) only by msm_<group>_<curve>.cu, which hold
// the explicit instantiations.
//
// The steps, for n points, c-bit windows and W = ceil((bits + 1) / c) windows:
// Steps 1-3 run per chunk (a range of points, msm.hpp) on the prep stream, after that chunk's
// scalars arrived (copy stream); step 4 runs on the caller's stream, chunk after chunk, each
// waiting only for its own prep; steps 5-6 once.
//  1. digits: each thread turns one scalar into W signed digits d in (-2^(c-1), 2^(c-1)] (a digit
//     above 2^(c-1) becomes d - 2^c with a carry into the next window; the top window needs no
//     carry because bits <= W c - 1), and writes per window the sort key (window << c) | |d| and
//     the value (point index | sign << 31). Digit 0 lands in bucket 0, which nothing reads.
//  2. sort: one CUB radix sort of the chunk's W n (key, value) pairs on c + log2(W) key bits, so
//     each bucket's points become one contiguous run.
//  3. plan: run boundaries per bucket slot (xyzz: and the work items per slot, msm_xyzz.cuh).
//  4. accumulate (msm_accumulate_run.cuh): rounds of pairwise affine additions with batched
//     inversions until every bucket is one affine point, for a group of windows at a time so that
//     the round buffers stay within scratch_target_bytes; or, where that is faster (G1 of BN254,
//     small BLS12-381 G1), per-thread XYZZ runs merged pairwise (msm_xyzz.cuh), each chunk adding
//     into the bucket sums the previous chunks left.
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
#include "gpu/device_arena.hpp"
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
// holds about half the group's W n digits as affine points). A quarter of it for streamed G2 made
// its MSM 1.34x slower (more groups, more rounds, each with a host sync: docs/gpu/msm.md, 'One
// scratch for a proof'); a budget shrinks it through smaller ranges instead.
constexpr std::size_t scratch_target_bytes = std::size_t{8} << 30;

inline unsigned grid(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// Step 1, for the chunk of points [i0, i0 + n): scalars[j] is point i0 + j's; key and value of
// window w go to position w n + j of the chunk's slice. Scalars are 8 little-endian 32-bit words
// (canonical Fr integers of 4 64-bit limbs).
static __global__ void digits_kernel(const uint4* __restrict__ scalars, uint32_t n, uint32_t i0, unsigned c,
                                     unsigned windows, uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
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
    vals[o] = (i0 + i) | (neg << 31);
  }
}

// Step 3a: first and one-past-last sorted position (within the chunk's slice) of every occupied
// bucket slot.
static __global__ void bounds_kernel(const uint32_t* __restrict__ keys, uint32_t total, uint32_t* __restrict__ start,
                                     uint32_t* __restrict__ end) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= total) return;
  const uint32_t k = keys[p];
  if (p == 0 || keys[p - 1] != k) start[k] = p;
  if (p + 1 == total || keys[p + 1] != k) end[k] = p + 1;
}

// Streamed G2 (msm.hpp): one range's affine bucket sums added into the XYZZ buckets of the run.
template <class A, class X>
__global__ void absorb_kernel(const A* __restrict__ sums, std::size_t n, X* __restrict__ acc) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  acc[i] = acc[i] + load_vec(sums + i);
}

// Timing events, created only when a caller asks for timings; mark(i) records event i.
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
  bool on() const { return on_; }
  status mark(unsigned i, cudaStream_t s) { return on_ ? ev_[i].record(s) : status::ok(); }
  // Adds the milliseconds from event a to event b to f.
  status add(unsigned a, unsigned b, float& f) const {
    if (!on_) return status::ok();
    auto ms = cuda_event::elapsed_ms(ev_[a], ev_[b]);
    if (!ms) return ms.error();
    f += *ms;
    return status::ok();
  }

 private:
  bool on_ = false;
  std::vector<cuda_event> ev_;
};

// Point ranges for the XYZZ accumulation when the caller did not choose. Each range after the
// first costs one more addition per occupied bucket (its first item starts from the bucket's sum
// instead of from a free first point: ~3% of the additions at 2^24), and sorting a later range
// shares the GPU with the additions rather than hiding behind them; what a range buys is that
// the copy of the next one runs on the copy engine meanwhile. So two ranges, the first small
// (chunk_bound): docs/gpu/msm.md, 'Point ranges', has the measurements (1, 2 and 4 equal ranges, then
// 2 and 3 growing).
inline unsigned default_chunks(std::size_t count) { return count >= (std::size_t{1} << 20) ? 2 : 1; }

// The first point of range k of `chunks` (k = chunks gives count): sizes grow `ratio` times per
// range, about the ratio of the accumulation's time per point to the copy's, so that range k's
// additions last about as long as range k + 1's copy. Measured at 2^24 on the H200: 4.0 for BN254
// (38.4 ms against 9.7 ms), 8.8 for BLS12-381 (85.7 against 9.7), i.e. the (words / 8)^2 of the
// products; for two ranges, 1/5 and 4/5 of the points (BN254), 1/10 and 9/10 (BLS12-381).
inline double chunk_ratio(std::size_t field_bytes) {
  const double words = static_cast<double>(field_bytes) / 4;
  return 4.0 * (words / 8) * (words / 8);
}
inline std::size_t chunk_bound(std::size_t count, unsigned k, unsigned chunks, double ratio) {
  if (k >= chunks) return count;
  double below = 0, all = 0, w = 1;
  for (unsigned j = 0; j < chunks; ++j, w *= ratio) {
    if (j < k) below += w;
    all += w;
  }
  return static_cast<std::size_t>(static_cast<double>(count) * (below / all));
}

}  // namespace msm_detail


template <class Group>
result<device_msm<Group>> device_msm<Group>::create(const affine* host_points, std::size_t n, cudaStream_t stream,
                                                   counting_arena* points_from) {
  using A = typename msm_detail::device_types<Group>::affine;
  static_assert(sizeof(A) == sizeof(affine), "device and host affine points must share a layout");
  if (n >= (std::size_t{1} << 31)) return status(errc::invalid_argument, "gpu::device_msm: more than 2^31 - 1 points");
  if (n != 0 && host_points == nullptr) return status(errc::invalid_argument, "gpu::device_msm: null points");
  device_msm m;
  m.n_ = n;
  auto pts = allocate_in<affine>(points_from, n);
  if (!pts) return pts.error();
  m.points_ = std::move(*pts);
  if (n != 0) {
    CUZK_CUDA_TRY(cudaMemcpyAsync(m.points_.data(), host_points, n * sizeof(affine), cudaMemcpyHostToDevice, stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  return result<device_msm>(std::move(m));
}

template <class Group>
result<device_msm<Group>> device_msm<Group>::create_streamed(const affine* host_points, std::size_t n,
                                                            std::size_t chunk_points) {
  if (n != 0 && host_points == nullptr)
    return status(errc::invalid_argument, "gpu::device_msm::create_streamed: null points");
  if (chunk_points == 0) chunk_points = default_chunk_points;
  if (chunk_points > max_chunk_points)
    return status(errc::invalid_argument, "gpu::device_msm::create_streamed: ranges of " +
                                              std::to_string(chunk_points) + " points, over the 2^26 whose two "
                                              "slices of digits 32-bit indices can address");
  device_msm m;
  m.n_ = n;
  m.streamed_ = true;
  m.host_points_ = host_points;
  m.chunk_points_ = chunk_points;
  return result<device_msm>(std::move(m));
}

template <class Group>
bool device_msm<Group>::uses_affine(std::size_t count, msm_accumulation a, bool streamed,
                                    double zero_one_share) {
  constexpr bool g1 = std::is_same_v<typename Group::field, typename Group::curve::fq>;
  // An explicit choice holds for both groups (the XYZZ kernels are templates over the field).
  if (a != msm_accumulation::automatic) return a == msm_accumulation::affine;
  // H200 (docs/gpu/msm.md): with its work items sorted by length, XYZZ is faster for G1 of both curves at
  // every size measured (2^16 to 2^24). G2's choice is a plain function, so that the measured rule
  // lives in one small unit (msm_window.cpp) rather than in the four kernel units.
  constexpr unsigned fq_limbs = Group::curve::fq::repr::num_limbs;
  if (!g1) return !msm_g2_prefers_xyzz(count, streamed, fq_limbs, zero_one_share);
  return false;
}

template <class Group>
unsigned device_msm<Group>::chunks_for(std::size_t count, bool on_device, unsigned chosen) {
  // Scalars already on the device leave no copy to hide: one range (docs/gpu/msm.md, 2^24: 49.5 against
  // 51.2 ms on BN254, 103.2 against 105.2 ms on BLS12-381).
  const unsigned k = chosen != 0 ? chosen : on_device ? 1 : msm_detail::default_chunks(count);
  return static_cast<unsigned>(std::clamp<std::size_t>(k, 1, std::min<std::size_t>(count, 64)));
}

template <class Group>
result<typename device_msm<Group>::run_shape> device_msm<Group>::shape_of(const shape_inputs& in) {
  using namespace msm_detail;
  run_shape sh;
  const std::size_t count = in.count;
  const unsigned bits = Group::scalar::bits;
  sh.on_device = in.on_device;
  sh.stream_points = in.streamed;
  sh.affine_path = uses_affine(count, in.accumulation, in.streamed, in.zero_one_share);
  // Ranges "in turns": fixed ranges that take turns on two slices of the scratch, for streamed
  // points, and for resident ones too many to index all their digits with 32 bits (BN254 at
  // 2^28). Affine ranges reduce their own buckets into the run's XYZZ ones, so their window
  // suits one range. Streamed G1 ranges share the run's buckets, with the window of
  // streamed_window_ranges ranges, so that buckets, slot tables and work items shrink with the
  // range as the rest of the scratch does (msm.hpp); resident G1 ranges take a capped one.
  // Streamed G2 takes one range's window with either accumulation: its XYZZ runs are chosen per
  // proof inside an arena sized for the affine rounds (run_device_batch's zero_one_share), and
  // with the same window their buckets are the same size, so they fit (a wider window's bucket
  // sets, 384 bytes a bucket, one per scalar set of a batch, would not).
  const std::size_t range = in.streamed              ? in.chunk_points
                            : in.resident_range != 0 ? in.resident_range
                                                     : resident_range_points;
  const unsigned c_whole = msm_window_bits(count, bits);
  sh.in_turns = in.streamed || in.resident_range != 0 ||
                count * ((bits + c_whole) / c_whole) >= (std::size_t{1} << 31);
  constexpr bool g1 = std::is_same_v<typename Group::field, typename Group::curve::fq>;
  sh.c = !sh.in_turns                               ? c_whole
         : sh.affine_path || (in.streamed && !g1) ? msm_window_bits(std::min(count, range), bits)
         : in.streamed    ? msm_window_bits(std::min(count, range * streamed_window_ranges), bits)
                          : std::min(c_whole, resident_ranges_max_window_bits);
  const unsigned c = sh.c;
  sh.windows = (bits + 1 + c - 1) / c;
  sh.slots = sh.windows << c;

  // Point ranges: in turns, fixed ones of `range` points; otherwise ranges growing by chunk_ratio
  // each (msm_detail::chunk_bound), empty ones dropped.
  if (sh.in_turns) {
    for (std::size_t i0 = 0; i0 < count; i0 += range) {
      chunk x;
      x.i0 = i0;
      x.n = std::min(range, count - i0);
      sh.ch.push_back(x);
    }
  } else {
    const unsigned want_chunks = sh.affine_path ? 1 : chunks_for(count, in.on_device, in.chunks);
    const double ratio = chunk_ratio(sizeof(typename Group::field));
    for (unsigned k = 0; k < want_chunks; ++k) {
      const std::size_t i0 = chunk_bound(count, k, want_chunks, ratio);
      const std::size_t i1 = chunk_bound(count, k + 1, want_chunks, ratio);
      if (i1 == i0) continue;
      chunk x;
      x.i0 = i0;
      x.n = i1 - i0;
      sh.ch.push_back(x);
    }
  }
  for (unsigned k = 0; k < sh.ch.size(); ++k) sh.ch[k].range = k;
  sh.ranges = static_cast<unsigned>(sh.ch.size());
  // A batch of sets (in turns only: run_sets runs the others one set after another): a chunk per
  // range and set, range-major, so that each range's points are on the device for all its sets.
  sh.sets = sh.in_turns ? std::max(in.sets, 1u) : 1u;
  if (sh.sets > 1) {
    std::vector<chunk> units;
    for (const chunk& r : sh.ch)
      for (unsigned p = 0; p < sh.sets; ++p) {
        chunk u = r;
        u.set = p;
        u.last_of_range = p + 1 == sh.sets;
        units.push_back(u);
      }
    sh.ch = std::move(units);
  }
  sh.chunks = static_cast<unsigned>(sh.ch.size());
  // Ranges in turns share two slices of the scratch; the others each have their own.
  sh.slices = sh.in_turns ? std::min(sh.chunks, 2u) : sh.chunks;
  for (unsigned k = 0; k < sh.chunks; ++k) {
    chunk& x = sh.ch[k];
    x.slice = sh.in_turns ? k % 2 : k;
    // XYZZ work items: at most one per occupied slot plus one per `part` points.
    const std::size_t digits = x.n * sh.windows;
    const uint32_t mean = static_cast<uint32_t>((x.n + (std::size_t{1} << (c - 1)) - 1) >> (c - 1));
    x.part = std::max<uint32_t>(32, 2 * mean);
    x.items_cap = std::min<std::size_t>(sh.slots, digits) + digits / x.part + 1;
    sh.items_cap = std::max(sh.items_cap, x.items_cap);
    sh.chunk_n = std::max(sh.chunk_n, x.n);
  }
  // The digits of one slice (in turns) or of all points are indexed by 32 bits.
  sh.digits_total = (sh.in_turns ? sh.slices * sh.chunk_n : count) * sh.windows;
  if (sh.digits_total >= (std::size_t{1} << 31))
    return status(errc::invalid_argument, "gpu::device_msm::run: " + std::to_string(sh.digits_total) +
                                              " digits, over 2^31 - 1: stream the points in smaller ranges");
  sh.group_windows = static_cast<unsigned>(
      std::clamp<std::size_t>(scratch_target_bytes / (sh.chunk_n * sizeof(affine)), 1, sh.windows));
  sh.scalar_room = in.on_device ? 0 : sh.in_turns ? sh.slices * sh.chunk_n : count;
  return sh;
}

template <class Group>
status device_msm<Group>::layout(const run_shape& sh, carver& cut) {
  const unsigned c = sh.c, windows = sh.windows;
  const std::size_t slots = sh.slots, slices = sh.slices, chunk_n = sh.chunk_n, items_cap = sh.items_cap;
  for (auto* b : {&keys_[0], &keys_[1], &vals_[0], &vals_[1]}) cut.take(*b, sh.digits_total);
  for (auto* b : {&start_, &end_}) cut.take(*b, slices * slots);
  for (unsigned k = 0; k < 2; ++k) cut.take(stage_[k], sh.stream_points && k < sh.ranges ? chunk_n : 0);
  cut.take(scalars_, sh.scalar_room);
  const std::size_t n_buckets = std::size_t{windows} << (c - 1);
  if (sh.affine_path) {
    for (auto* b : {&cnt_[0], &cnt_[1], &off_[0], &off_[1]}) cut.take(*b, slots);
    // Round 0 of a group writes sum ceil(m_k / 2) <= (digits + occupied buckets) / 2 entries;
    // each later round at most 3/4 of its input (every live bucket has >= 2 entries).
    const std::size_t gn = chunk_n * sh.group_windows;
    const std::size_t cap0 = (gn + std::min(gn, std::size_t{sh.group_windows} << c)) / 2 + 1;
    const std::size_t cap1 = cap0 * 3 / 4 + 1;
    cut.take(buf_[0], cap0);
    cut.take(okey_[0], cap0);
    cut.take(buf_[1], cap1);
    cut.take(okey_[1], cap1);
    cut.take(prefix_, cap0 + 64);
    cut.take(totals_, cap0 / 4 + 2);
    cut.take(bucket_, n_buckets);
    // Ranges in turns add their affine buckets into XYZZ ones, a set of them per scalar set.
    cut.take(bucket_x_, sh.in_turns ? n_buckets * sh.sets : 0);
    for (auto* b : {&parts_, &offs_, &item_slot_, &item_len_[0], &item_len_[1], &item_ord_[0], &item_ord_[1]})
      cut.take(*b, 0);
    cut.take(partial_, 0);
  } else {
    for (auto* b : {&parts_, &offs_}) cut.take(*b, slices * slots);
    for (auto* b : {&item_slot_, &item_len_[0], &item_len_[1], &item_ord_[0], &item_ord_[1]})
      cut.take(*b, items_cap);
    cut.take(partial_, items_cap);
    cut.take(bucket_x_, n_buckets * sh.sets);
    for (auto* b : {&cnt_[0], &cnt_[1], &off_[0], &off_[1], &okey_[0], &okey_[1]}) cut.take(*b, 0);
    for (auto* b : {&buf_[0], &buf_[1], &bucket_}) cut.take(*b, 0);
    cut.take(prefix_, 0);
    cut.take(totals_, 0);
  }
  const std::size_t segs0 = ((std::size_t{1} << (c - 1)) + msm_detail::segment - 1) / msm_detail::segment;
  cut.take(red_, 4 * segs0 * windows + 64 * windows);
  cut.take(misc_, 3 * std::size_t{sh.chunks});

  // CUB scratch: the prep stream sorts a chunk's digits and scans its slots; the caller's stream
  // scans slots (affine rounds) and sorts work items (xyzz). The size queries read no data, so
  // they run on views without a base too.
  const std::size_t chunk_total = chunk_n * windows;
  std::size_t sort_bytes = 0, scan_bytes = 0, max_bytes = 0, item_bytes = 0;
  cub::DoubleBuffer<uint32_t> k(keys_[0].data(), keys_[1].data()), v(vals_[0].data(), vals_[1].data());
  CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(chunk_total), 0, 32));
  CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, start_.data(), end_.data(), static_cast<int>(slots)));
  CUZK_CUDA_TRY(cub::DeviceReduce::Max(nullptr, max_bytes, start_.data(), misc_.data(), static_cast<int>(slots)));
  if (!sh.affine_path) {
    cub::DoubleBuffer<uint32_t> lk(item_len_[0].data(), item_len_[1].data());
    cub::DoubleBuffer<uint32_t> lv(item_ord_[0].data(), item_ord_[1].data());
    CUZK_CUDA_TRY(
        cub::DeviceRadixSort::SortPairsDescending(nullptr, item_bytes, lk, lv, static_cast<int>(items_cap), 0, 32));
  }
  cut.take(temp_, std::max({sort_bytes, scan_bytes, max_bytes, std::size_t{1}}));
  cut.take(temp_c_, std::max({scan_bytes, max_bytes, item_bytes, std::size_t{1}}));
  return status::ok();
}

template <class Group>
std::size_t device_msm<Group>::scratch_bytes(std::size_t count, std::size_t chunk_points, msm_accumulation a,
                                             unsigned sets) {
  if (count == 0) return 0;
  shape_inputs in;
  in.sets = sets;
  in.count = count;
  in.on_device = true;
  in.streamed = chunk_points != 0;
  in.chunk_points = chunk_points;
  in.accumulation = a;
  auto sh = shape_of(in);
  // A shape the run would refuse (too many digits) needs no scratch: the run fails first.
  if (!sh) return 0;
  device_msm counter;
  carver cut;
  // The size queries fail only without a device, where nothing is allocated anyway; the views'
  // bytes are counted all the same.
  (void)counter.layout(*sh, cut);
  return cut.used();
}

template <class Group>
status device_msm<Group>::ensure_streams(unsigned chunks, cudaStream_t caller) {
  if (copy_stream_.get() == nullptr) {
    auto s = cuda_stream::create();
    if (!s) return s.error();
    copy_stream_ = std::move(*s);
  }
  // The prep runs at the caller's priority (the proof's witness MSMs run at a higher one than its
  // H MSM, gpu_workspace.hpp), made once, by the first run.
  if (prep_stream_.get() == nullptr) {
    auto priority = cuda_stream::priority_of(caller);
    if (!priority) return priority.error();
    auto s = cuda_stream::create(*priority);
    if (!s) return s.error();
    prep_stream_ = std::move(*s);
  }
  for (auto* one : {&entry_, &consumed_[0], &consumed_[1], &stage_consumed_[0], &stage_consumed_[1]}) {
    if (one->get() != nullptr) continue;
    auto e = cuda_event::create();
    if (!e) return e.error();
    *one = std::move(*e);
  }
  for (auto* evs : {&copied_, &prepped_}) {
    while (evs->size() < chunks) {
      auto e = cuda_event::create();
      if (!e) return e.error();
      evs->push_back(std::move(*e));
    }
  }
  return status::ok();
}

template <class Group>
result<typename device_msm<Group>::point> device_msm<Group>::run(const scalar_repr* scalars, std::size_t count,
                                                                  msm_timing* timing, cudaStream_t stream,
                                                                  device_arena* scratch) {
  return run_impl(scalars, false, count, timing, stream, scratch);
}

template <class Group>
result<typename device_msm<Group>::point> device_msm<Group>::run_device(const scalar_repr* scalars,
                                                                         std::size_t count, msm_timing* timing,
                                                                         cudaStream_t stream,
                                                                         device_arena* scratch) {
  return run_impl(scalars, true, count, timing, stream, scratch);
}

template <class Group>
result<typename device_msm<Group>::point> device_msm<Group>::run_impl(const scalar_repr* scalars, bool on_device,
                                                                       std::size_t count, msm_timing* timing,
                                                                       cudaStream_t stream, device_arena* scratch) {
  if (count > n_) return status(errc::invalid_argument, "gpu::device_msm::run: more scalars than points");
  if (count == 0) return point::infinity();
  if (scalars == nullptr) return status(errc::invalid_argument, "gpu::device_msm::run: null scalars");
  point sum{};
  CUZK_TRY(run_sets(std::span<const scalar_repr* const>(&scalars, 1), on_device, count, std::span<point>(&sum, 1),
                    timing, stream, scratch));
  return sum;
}

template <class Group>
status device_msm<Group>::run_device_batch(std::span<const scalar_repr* const> sets, std::size_t count,
                                           std::span<point> out, cudaStream_t stream, device_arena* scratch,
                                           double zero_one_share) {
  if (out.size() != sets.size())
    return status(errc::invalid_argument, "gpu::device_msm::run_device_batch: " + std::to_string(sets.size()) +
                                              " scalar sets, " + std::to_string(out.size()) + " results");
  if (count > n_) return status(errc::invalid_argument, "gpu::device_msm::run: more scalars than points");
  for (const scalar_repr* set : sets)
    if (set == nullptr && count != 0) return status(errc::invalid_argument, "gpu::device_msm::run: null scalars");
  if (count == 0 || sets.empty()) {
    for (point& p : out) p = point::infinity();
    return status::ok();
  }
  return run_sets(sets, true, count, out, nullptr, stream, scratch, zero_one_share);
}

template <class Group>
status device_msm<Group>::run_sets(std::span<const scalar_repr* const> sets, bool on_device, std::size_t count,
                                   std::span<point> out, msm_timing* timing, cudaStream_t stream,
                                   device_arena* scratch, double zero_one_share) {
  using namespace msm_detail;
  using F = typename device_types<Group>::field;
  using A = typename device_types<Group>::affine;
  using X = typename device_types<Group>::xyzz;
  static_assert(sizeof(X) == sizeof(xyzz) && sizeof(F) == sizeof(typename Group::field) && sizeof(scalar_repr) == 32);

  shape_inputs in;
  in.count = count;
  in.on_device = on_device;
  in.streamed = streamed();
  in.chunk_points = chunk_points_;
  in.resident_range = resident_range_;
  in.accumulation = accumulation_;
  in.zero_one_share = zero_one_share;
  in.chunks = chunks_;
  in.sets = static_cast<unsigned>(sets.size());
  // Where the scalars' share of 0 and 1 changes the choice, the change holds only if its scratch
  // fits the caller's arena as it is (sized for the choice without it, perhaps for a budget).
  if (scratch != nullptr && zero_one_share > 0 &&
      uses_affine(count, in.accumulation, in.streamed, zero_one_share) !=
          uses_affine(count, in.accumulation, in.streamed)) {
    auto hinted = shape_of(in);
    if (!hinted) return hinted.error();
    carver count_only;
    CUZK_TRY(layout(*hinted, count_only));
    if (count_only.used() > scratch->capacity()) in.zero_one_share = 0;
  }
  auto shaped = shape_of(in);
  if (!shaped) return shaped.error();
  run_shape& sh = *shaped;
  // Without ranges in turns a batch gains nothing (no copy to share): one set after another.
  if (sh.sets < sets.size()) {
    for (std::size_t p = 0; p < sets.size(); ++p)
      CUZK_TRY(run_sets(sets.subspan(p, 1), on_device, count, out.subspan(p, 1), p == 0 ? timing : nullptr, stream,
                        scratch, in.zero_one_share));
    return status::ok();
  }
  const bool stream_points = sh.stream_points, affine_path = sh.affine_path, in_turns = sh.in_turns;
  const unsigned c = sh.c, windows = sh.windows, chunks = sh.chunks, group_windows = sh.group_windows;
  const uint32_t slots = sh.slots;
  const std::size_t chunk_n = sh.chunk_n;
  std::vector<chunk>& ch = sh.ch;

  // The scratch: counted, the arena grown to it where it holds less, then laid out in it.
  device_arena& arena = scratch != nullptr ? *scratch : own_scratch_;
  {
    carver count_only;
    CUZK_TRY(layout(sh, count_only));
    CUZK_TRY(arena.reserve(count_only.used()));
    carver cut(arena.base());
    CUZK_TRY(layout(sh, cut));
  }
  if (plan_host_.size() < 3 * std::size_t{chunks}) {
    plan_host_ = {};
    auto h = pinned_buffer<uint32_t>::create(3 * std::size_t{chunks});
    if (!h) return h.error();
    plan_host_ = std::move(*h);
  }
  for (chunk& x : ch) {
    x.points = stream_points ? stage_[x.range % 2].data() : points_.data();
    x.index_base = stream_points ? 0 : static_cast<uint32_t>(x.i0);
    x.scalars = on_device  ? sets[x.set] + x.i0
                : in_turns ? scalars_.data() + x.slice * chunk_n
                           : scalars_.data() + x.i0;
  }
  CUZK_TRY(ensure_streams(chunks, stream));
  const cudaStream_t cs = copy_stream_.get(), ps = prep_stream_.get();
  // An error once work is queued returns only after that work has ended: the copies read the
  // caller's host scalars and points, and the next run reuses the stages and the arena.
  struct drain_on_error {
    cudaStream_t streams[3];
    bool armed = true;
    ~drain_on_error() {
      if (armed)
        for (cudaStream_t s : streams) (void)cudaStreamSynchronize(s);
    }
  } drain{{cs, ps, stream}};

  // Events: 0 entry; per chunk k from 1 + 6k: copy start (after its slice's wait), copy end, prep
  // start, digits end, sort end, plan end; then accumulate start, accumulate end, reduce end,
  // result on the host.
  phase_timer tm;
  CUZK_TRY(tm.init(timing != nullptr, 6 * chunks + 5));
  auto ev = [](unsigned k, unsigned i) { return 1 + 6 * k + i; };
  const unsigned ev_acc0 = 1 + 6 * chunks, ev_acc1 = ev_acc0 + 1, ev_red = ev_acc0 + 2, ev_end = ev_acc0 + 3;
  constexpr unsigned T = 256;

  // The prep stream starts from the caller's stream as it is now (device scalars may be written
  // there), and so does the copy stream where it copies host scalars (work queued there may write
  // them). Where it copies only streamed points it does not wait: they are the key's, unchanging,
  // and go into this run's stage slices, which no earlier run still reads (every run on an arena
  // returns only once its work has ended, below). So a proof's H MSM has its first two ranges of
  // points cross while the NTTs ahead of it on its stream still run, rather than after them.
  CUZK_TRY(tm.mark(0, stream));
  CUZK_TRY(entry_.record(stream));
  if (!on_device) CUZK_CUDA_TRY(cudaStreamWaitEvent(cs, entry_.get(), 0));
  CUZK_CUDA_TRY(cudaStreamWaitEvent(ps, entry_.get(), 0));

  // Chunk k's points (streamed: with the first set of its range) and scalars (from the host) to
  // the device, once the chunks that used their slices before are accumulated: the stage slice's
  // range two back (all its sets), the scalar slice's chunk two back.
  auto queue_copy = [&](unsigned k) -> status {
    const chunk& x = ch[k];
    const bool copies_points = stream_points && x.set == 0;
    if (copies_points && x.range >= 2)
      CUZK_CUDA_TRY(cudaStreamWaitEvent(cs, stage_consumed_[x.range % 2].get(), 0));
    if (!on_device && in_turns && k >= 2) CUZK_CUDA_TRY(cudaStreamWaitEvent(cs, consumed_[x.slice].get(), 0));
    CUZK_TRY(tm.mark(ev(k, 0), cs));
    if (copies_points)
      CUZK_CUDA_TRY(cudaMemcpyAsync(stage_[x.range % 2].data(), host_points_ + x.i0, x.n * sizeof(affine),
                                    cudaMemcpyHostToDevice, cs));
    if (!on_device) {
      scalar_repr* to = scalars_.data() + (in_turns ? x.slice * chunk_n : x.i0);
      CUZK_CUDA_TRY(
          cudaMemcpyAsync(to, sets[x.set] + x.i0, x.n * sizeof(scalar_repr), cudaMemcpyHostToDevice, cs));
    }
    CUZK_TRY(tm.mark(ev(k, 1), cs));
    return copied_[k].record(cs);
  };
  // Chunk k's digits, sort and plan (steps 1-3) on the prep stream, after its copy.
  auto queue_prep = [&](unsigned k) -> status {
    chunk& x = ch[k];
    CUZK_CUDA_TRY(cudaStreamWaitEvent(ps, copied_[k].get(), 0));
    // Its slice of the digits and slot tables, once the chunk two back is accumulated (the copy's
    // wait covers this where the chunk copies into that slice too).
    if (in_turns && k >= 2) CUZK_CUDA_TRY(cudaStreamWaitEvent(ps, consumed_[x.slice].get(), 0));
    CUZK_TRY(tm.mark(ev(k, 2), ps));
    // The chunk's slice of the digit arrays.
    const std::size_t base = (in_turns ? x.slice * chunk_n : x.i0) * windows;
    const std::size_t n_digits = x.n * windows;
    digits_kernel<<<grid(x.n, T), T, 0, ps>>>(reinterpret_cast<const uint4*>(x.scalars), static_cast<uint32_t>(x.n),
                                              x.index_base, c, windows, keys_[0].data() + base,
                                              vals_[0].data() + base);
    CUZK_CUDA_TRY(cudaGetLastError());
    CUZK_TRY(tm.mark(ev(k, 3), ps));
    cub::DoubleBuffer<uint32_t> kb(keys_[0].data() + base, keys_[1].data() + base);
    cub::DoubleBuffer<uint32_t> vb(vals_[0].data() + base, vals_[1].data() + base);
    std::size_t temp_bytes = temp_.size();
    const int end_bit = static_cast<int>(c + std::bit_width(windows - 1));
    CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, kb, vb, static_cast<int>(n_digits), 0,
                                                  end_bit, ps));
    x.keys = kb.Current();
    x.vals = vb.Current();
    CUZK_TRY(tm.mark(ev(k, 4), ps));
    uint32_t* st = start_.data() + std::size_t{x.slice} * slots;
    uint32_t* en = end_.data() + std::size_t{x.slice} * slots;
    CUZK_CUDA_TRY(cudaMemsetAsync(st, 0, slots * sizeof(uint32_t), ps));
    CUZK_CUDA_TRY(cudaMemsetAsync(en, 0, slots * sizeof(uint32_t), ps));
    bounds_kernel<<<grid(n_digits, T), T, 0, ps>>>(x.keys, static_cast<uint32_t>(n_digits), st, en);
    CUZK_CUDA_TRY(cudaGetLastError());
    if (!affine_path) CUZK_TRY(plan_xyzz(k, c, slots, x, ps));
    CUZK_TRY(tm.mark(ev(k, 5), ps));
    return prepped_[k].record(ps);
  };
  // Ranges in turns are queued two ahead (their slices' turn), the others all at once.
  const unsigned ahead = in_turns ? 2 : chunks;
  unsigned queued = 0;
  auto queue_until = [&](unsigned end) -> status {
    for (; queued < std::min(end, chunks); ++queued) {
      CUZK_TRY(queue_copy(queued));
      CUZK_TRY(queue_prep(queued));
    }
    return status::ok();
  };
  CUZK_TRY(queue_until(ahead));

  // Empty buckets stay all zero: (0, 0) is the affine infinity, ZZ = ZZZ = 0 the XYZZ one.
  const std::size_t n_buckets = std::size_t{windows} << (c - 1);
  const bool affine_buckets = affine_path && !in_turns;  // what the reduction reads
  if (affine_buckets)
    CUZK_CUDA_TRY(cudaMemsetAsync(bucket_.data(), 0, n_buckets * sizeof(affine), stream));
  else
    CUZK_CUDA_TRY(cudaMemsetAsync(bucket_x_.data(), 0, sh.sets * n_buckets * sizeof(xyzz), stream));
  unsigned rounds = 0;
  for (unsigned k = 0; k < chunks; ++k) {
    CUZK_CUDA_TRY(cudaStreamWaitEvent(stream, prepped_[k].get(), 0));
    if (k == 0) CUZK_TRY(tm.mark(ev_acc0, stream));
    if (affine_path) {
      if (in_turns) CUZK_CUDA_TRY(cudaMemsetAsync(bucket_.data(), 0, n_buckets * sizeof(affine), stream));
      CUZK_TRY(accumulate_affine(c, windows, group_windows, slots, ch[k], rounds, stream));
      if (in_turns) {
        absorb_kernel<A, X><<<grid(n_buckets, T), T, 0, stream>>>(
            reinterpret_cast<const A*>(bucket_.data()), n_buckets,
            reinterpret_cast<X*>(bucket_x_.data()) + std::size_t{ch[k].set} * n_buckets);
        CUZK_CUDA_TRY(cudaGetLastError());
      }
    } else {
      CUZK_TRY(accumulate_xyzz(k, c, slots, ch[k], rounds, stream));
    }
    if (in_turns) {
      CUZK_TRY(consumed_[ch[k].slice].record(stream));
      if (stream_points && ch[k].last_of_range) CUZK_TRY(stage_consumed_[ch[k].range % 2].record(stream));
      CUZK_TRY(queue_until(k + 1 + ahead));
    }
  }
  CUZK_TRY(tm.mark(ev_acc1, stream));

  // Each set's buckets reduced in turn (the reduction's scratch is one), its window sums queued
  // for the host.
  std::vector<std::vector<xyzz>> host_res(sh.sets);
  unsigned levels = 0;
  for (unsigned p = 0; p < sh.sets; ++p)
    CUZK_TRY(reduce(c, windows, affine_buckets, std::size_t{p} * n_buckets, host_res[p], levels, stream));
  CUZK_TRY(tm.mark(ev_red, stream));
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  for (unsigned p = 0; p < sh.sets; ++p) out[p] = combine_windows(host_res[p], levels, windows, c);
  CUZK_TRY(tm.mark(ev_end, stream));

  if (timing != nullptr) {
    *timing = {};
    for (unsigned k = 0; k < chunks; ++k) {
      CUZK_TRY(tm.add(ev(k, 0), ev(k, 1), timing->copy_ms));
      CUZK_TRY(tm.add(ev(k, 2), ev(k, 3), timing->digits_ms));
      CUZK_TRY(tm.add(ev(k, 3), ev(k, 4), timing->sort_ms));
      CUZK_TRY(tm.add(ev(k, 4), ev(k, 5), timing->plan_ms));
    }
    CUZK_TRY(tm.add(ev_acc0, ev_acc1, timing->accumulate_ms));
    CUZK_TRY(tm.add(ev_acc1, ev_red, timing->reduce_ms));
    CUZK_TRY(tm.add(0, ev_end, timing->total_ms));
    if (on_device && !stream_points) timing->copy_ms = 0;
    timing->streamed = stream_points;
    timing->window_bits = c;
    timing->windows = windows;
    timing->rounds = rounds;
    timing->chunks = chunks;
    timing->affine = affine_path;
  }
  drain.armed = false;  // the streams were synchronized above
  return status::ok();
}

// Step 5: levels of running sums over the bucket sums (XYZZ ones from `bucket_offset` on, a batch's
// set); the per-level window sums (levels + 1 rows of `windows`) are queued for the host into
// host_res (pageable: the copy returns when done).
template <class Group>
status device_msm<Group>::reduce(unsigned c, unsigned windows, bool affine_path, std::size_t bucket_offset,
                                 std::vector<xyzz>& host_res, unsigned& levels, cudaStream_t stream) {
  using namespace msm_detail;
  using A = typename device_types<Group>::affine;
  using X = typename device_types<Group>::xyzz;
  // Reduction levels: level 0 over the buckets (rows of B), level l over T_{l-1}.
  const uint32_t B = 1u << (c - 1);
  const unsigned top_bits = Group::scalar::bits - (windows - 1) * c;  // the top window's digit <= 2^top_bits
  const uint32_t top_len = top_bits >= c - 1 ? B : 1u << top_bits;
  X* red = reinterpret_cast<X*>(red_.data());
  std::vector<const X*> r_of;  // R_l per level
  std::vector<uint32_t> segs_of;
  const X* t0 = nullptr;
  X* free_at = red;
  {
    uint32_t len = B;
    const X* t_prev = nullptr;
    for (unsigned l = 0;; ++l) {
      const uint32_t segs = (len + segment - 1) / segment;
      X* r_l = free_at;
      X* t_l = free_at + std::size_t{segs} * windows;
      free_at = t_l + std::size_t{segs} * windows;
      constexpr unsigned TR = 64;
      const unsigned blocks = grid(std::size_t{segs} * windows, TR);
      if (l == 0) t0 = t_l;
      if (l == 0 && affine_path) {
        running_sum_kernel<A, X><<<blocks, TR, 0, stream>>>(reinterpret_cast<const A*>(bucket_.data()), len, top_len,
                                                             segs, windows, r_l, t_l);
      } else if (l == 0) {
        running_sum_kernel<X, X><<<blocks, TR, 0, stream>>>(
            reinterpret_cast<const X*>(bucket_x_.data()) + bucket_offset, len, top_len, segs, windows, r_l, t_l);
      } else {
        running_sum_kernel<X, X><<<blocks, TR, 0, stream>>>(t_prev, len, len, segs, windows, r_l, t_l);
      }
      CUZK_CUDA_TRY(cudaGetLastError());
      r_of.push_back(r_l);
      segs_of.push_back(segs);
      t_prev = t_l;
      if (segs == 1) break;
      len = segs;
    }
  }
  levels = static_cast<unsigned>(r_of.size());
  // Each R_l and T_0 summed to one element per row, all sets in the same launches (groups of 8),
  // each set writing its steps one after another into its own stretch of scratch; then gathered
  // in `res`: rows l < L hold G_l, row L holds H.
  const unsigned n_sets = levels + 1;
  if (n_sets > max_row_sets)
    return status(errc::internal, "gpu::device_msm: " + std::to_string(n_sets) + " reduction rows, over " +
                                      std::to_string(max_row_sets));
  constexpr uint32_t g = 8;
  std::vector<const X*> cur(n_sets);
  std::vector<uint32_t> cur_len(n_sets);
  std::vector<X*> scratch(n_sets);
  for (unsigned k = 0; k < n_sets; ++k) {
    cur[k] = k < levels ? r_of[k] : t0;
    cur_len[k] = k < levels ? segs_of[k] : segs_of[0];
    scratch[k] = free_at;
    uint32_t l = cur_len[k];
    std::size_t need = 0;
    while (l > 1) {
      l = (l + g - 1) / g;
      need += l;
    }
    free_at += need * windows;
  }
  X* const res = free_at;
  for (;;) {
    row_sets<X> sets{};
    for (unsigned k = 0; k < n_sets; ++k) {
      if (cur_len[k] <= 1) continue;
      const uint32_t out_len = (cur_len[k] + g - 1) / g;
      sets.set[sets.count] = {cur[k], scratch[k], cur_len[k], out_len, sets.threads};
      sets.threads += out_len * windows;
      cur[k] = scratch[k];
      scratch[k] += std::size_t{out_len} * windows;
      cur_len[k] = out_len;
      ++sets.count;
    }
    if (sets.count == 0) break;
    group_sum_multi_kernel<X><<<grid(sets.threads, 64), 64, 0, stream>>>(sets, g);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  for (unsigned k = 0; k < n_sets; ++k)
    CUZK_CUDA_TRY(cudaMemcpyAsync(res + std::size_t{k} * windows, cur[k], windows * sizeof(X),
                                  cudaMemcpyDeviceToDevice, stream));
  host_res.resize(std::size_t{levels + 1} * windows);
  CUZK_CUDA_TRY(cudaMemcpyAsync(host_res.data(), res, host_res.size() * sizeof(xyzz), cudaMemcpyDeviceToHost,
                                stream));
  return status::ok();
}

// Step 6, on the host: window w is G_0 + 16 (G_1 + 16 (... G_{L-1})) + H, then Horner over the
// windows.
template <class Group>
typename device_msm<Group>::point device_msm<Group>::combine_windows(const std::vector<xyzz>& host_res,
                                                                      unsigned levels, unsigned windows, unsigned c) {
  using msm_detail::log_segment;
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
  return acc.to_jacobian();
}

}  // namespace cuzk::gpu

