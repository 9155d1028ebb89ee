// SPDX-License-Identifier: MIT OR Apache-2.0
// CPU multi-scalar multiplication sum_i [s_i] P_i by the bucket method (Pippenger), for G1 and G2
// of both curves.
//
// The steps, and why each is built this way:
//  1. The 0/1 split. Real witnesses are mostly 0 and 1 (booleans, selectors, unused wires), and a
//     scalar 1 would otherwise cost one bucket addition in every window's pass over the points
//     (the digit pattern of 1 is 1, 0, 0, ... but the point is still read W times) and a zero
//     would be read W times for nothing. One pass drops zero scalars and points at infinity, sums
//     the points with scalar 1 directly (one mixed addition each) and collects the indices of
//     the rest; only those go through buckets.
//  2. Signed digits (signed_digits.hpp): c-bit windows with digits in [-2^(c-1), 2^(c-1)), so
//     2^(c-1) buckets per window; a negative digit adds the negated point.
//  3. Buckets accumulate affine points either as XYZZ points with the mixed addition
//     madd-2008-s (8M + 2S, ec/xyzz.hpp), or in affine form, in batches of additions that share
//     one inversion (batch_affine_buckets.hpp, 5M + 1S + the inversion's share). The cost model
//     picks batch affine for wide windows, where batches are long: measured ~15% faster at
//     2^16-2^18 points, slower below c = 11 (window_choice.hpp quotes the sweeps).
//  4. Each bucket array is reduced by the running sum: walking the buckets from the top,
//     running += B_j and total += running gives total = sum_j (j+1) B_j in 2 additions per bucket.
//  5. The window sums are combined most significant first, c doublings between windows.
//
// Parallelism: the work is W x k independent (window, point chunk) tasks, each with its own bucket
// array, scheduled on the thread pool; window_choice.hpp picks c and k from a cost model so that
// 2 threads and 64 both stay busy. Bucket arrays are allocated once per worker's run, never in the
// loop. The inner loop has no data-dependent branch except "digit is zero": digits are extracted
// a batch ahead, the sign is applied by a branchless select, and the next buckets are prefetched.
//
// Scalars are canonical integers below r (what .wtns files hold); a larger scalar gives a wrong
// sum (never an out-of-range access). Points may be the point at infinity ((0, 0)) and scalars
// may be zero. points.size() must equal scalars.size() and be below 2^32.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "ff/mont_math.hpp"
#include "msm/batch_affine_buckets.hpp"
#include "msm/signed_digits.hpp"
#include "msm/window_choice.hpp"

