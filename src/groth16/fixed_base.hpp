// SPDX-License-Identifier: MIT OR Apache-2.0
// Many multiples [k_i]P of one fixed point P (the setup's generators), with a precomputed table.
//
// A development setup multiplies the G1 generator by ~4 nVars + domainSize scalars and the G2
// generator by nVars scalars: millions of scalar multiplications at 2^20 constraints. With the
// base fixed, split each 255-bit scalar into w-bit digits d_t and precompute
// T[t][d] = [d * 2^(w t)]P for every window t and digit d; then [k]P = sum_t T[t][d_t], one mixed
// addition per non-zero window and no doublings (the fixed-base comb of Brickell, Gordon,
// McCurley and Wilson, "Fast exponentiation with precomputation", EUROCRYPT '92, in its simplest
// form). ceil(255 / w) additions per scalar, against ~255 doublings plus ~64 additions for
// ec::scalar_mul; the table costs ceil(255 / w) * 2^w additions once, so w grows with the count
// (choose_window).
//
// The work splits over the thread pool in chunks; each chunk converts its results to affine
// with one inversion (ec/batch_to_affine.hpp). Not constant time: the scalars are setup secrets
// only in a development setup, which is not a ceremony and whose toxic waste is discarded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "base/thread_pool.hpp"
#include "ec/batch_to_affine.hpp"

namespace cuzk::groth16 {

template <class G>
class fixed_base_table {
 public:
  using affine = typename G::affine;
  using jacobian = typename G::jacobian;
  using scalar = typename G::scalar;
  static constexpr unsigned scalar_bits = scalar::bits;

  // The window minimising table size plus per-scalar additions for `count` scalars, capped at
  // 16 bits so the table stays below ~16 * 2^16 points (64 MiB of BLS12-381 G2).
  static unsigned choose_window(std::size_t count) {
    unsigned best = 1;
    double best_cost = 1e300;
    for (unsigned w = 1; w <= 16; ++w) {
      const double windows = (scalar_bits + w - 1) / w;
      const double cost = windows * static_cast<double>(count) + windows * static_cast<double>(1u << w);
      if (cost < best_cost) best_cost = cost, best = w;
    }
    return best;
  }

  fixed_base_table(const affine& base, unsigned window_bits)
      : w_(window_bits), windows_((scalar_bits + window_bits - 1) / window_bits) {
    const std::size_t per = (std::size_t{1} << w_) - 1;
    table_.resize(windows_ * per);
    // The windows' bases [2^(w t)]P, then each window's multiples in parallel.
    std::vector<jacobian> bases(windows_);
    bases[0] = jacobian::from_affine(base);
    for (std::size_t t = 1; t < windows_; ++t) {
      jacobian b = bases[t - 1];
      for (unsigned i = 0; i < w_; ++i) b = b.dbl();
      bases[t] = b;
    }
    thread_pool::global().parallel_for(windows_, [&](std::size_t lo, std::size_t hi) {
      std::vector<jacobian> row(per);
      for (std::size_t t = lo; t < hi; ++t) {
        row[0] = bases[t];  // row[i] = [i + 1] bases[t]
        for (std::size_t i = 1; i < per; ++i) {
          const std::size_t m = i + 1;
          row[i] = (m % 2 == 0) ? row[m / 2 - 1].dbl() : row[i - 1] + bases[t];
        }
        ec::batch_to_affine(row.data(), table_.data() + t * per, per);
      }
    });
  }

  unsigned window_bits() const noexcept { return w_; }
  // The table: entry t (2^w - 1) + d - 1 is [d * 2^(w t)]P (a device's copy takes it as it is:
  // gpu/fixed_base.hpp).
  std::span<const affine> entries() const noexcept { return table_; }

  // [k]P for k given as its canonical integer.
  jacobian mul(const typename scalar::repr& k) const {
    const std::size_t per = (std::size_t{1} << w_) - 1;
    jacobian acc = jacobian::infinity();
    for (std::size_t t = 0; t < windows_; ++t) {
      std::size_t digit = 0;
      for (unsigned b = 0; b < w_; ++b) {
        const std::size_t bit = t * w_ + b;
        if (bit < scalar_bits && k.bit(bit)) digit |= std::size_t{1} << b;
      }
      if (digit != 0) acc += table_[t * per + digit - 1];
    }
    return acc;
  }

 private:
  unsigned w_;
  std::size_t windows_;
  std::vector<affine> table_;  // table_[t * (2^w - 1) + d - 1] = [d * 2^(w t)]P
};

// out[i] = [scalars[i]]P for the table's P, affine, written straight into `out` (a key's own
// vector: no copy of the points is made). out.size() must equal scalars.size().
template <class G>
void fixed_base_mul(const fixed_base_table<G>& table, std::span<const typename G::scalar> scalars,
                    std::span<typename G::affine> out) {
  using jacobian = typename G::jacobian;
  if (scalars.empty()) return;
  thread_pool::global().parallel_for(
      scalars.size(),
      [&](std::size_t lo, std::size_t hi) {
        constexpr std::size_t batch = 1024;
        std::vector<jacobian> tmp(batch);
        for (std::size_t b = lo; b < hi; b += batch) {
          const std::size_t n = std::min(batch, hi - b);
          for (std::size_t i = 0; i < n; ++i) {
            const auto& s = scalars[b + i];
            tmp[i] = s.is_zero() ? jacobian::infinity() : table.mul(s.to_canonical());
          }
          ec::batch_to_affine(tmp.data(), out.data() + b, n);
        }
      },
      1024);
}

// The same with a table made for these scalars' count.
template <class G>
void fixed_base_mul(const typename G::affine& base, std::span<const typename G::scalar> scalars,
                    std::span<typename G::affine> out) {
  if (scalars.empty()) return;
  const fixed_base_table<G> table(base, fixed_base_table<G>::choose_window(scalars.size()));
  fixed_base_mul<G>(table, scalars, out);
}

}  // namespace cuzk::groth16
