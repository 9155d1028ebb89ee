// SPDX-License-Identifier: MIT OR Apache-2.0
// Per-proof synthesis: a = A*w, b = B*w, c = a∘b over the proving key's constraint matrices.
//
// These are the evaluations of the QAP polynomials A(x), B(x), C(x) on the n-point domain, the
// input of the H computation (poly/). c is taken as the pointwise product instead of C*w: the
// zkey carries no C, and for a satisfying witness the two agree row by row (the tests check it
// against the .r1cs's C). Rows past the matrices' row count, up to the buffers' length (the
// domain size), are zero.
//
// The outputs go into buffers the caller owns, so the daemon can hand in pinned host memory that
// the GPU then reads directly; nothing here allocates per proof. Rows are split across the
// thread pool in contiguous ranges: each thread reads its rows' entries sequentially and writes
// its own output range, with no sharing.
//
// The witness is the .wtns's plain integers (< r, checked by the formats reader), passed as raw
// limbs; see constraint_matrices.hpp for why no conversion is needed. a, b, c come out as
// ordinary (Montgomery-form) field elements.
#pragma once

#include <span>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "synth/constraint_matrices.hpp"

namespace cuzk::synth {

// a, b and c must have the same length, at least the matrices' row count (normally the domain
// size); witness.size() must be n_vars.
template <class Fr>
status evaluate_abc(const constraint_matrices<Fr>& m, std::span<const typename Fr::repr> witness,
                    std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                    thread_pool& pool = thread_pool::global());

extern template status evaluate_abc<bn254::fr>(const constraint_matrices<bn254::fr>&,
                                               std::span<const bn254::fr::repr>, std::span<bn254::fr>,
                                               std::span<bn254::fr>, std::span<bn254::fr>, thread_pool&);
extern template status evaluate_abc<bls12_381::fr>(const constraint_matrices<bls12_381::fr>&,
                                                   std::span<const bls12_381::fr::repr>,
                                                   std::span<bls12_381::fr>, std::span<bls12_381::fr>,
                                                   std::span<bls12_381::fr>, thread_pool&);

}  // namespace cuzk::synth