namespace cuzk::msm {

struct msm_options {
  // Window width in bits, min_window..max_window; 0 lets the cost model choose.
  unsigned window = 0;
  // Point chunks per window; 0 lets the cost model choose. For tests and tuning.
  unsigned chunks = 0;
  // The 0/1 split of step 1. Off only to measure what it gains.
  bool split_zero_one = true;
  bucket_accumulation accumulation = bucket_accumulation::automatic;
};

template <class Group>
typename Group::jacobian msm(std::span<const typename Group::affine> points,
                             std::span<const typename Group::scalar::repr> scalars, const msm_options& options,
                             thread_pool& pool = thread_pool::global());

template <class Group>
typename Group::jacobian msm(std::span<const typename Group::affine> points,
                             std::span<const typename Group::scalar::repr> scalars,
                             thread_pool& pool = thread_pool::global()) {
  return msm<Group>(points, scalars, msm_options{}, pool);
}

namespace detail {

// a if !take_b else b, without a branch on take_b (the sign of a digit is a coin flip for random
// scalars; a mispredicted branch would cost ~15 ns per accumulation).
template <class F>
inline F select(bool take_b, const F& a, const F& b) {
  static_assert(std::is_trivially_copyable_v<F> && sizeof(F) % 8 == 0);
  constexpr std::size_t words = sizeof(F) / 8;
  uint64_t wa[words], wb[words];
  std::memcpy(wa, &a, sizeof(F));
  std::memcpy(wb, &b, sizeof(F));
  const uint64_t mask = uint64_t{0} - static_cast<uint64_t>(take_b);
  for (std::size_t i = 0; i < words; ++i) wa[i] = (wa[i] & ~mask) | (wb[i] & mask);
  F r;
  std::memcpy(&r, wa, sizeof(F));
  return r;
}

template <class T>
inline void prefetch(const T* p) {
  for (std::size_t off = 0; off < sizeof(T); off += 64) __builtin_prefetch(reinterpret_cast<const char*>(p) + off, 1);
}

template <std::size_t N>
constexpr bool is_one(const ff::bigint<N>& s) {
  uint64_t high = 0;
  for (std::size_t i = 1; i < N; ++i) high |= s.limb[i];
  return s.limb[0] == 1 && high == 0;
}

// Step 1 over all points: indices of the points that need buckets, and the sum of those whose
// scalar is 1.
template <class Group>
struct zero_one_split {
  std::vector<uint32_t> rest;
  typename Group::xyzz ones = Group::xyzz::infinity();
};

template <class Group>
zero_one_split<Group> split_zero_one(std::span<const typename Group::affine> points,
                                     std::span<const typename Group::scalar::repr> scalars, thread_pool& pool) {
  using xyzz = typename Group::xyzz;
  // Blocks of 2^14 points: big enough that the per-block vectors cost nothing, small enough that
  // 2^18 points give 16 blocks to balance.
  constexpr std::size_t block = std::size_t{1} << 14;
  const std::size_t n = points.size();
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::vector<uint32_t>> rest(blocks);
  std::vector<xyzz> ones(blocks, xyzz::infinity());
  pool.parallel_for(blocks, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      const std::size_t begin = b * block, end = std::min(n, begin + block);
      auto& out = rest[b];
      out.reserve(end - begin);
      xyzz acc = xyzz::infinity();
      for (std::size_t i = begin; i < end; ++i) {
        const auto& s = scalars[i];
        if (s.is_zero() || points[i].is_infinity()) continue;
        if (is_one(s)) {
          acc += points[i];
        } else {
          out.push_back(static_cast<uint32_t>(i));
        }
      }
      ones[b] = acc;
    }
  });
  zero_one_split<Group> r;
  std::size_t total = 0;
  for (const auto& v : rest) total += v.size();
  r.rest.reserve(total);
  for (std::size_t b = 0; b < blocks; ++b) {
    r.rest.insert(r.rest.end(), rest[b].begin(), rest[b].end());
    r.ones += ones[b];
  }
  return r;
}

// The XYZZ bucket array: every accumulation is one madd-2008-s.
template <class Group>
class xyzz_buckets {
 public:
  using affine = typename Group::affine;
  using xyzz = typename Group::xyzz;
  explicit xyzz_buckets(std::size_t buckets) : bucket_(buckets) {}
  void clear() { std::fill(bucket_.begin(), bucket_.end(), xyzz::infinity()); }
  void prefetch(uint32_t b) const { detail::prefetch(&bucket_[b]); }
  void add(uint32_t b, const affine& p) { bucket_[b] += p; }
  void flush() {}
  xyzz reduce(std::size_t top) const {
    xyzz running = xyzz::infinity(), total = xyzz::infinity();
    for (std::size_t j = top; j-- > 0;) {
      running += bucket_[j];
      total += running;
    }
    return total;
  }

 private:
  std::vector<xyzz> bucket_;
};

// One (window, chunk) task: accumulate the chunk's points into the window's buckets (cleared
// first), then reduce them to the window's partial sum. idx == nullptr means the identity.
template <class Group, class Buckets>
typename Group::xyzz window_task(std::span<const typename Group::affine> points,
                                 std::span<const typename Group::scalar::repr> scalars, const uint32_t* idx,
                                 std::size_t count, const signed_digits<Group::scalar::N>& digits, unsigned w,
                                 Buckets& buckets) {
  using affine = typename Group::affine;
  buckets.clear();
  const auto read = digits.window(w);

  // Digits of a batch first, so that the accumulation loop knows which bucket comes next and can
  // prefetch it (a 2^15-bucket array is megabytes: most bucket loads miss L2).
  constexpr std::size_t batch = 128;
  constexpr std::size_t ahead = 2;
  uint32_t bucket_of[batch], point_of[batch];
  bool negative[batch];
  std::size_t top = 0;  // 1 + the highest bucket touched
  for (std::size_t base = 0; base < count; base += batch) {
    const std::size_t len = std::min(batch, count - base);
    std::size_t k = 0;
    for (std::size_t j = 0; j < len; ++j) {
      const uint32_t i = idx ? idx[base + j] : static_cast<uint32_t>(base + j);
      const int64_t d = read(digits.shifted(scalars[i]));
      bucket_of[k] = static_cast<uint32_t>((d < 0 ? -d : d) - 1);
      point_of[k] = i;
      negative[k] = d < 0;
      k += d != 0;
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (j + ahead < k) {
        buckets.prefetch(bucket_of[j + ahead]);
        prefetch(&points[point_of[j + ahead]]);
      }
      const affine& p = points[point_of[j]];
      buckets.add(bucket_of[j], affine{p.x, select(negative[j], p.y, -p.y)});
      top = std::max<std::size_t>(top, bucket_of[j] + 1);
    }
  }
  buckets.flush();
  return buckets.reduce(top);
}

}  // namespace detail

