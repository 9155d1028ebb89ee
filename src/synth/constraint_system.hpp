// SPDX-License-Identifier: MIT OR Apache-2.0
// A rank-1 constraint system in memory: A w ∘ B w = C w, with the wire layout circom uses.
//
// This is what a development setup consumes (an .r1cs read by formats/, or a synthetic circuit
// from synthetic_circuit.hpp), held as three CSR matrices with ordinary coefficients (not the
// zkey's c*R form), one row per constraint and one column per wire. Wire 0 is the constant 1,
// wires 1..n_public are the public signals (outputs, then public inputs), the rest private.
//
// The functions here derive what a proving key needs from it: the domain size and the zkey's
// coefficient records, including the nPublic + 1 extra A rows (signal s in row
// n_constraints + s with coefficient 1) that snarkjs adds so the IC points of the public inputs
// are linearly independent (snarkjs's zkey setup).
#pragma once

#include <bit>
#include <cstddef>
#include <span>
#include <vector>

#include "synth/constraint_matrices.hpp"
#include "synth/csr_matrix.hpp"

namespace cuzk::synth {

template <class Fr>
struct constraint_system {
  std::size_t n_vars = 0;    // wires, counting wire 0
  std::size_t n_public = 0;  // public outputs + public inputs, not counting wire 0
  std::size_t n_constraints = 0;
  csr_matrix<Fr> a, b, c;  // n_constraints x n_vars each

  // The smallest power of two >= n_constraints + n_public + 1 (snarkjs's domainSize).
  std::size_t domain_size() const { return std::bit_ceil(n_constraints + n_public + 1); }

  // A w ∘ B w == C w for every constraint, and w[0] == 1.
  bool is_satisfied(std::span<const typename Fr::repr> witness) const {
    if (witness.size() != n_vars || !(witness[0] == Fr::one().to_canonical())) return false;
    auto row = [&](const csr_matrix<Fr>& m, std::size_t r) {
      Fr acc = Fr::zero();
      const auto cols = m.row_cols(r);
      const auto vals = m.row_values(r);
      for (std::size_t k = 0; k < cols.size(); ++k)
        acc += vals[k] * Fr::from_canonical_unchecked(witness[cols[k]]);
      return acc;
    };
    for (std::size_t r = 0; r < n_constraints; ++r)
      if (!(row(a, r) * row(b, r) == row(c, r))) return false;
    return true;
  }

  // The zkey's coefficient records, in the order snarkjs's `zkey new` writes them: constraint by
  // constraint (A entries, then B), then the public-input rows.
  std::vector<zkey_coefficient<Fr>> zkey_records() const {
    std::vector<zkey_coefficient<Fr>> out;
    out.reserve(a.nnz() + b.nnz() + n_public + 1);
    for (std::size_t r = 0; r < n_constraints; ++r) {
      for (uint32_t which = 0; which < 2; ++which) {
        const csr_matrix<Fr>& m = which == 0 ? a : b;
        const auto cols = m.row_cols(r);
        const auto vals = m.row_values(r);
        for (std::size_t k = 0; k < cols.size(); ++k)
          out.push_back({which, static_cast<uint32_t>(r), cols[k], value_times_r(vals[k]).montgomery()});
      }
    }
    for (std::size_t s = 0; s <= n_public; ++s)
      out.push_back({0, static_cast<uint32_t>(n_constraints + s), static_cast<uint32_t>(s),
                     value_times_r(Fr::one()).montgomery()});
    return out;
  }
};

}  // namespace cuzk::synth
