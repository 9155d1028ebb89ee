// SPDX-License-Identifier: MIT OR Apache-2.0
// MSM buckets kept in affine form and accumulated in batches that share one field inversion.
//
// The affine sum B + P = (x3, y3) with lambda = (yP - yB) / (xP - xB), x3 = lambda^2 - xB - xP,
// y3 = lambda (xB - x3) - yB costs 2M + 1S plus one inversion. Queueing many (bucket, point)
// additions and inverting all denominators at once by Montgomery's trick (3M each plus one
// inversion per batch; ec/batch_to_affine.hpp explains the trick) brings an accumulation to
// 5M + 1S + inversion / batch, against 8M + 2S for the XYZZ mixed addition, and halves the bucket
// memory. This is the "batch affine" accumulation of gnark-crypto and of Aztec's Barretenberg.
//
// Two additions to the same bucket cannot be in one batch (the second needs the first's result),
// nor can an addition whose x equals the bucket's (doubling or cancellation: a zero denominator).
// Those go to a second, XYZZ bucket for the same index (ec/xyzz.hpp handles every special case);
// with batches much smaller than the bucket count they are rare (a point meets a busy bucket with
// probability about batch / (2 buckets)). The first point of an empty bucket is stored as is.
//
// Per-bucket state is one byte, so neither bucket array needs initialising: only the state array
// is cleared per task. Not thread-safe; each task owns one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cuzk::msm {

template <class Group>
class batch_affine_buckets {
 public:
  using affine = typename Group::affine;
  using xyzz = typename Group::xyzz;
  using F = typename Group::field;

  batch_affine_buckets(std::size_t buckets, std::size_t batch)
      : bucket_(buckets), overflow_(buckets), state_(buckets), pending_bucket_(batch), pending_point_(batch),
        prefix_(batch), batch_(batch) {}

  std::size_t size() const { return state_.size(); }

  void clear() {
    std::memset(state_.data(), 0, state_.size());
    count_ = 0;
  }

  // Hints the cache before add(b, ...) reaches bucket b.
  void prefetch(uint32_t b) const {
    __builtin_prefetch(&state_[b]);
    for (std::size_t off = 0; off < sizeof(affine); off += 64)
      __builtin_prefetch(reinterpret_cast<const char*>(&bucket_[b]) + off);
  }

  // Bucket b += p.
  void add(uint32_t b, const affine& p) {
    if (p.is_infinity()) return;  // never taken after the MSM's 0/1 split, which drops them
    uint8_t& st = state_[b];
    if (!(st & has_affine)) {
      bucket_[b] = p;
      st |= has_affine;
      return;
    }
    if ((st & pending) || bucket_[b].x == p.x) {
      if (st & has_overflow) {
        overflow_[b] += p;
      } else {
        overflow_[b] = xyzz::from_affine(p);
        st |= has_overflow;
      }
      return;
    }
    st |= pending;
    pending_bucket_[count_] = b;
    pending_point_[count_] = p;
    if (++count_ == batch_) flush();
  }

  // Applies the queued additions.
  void flush() {
    if (count_ == 0) return;
    // prefix_[j] = d_0 ... d_{j-1} with d_j = xP - xB.
    F acc = F::one();
    for (std::size_t j = 0; j < count_; ++j) {
      prefix_[j] = acc;
      acc *= pending_point_[j].x - bucket_[pending_bucket_[j]].x;
    }
    F inv = acc.inverse();
    for (std::size_t j = count_; j-- > 0;) {
      const affine& p = pending_point_[j];
      affine& b = bucket_[pending_bucket_[j]];
      const F dx = p.x - b.x;
      const F d_inv = inv * prefix_[j];
      inv *= dx;
      const F lambda = (p.y - b.y) * d_inv;
      const F x3 = lambda.sqr() - b.x - p.x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
      state_[pending_bucket_[j]] &= static_cast<uint8_t>(~pending);
    }
    count_ = 0;
  }

  // sum_j (j + 1) B_j over the buckets below `top` by the running sum. Call flush() first.
  xyzz reduce(std::size_t top) const {
    xyzz running = xyzz::infinity(), total = xyzz::infinity();
    for (std::size_t j = top; j-- > 0;) {
      const uint8_t st = state_[j];
      if (st & has_affine) running += bucket_[j];
      if (st & has_overflow) running += overflow_[j];
      total += running;
    }
    return total;
  }

 private:
  static constexpr uint8_t has_affine = 1, has_overflow = 2, pending = 4;

  std::vector<affine> bucket_;
  std::vector<xyzz> overflow_;
  std::vector<uint8_t> state_;
  std::vector<uint32_t> pending_bucket_;
  std::vector<affine> pending_point_;
  std::vector<F> prefix_;
  std::size_t batch_ = 0, count_ = 0;
};

}  // namespace cuzk::msm
