// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for constraint_matrices.hpp, compiled once per curve in synth_<curve>.cpp.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>

#include "base/thread_pool.hpp"

#include "synth/constraint_matrices.hpp"

namespace cuzk::synth {

namespace detail {

// What is wrong with one record, or an empty string.
template <class Fr>
std::string record_fault(const zkey_coefficient<Fr>& rec, std::size_t n_vars, std::size_t domain_size) {
  if (rec.matrix > 1) return "matrix: expected 0 (A) or 1 (B), found " + std::to_string(rec.matrix);
  if (rec.constraint >= domain_size)
    return "constraint: expected < domainSize " + std::to_string(domain_size) + ", found " +
           std::to_string(rec.constraint);
  if (rec.signal >= n_vars)
    return "signal: expected < nVars " + std::to_string(n_vars) + ", found " + std::to_string(rec.signal);
  if (rec.value >= Fr::modulus) return "value: expected < r, found " + rec.value.to_decimal();
  return {};
}

// Checks every record and builds both matrices: get(i) is record i, matrix_of(i) its matrix
// alone (cheaper: each builder asks it of every record to keep its own). The check runs on the
// global pool (a PoRep-sized key has ~10^8 records: one thread, with a message made per record,
// took most of a 36 s load), so a key loading beside proofs holds their parallel loops for its
// length (seconds), as the point check does.
template <class Fr, class Get, class MatrixOf>
result<constraint_matrices<Fr>> build_matrices(std::size_t count, std::size_t n_vars, std::size_t domain_size,
                                               Get&& get, MatrixOf&& matrix_of) {
  auto valid = [&](const zkey_coefficient<Fr>& rec) {
    return rec.matrix <= 1 && rec.constraint < domain_size && rec.signal < n_vars && rec.value < Fr::modulus;
  };
  std::mutex m;
  std::size_t first_bad = count;
  uint32_t max_row = 0;
  bool any = false;
  thread_pool::global().parallel_for(
      count,
      [&](std::size_t begin, std::size_t end) {
        uint32_t row = 0;
        std::size_t bad = count;
        for (std::size_t i = begin; i < end; ++i) {
          const zkey_coefficient<Fr> rec = get(i);
          if (!valid(rec)) {
            bad = i;
            break;
          }
          row = std::max(row, rec.constraint);
        }
        std::lock_guard lk(m);
        first_bad = std::min(first_bad, bad);
        if (end > begin) max_row = std::max(max_row, row);
        any = any || end > begin;
      },
      1 << 14);
  if (first_bad < count)
    return status(errc::format_error, "zkey coefficient section: record " + std::to_string(first_bad) + ": " +
                                          record_fault(get(first_bad), n_vars, domain_size));
  const std::size_t rows = any ? std::size_t{max_row} + 1 : 0;
  auto one_matrix = [&](uint32_t which) {
    return build_csr<Fr>(
        rows, n_vars, count,
        [&](std::size_t i) {
          const zkey_coefficient<Fr> rec = get(i);
          return triplet<Fr>{rec.constraint, rec.signal, Fr::from_montgomery(rec.value)};
        },
        [&](std::size_t i) { return matrix_of(i) == which; });
  };
  constraint_matrices<Fr> mats;
  mats.a = one_matrix(0);
  mats.b = one_matrix(1);
  mats.n_vars = n_vars;
  mats.domain_size = domain_size;
  return mats;
}

}  // namespace detail

template <class Fr>
result<constraint_matrices<Fr>> matrices_from_zkey(std::span<const uint8_t> coef_section, std::size_t n_vars,
                                                   std::size_t domain_size) {
  constexpr std::size_t record_size = 12 + Fr::num_bytes;
  if (coef_section.size() < 4)
    return status(errc::format_error, "zkey coefficient section: expected at least 4 bytes (nCoefs), found " +
                                          std::to_string(coef_section.size()));
  auto u32_at = [&](std::size_t off) {
    return uint32_t{coef_section[off]} | uint32_t{coef_section[off + 1]} << 8 |
           uint32_t{coef_section[off + 2]} << 16 | uint32_t{coef_section[off + 3]} << 24;
  };
  const std::size_t count = u32_at(0);
  if (coef_section.size() != 4 + count * record_size)
    return status(errc::format_error, "zkey coefficient section: size: expected 4 + " +
                                          std::to_string(record_size) + " * nCoefs (" +
                                          std::to_string(count) +
                                          ") = " + std::to_string(4 + count * record_size) +
                                          " bytes, found " + std::to_string(coef_section.size()));
  return detail::build_matrices<Fr>(
      count, n_vars, domain_size,
      [&](std::size_t i) {
        const std::size_t off = 4 + i * record_size;
        return zkey_coefficient<Fr>{u32_at(off), u32_at(off + 4), u32_at(off + 8),
                                    Fr::repr::from_bytes_le(coef_section.data() + off + 12)};
      },
      [&](std::size_t i) { return u32_at(4 + i * record_size); });
}

template <class Fr>
result<constraint_matrices<Fr>> matrices_from_records(std::span<const zkey_coefficient<Fr>> records,
                                                      std::size_t n_vars, std::size_t domain_size) {
  return detail::build_matrices<Fr>(
      records.size(), n_vars, domain_size, [&](std::size_t i) { return records[i]; },
      [&](std::size_t i) { return records[i].matrix; });
}

}  // namespace cuzk::synth
