// Definitions for constraint_matrices.hpp, compiled once per curve in synth_<curve>.cpp.
#pragma once

#include <string>

#include "synth/constraint_matrices.hpp"

namespace cuzk::synth {

namespace detail {

template <class Fr, class Get>
result<constraint_matrices<Fr>> build_matrices(std::size_t count, std::size_t n_vars, std::size_t domain_size,
                                               Get&& get) {
  std::size_t rows = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const zkey_coefficient<Fr> rec = get(i);
    const std::string where = "zkey coefficient section: record " + std::to_string(i) + ": ";
    if (rec.matrix > 1)
      return status(errc::format_error,
                    where + "matrix: expected 0 (A) or 1 (B), found " + std::to_string(rec.matrix));
    if (rec.constraint >= domain_size)
      return status(errc::format_error, where + "constraint: expected < domainSize " +
                                            std::to_string(domain_size) + ", found " +
                                            std::to_string(rec.constraint));
    if (rec.signal >= n_vars)
      return status(errc::format_error, where + "signal: expected < nVars " + std::to_string(n_vars) +
                                            ", found " + std::to_string(rec.signal));
    if (rec.value >= Fr::modulus)
      return status(errc::format_error, where + "value: expected < r, found " + rec.value.to_decimal());
    rows = std::max<std::size_t>(rows, std::size_t{rec.constraint} + 1);
  }
  auto one_matrix = [&](uint32_t which) {
    // Records of the other matrix become zero entries in row 0, which the builder drops; this
    // keeps the builder a single pass over the records without a filtered copy.
    return build_csr<Fr>(rows, n_vars, count, [&](std::size_t i) {
      const zkey_coefficient<Fr> rec = get(i);
      if (rec.matrix != which) return triplet<Fr>{0, 0, Fr::zero()};
      return triplet<Fr>{rec.constraint, rec.signal, Fr::from_montgomery(rec.value)};
    });
  };
  constraint_matrices<Fr> m;
  m.a = one_matrix(0);
  m.b = one_matrix(1);
  m.n_vars = n_vars;
  m.domain_size = domain_size;
  return m;
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
  return detail::build_matrices<Fr>(count, n_vars, domain_size, [&](std::size_t i) {
    const std::size_t off = 4 + i * record_size;
    return zkey_coefficient<Fr>{u32_at(off), u32_at(off + 4), u32_at(off + 8),
                                Fr::repr::from_bytes_le(coef_section.data() + off + 12)};
  });
}

template <class Fr>
result<constraint_matrices<Fr>> matrices_from_records(std::span<const zkey_coefficient<Fr>> records,
                                                      std::size_t n_vars, std::size_t domain_size) {
  return detail::build_matrices<Fr>(records.size(), n_vars, domain_size,
                                    [&](std::size_t i) { return records[i]; });
}

}  // namespace cuzk::synth
