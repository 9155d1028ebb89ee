// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthetic circuits of any power-of-two size with a satisfying witness, for benchmarks at sizes
// circom cannot reach quickly (2^20 to 2^24 constraints).
//
// The circuit fills its domain exactly: 2^log_size - 2 constraints, one public input (wire 1),
// one private input (wire 2), and each constraint defines one new wire from earlier ones, so
// nVars ~ the constraint count as in real circuits. Two witness shapes, because the MSMs' cost
// depends on them:
//
// * dense: every constraint is (c1 x + c2 y) * (c3 u) = z over random earlier wires x, y, u with
//   random coefficients; nearly every witness value is a random field element;
// * mostly_boolean: 90% of the constraints are booleanity checks z * (z - 1) = 0 on a fresh
//   random bit z (what circom emits for range checks and bit decompositions), the rest products
//   z = x * y of earlier wires, so about 90% of the witness is 0 or 1, as in hash circuits.
//
// Deterministic in the seed: the same arguments give the same circuit and witness.
#pragma once

#include <cstdint>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "synth/constraint_system.hpp"

namespace cuzk::synth {

enum class witness_kind { dense, mostly_boolean };

template <class Fr>
struct synthetic_circuit {
  constraint_system<Fr> cs;
  std::vector<typename Fr::repr> witness;  // plain integers, as a .wtns holds them
};

// log_size >= 2 (the domain holds at least the two public-input rows and one constraint).
template <class Fr>
synthetic_circuit<Fr> make_synthetic_circuit(unsigned log_size, witness_kind kind, uint64_t seed = 1);

extern template synthetic_circuit<bn254::fr> make_synthetic_circuit<bn254::fr>(unsigned, witness_kind,
                                                                               uint64_t);
extern template synthetic_circuit<bls12_381::fr> make_synthetic_circuit<bls12_381::fr>(unsigned, witness_kind,
                                                                                       uint64_t);

}  // namespace cuzk::synth
