// SPDX-License-Identifier: MIT OR Apache-2.0
// A sparse matrix over a field in compressed-sparse-row form, built once from unsorted
// (row, column, value) triplets.
//
// A proof evaluates the constraint matrices against a fresh witness, row by row (a_j = sum_k
// A_jk w_k): CSR keeps each row's entries contiguous, so one thread streams through a range of
// rows reading only its own entries, with no locks and no scatter. The zkey stores its
// coefficients as loose records in no promised order and possibly repeated (snarkjs writes them
// constraint by constraint, `zkey contribute` re-sorts them, and a duplicate means "add"), so
// the builder counts entries per row, places them, then sorts each row by column and merges
// repeats by adding their values. Entries whose sum is zero are dropped.
//
// Building costs O(nnz log(row length)) once per circuit, on every thread of the global pool, and
// one more pass finds the values' dictionary (value_dictionary.hpp); the row pointers are 64-bit because
// nnz exceeds 2^32 for the largest circuits (2^28 rows with tens of entries each).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "base/thread_pool.hpp"
#include "synth/value_dictionary.hpp"

namespace cuzk::synth {

template <class Fr>
struct csr_matrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<uint64_t> row_start;  // rows + 1 offsets into col / value
  std::vector<uint32_t> col;
  std::vector<Fr> value;
  // The distinct values of `value` where there are at most max_dictionary_values of them
  // (value_dictionary.hpp): the device then keeps an index per entry instead of its value.
  // build_csr finds it; a matrix made another way may have none, and is kept with its values.
  std::optional<std::vector<Fr>> dictionary;

  std::size_t nnz() const { return col.size(); }
  // The bytes of its arrays, as they are held on the host.
  std::size_t bytes() const {
    return row_start.size() * sizeof(uint64_t) + col.size() * sizeof(uint32_t) + value.size() * sizeof(Fr) +
           (dictionary ? dictionary->size() * sizeof(Fr) : 0);
  }
  std::span<const uint32_t> row_cols(std::size_t r) const {
    return {col.data() + row_start[r], col.data() + row_start[r + 1]};
  }
  std::span<const Fr> row_values(std::size_t r) const {
    return {value.data() + row_start[r], value.data() + row_start[r + 1]};
  }
};

template <class Fr>
struct triplet {
  uint32_t row;
  uint32_t col;
  Fr value;
};

struct keep_every_triplet {
  bool operator()(std::size_t) const noexcept { return true; }
};

// Builds a rows x cols matrix from the triplets get(i), i < count, for which keep(i) (both called
// twice per index from the global pool's threads, so they must be cheap, deterministic and safe to
// call at once: a zkey's records of both matrices are read in place, each builder keeping its
// own). The caller has checked row < rows and col < cols.
//
// Every pass runs on the pool: a PoRep key's ~10^8 records, counted and placed on one thread for
// each matrix, were most of its 18-32 s build, 6.5 s on 16 threads (docs/BENCHMARKS.md, 'Witness
// files read once and in order'). On 2 threads the locked increments cost about what the second
// thread gains (2^20: 335-343 ms against 320 before; counting on one thread with plain increments
// was slower still, 352). Entries are placed by atomic counters per row, so
// their order within a row depends on the threads; the sort by column and the merge of repeats
// that follow make the result the same whatever that order (the sum of a row's repeats is the
// same in any order: field addition is associative and commutative).
template <class Fr, class Get, class Keep = keep_every_triplet>
csr_matrix<Fr> build_csr(std::size_t rows, std::size_t cols, std::size_t count, Get&& get, Keep&& keep = {}) {
  thread_pool& pool = thread_pool::global();
  constexpr std::size_t records_a_piece = std::size_t{1} << 14;
  csr_matrix<Fr> m;
  m.rows = rows;
  m.cols = cols;
  std::vector<uint64_t> fill(rows + 1, 0);
  pool.parallel_for(
      count,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
          if (keep(i)) std::atomic_ref<uint64_t>(fill[get(i).row + 1]).fetch_add(1, std::memory_order_relaxed);
      },
      records_a_piece);
  std::partial_sum(fill.begin(), fill.end(), fill.begin());
  const std::size_t kept_count = fill[rows];
  std::vector<uint32_t> col(kept_count);
  std::vector<Fr> value(kept_count);
  {
    std::vector<uint64_t> next(fill.begin(), fill.end() - 1);
    pool.parallel_for(
        count,
        [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) {
            if (!keep(i)) continue;
            const triplet<Fr> t = get(i);
            const uint64_t at = std::atomic_ref<uint64_t>(next[t.row]).fetch_add(1, std::memory_order_relaxed);
            col[at] = t.col;
            value[at] = t.value;
          }
        },
        records_a_piece);
  }

  // Sort and merge each row in place; rows shrink, so a second pass compacts them.
  std::vector<uint64_t> kept(rows, 0);
  pool.parallel_for(
      rows,
      [&](std::size_t begin, std::size_t end) {
        std::vector<std::pair<uint32_t, Fr>> row;
        for (std::size_t r = begin; r < end; ++r) {
          const uint64_t lo = fill[r], hi = fill[r + 1];
          row.clear();
          for (uint64_t k = lo; k < hi; ++k) row.emplace_back(col[k], value[k]);
          std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
          uint64_t out = lo;
          for (std::size_t k = 0; k < row.size();) {
            const uint32_t c = row[k].first;
            Fr sum = Fr::zero();
            for (; k < row.size() && row[k].first == c; ++k) sum += row[k].second;
            if (sum.is_zero()) continue;
            col[out] = c;
            value[out] = sum;
            ++out;
          }
          kept[r] = out - lo;
        }
      },
      1024);

  // Compact left in row order: every row's new start is at or before its old one, so moving
  // rows front to back never overwrites data not yet moved. Where no entry was merged or dropped
  // (the usual zkey), every row is where it is and the offsets are the counts'.
  const uint64_t kept_total = std::accumulate(kept.begin(), kept.end(), uint64_t{0});
  if (kept_total == kept_count) {
    m.row_start = std::move(fill);
  } else {
    m.row_start.assign(rows + 1, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      const uint64_t to = m.row_start[r];
      std::copy_n(col.begin() + static_cast<std::ptrdiff_t>(fill[r]), kept[r],
                  col.begin() + static_cast<std::ptrdiff_t>(to));
      std::copy_n(value.begin() + static_cast<std::ptrdiff_t>(fill[r]), kept[r],
                  value.begin() + static_cast<std::ptrdiff_t>(to));
      m.row_start[r + 1] = to + kept[r];
    }
    col.resize(m.row_start[rows]);
    value.resize(m.row_start[rows]);
    col.shrink_to_fit();
    value.shrink_to_fit();
  }
  m.col = std::move(col);
  m.value = std::move(value);
  m.dictionary = distinct_values_on<Fr>(pool, m.value);
  return m;
}

}  // namespace cuzk::synth
