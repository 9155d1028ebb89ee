// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for evaluate_abc.hpp, compiled once per curve in synth_<curve>.cpp.
#pragma once

#include <algorithm>
#include <string>

#include "synth/evaluate_abc.hpp"

namespace cuzk::synth {

namespace detail {

// One row of M*w. w is zero for most signals of real circuits (unused bits, padding), and a
// zero skips the multiplication. The witness is read at the columns' signals, which lie anywhere
// in nVars * 32 bytes (32 MiB at 2^20, 2 GiB at 2^26): each read of a far signal waits for memory,
// so the signal `ahead` entries on (in this row or the next ones) is asked for early. 2.7x on a
// circuit of random wires at 2^18 and 2^20 on two cores; 8, 16 and 32 entries ahead measured
// alike (docs/BENCHMARKS.md, 'Synthesis and the matrices' build on the CPU').
template <class Fr>
inline Fr row_times_witness(const csr_matrix<Fr>& m, std::size_t r, const typename Fr::repr* w) {
  constexpr uint64_t ahead = 16;
  Fr acc = Fr::zero();
  const uint64_t lo = m.row_start[r], hi = m.row_start[r + 1], last = m.col.size();
  for (uint64_t k = lo; k < hi; ++k) {
    if (k + ahead < last) __builtin_prefetch(&w[m.col[k + ahead]]);
    const auto& wk = w[m.col[k]];
    if (wk.is_zero()) continue;
    acc += m.value[k] * Fr::from_montgomery(wk);
  }
  return acc;
}

}  // namespace detail

template <class Fr>
status evaluate_abc(const constraint_matrices<Fr>& m, std::span<const typename Fr::repr> witness,
                    std::span<Fr> a, std::span<Fr> b, std::span<Fr> c, thread_pool& pool) {
  if (witness.size() != m.n_vars)
    return status(errc::invalid_argument, "witness: length: expected nVars = " + std::to_string(m.n_vars) +
                                              " values, found " + std::to_string(witness.size()));
  if (a.size() != b.size() || a.size() != c.size())
    return status(errc::invalid_argument, "synthesis buffers: expected equal lengths, found a " +
                                              std::to_string(a.size()) + ", b " + std::to_string(b.size()) +
                                              ", c " + std::to_string(c.size()));
  const std::size_t rows = std::max(m.a.rows, m.b.rows);
  if (a.size() < rows)
    return status(errc::invalid_argument, "synthesis buffers: length: expected at least " +
                                              std::to_string(rows) + " rows, found " +
                                              std::to_string(a.size()));
  const typename Fr::repr* w = witness.data();
  pool.parallel_for(
      a.size(),
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
          const Fr ar = r < m.a.rows ? detail::row_times_witness(m.a, r, w) : Fr::zero();
          const Fr br = r < m.b.rows ? detail::row_times_witness(m.b, r, w) : Fr::zero();
          a[r] = ar;
          b[r] = br;
          // A zero side is common (a booleanity row z (z - 1) = 0 with z = 0 has a = 0): no product.
          c[r] = ar.is_zero() || br.is_zero() ? Fr::zero() : ar * br;
        }
      },
      4096);
  return status::ok();
}

}  // namespace cuzk::synth