template <class Group>
typename Group::jacobian msm(std::span<const typename Group::affine> points,
                             std::span<const typename Group::scalar::repr> scalars, const msm_options& options,
                             thread_pool& pool) {
  using jacobian = typename Group::jacobian;
  using xyzz = typename Group::xyzz;
  using Fr = typename Group::scalar;
  constexpr std::size_t N = Fr::N;

  const std::size_t n = std::min(points.size(), scalars.size());
  points = points.first(n);
  scalars = scalars.first(n);
  if (n == 0) return jacobian::infinity();

  detail::zero_one_split<Group> split;
  const uint32_t* idx = nullptr;
  std::size_t m = n;
  if (options.split_zero_one) {
    split = detail::split_zero_one<Group>(points, scalars, pool);
    idx = split.rest.data();
    m = split.rest.size();
  }
  jacobian result = split.ones.to_jacobian();
  if (m == 0) return result;

  constexpr auto max_scalar = ff::mont::sub_one(Fr::modulus);
  const msm_plan plan = choose_plan<N>(m, max_scalar, pool.size(), sizeof(typename Group::affine), sizeof(xyzz),
                                       options.window ? std::clamp(options.window, min_window, max_window) : 0,
                                       options.chunks, options.accumulation);
  const auto digits = signed_digits<N>::make(plan.window, max_scalar);
  const unsigned k = plan.chunks;
  const bool batch_affine = plan.accumulation == bucket_accumulation::batch_affine;
  std::vector<xyzz> partial(std::size_t{digits.windows} * k, xyzz::infinity());
  pool.parallel_for(partial.size(), [&](std::size_t t0, std::size_t t1) {
    auto run_tasks = [&](auto& buckets) {
      for (std::size_t t = t0; t < t1; ++t) {
        const unsigned w = static_cast<unsigned>(t / k);
        const std::size_t chunk = t % k;
        const std::size_t begin = m * chunk / k, end = m * (chunk + 1) / k;
        if (idx) {
          partial[t] = detail::window_task<Group>(points, scalars, idx + begin, end - begin, digits, w, buckets);
        } else {
          // Without the split the chunk is a contiguous range of the inputs.
          partial[t] = detail::window_task<Group>(points.subspan(begin, end - begin),
                                                  scalars.subspan(begin, end - begin), nullptr, end - begin,
                                                  digits, w, buckets);
        }
      }
    };
    const std::size_t nb = std::size_t{1} << (digits.c - 1);
    if (batch_affine) {
      batch_affine_buckets<Group> buckets(nb, batch_affine_batch(nb));
      run_tasks(buckets);
    } else {
      detail::xyzz_buckets<Group> buckets(nb);
      run_tasks(buckets);
    }
  });

  jacobian acc = jacobian::infinity();
  for (unsigned w = digits.windows; w-- > 0;) {
    for (unsigned d = 0; d < digits.c; ++d) acc = acc.dbl();
    xyzz window_sum = xyzz::infinity();
    for (unsigned j = 0; j < k; ++j) window_sum += partial[std::size_t{w} * k + j];
    acc += window_sum.to_jacobian();
  }
  return acc + result;
}

extern template bn254_g1::jacobian msm<bn254_g1>(std::span<const bn254_g1::affine>,
                                                 std::span<const bn254_g1::scalar::repr>, const msm_options&,
                                                 thread_pool&);
extern template bn254_g2::jacobian msm<bn254_g2>(std::span<const bn254_g2::affine>,
                                                 std::span<const bn254_g2::scalar::repr>, const msm_options&,
                                                 thread_pool&);
extern template bls12_381_g1::jacobian msm<bls12_381_g1>(std::span<const bls12_381_g1::affine>,
                                                         std::span<const bls12_381_g1::scalar::repr>,
                                                         const msm_options&, thread_pool&);
extern template bls12_381_g2::jacobian msm<bls12_381_g2>(std::span<const bls12_381_g2::affine>,
                                                         std::span<const bls12_381_g2::scalar::repr>,
                                                         const msm_options&, thread_pool&);

}  // namespace cuzk::msm
