// SPDX-License-Identifier: MIT OR Apache-2.0
// The A and B matrices of a Groth16 proving key, in the form a proof evaluates them.
//
// A snarkjs .zkey stores the QAP's A and B as loose coefficient records (section 4; see
// snarkjs's zkey setup) and no C at all: the prover recomputes c as
// a∘b, which holds row by row for any witness that satisfies the circuit. The rows are the
// circuit's constraints followed by nPublic + 1 extra A rows (signal s in row nConstraints + s
// with coefficient 1) that make the public inputs' IC terms independent. matrices_from_zkey
// turns those records into CSR once per circuit (csr_matrix.hpp); evaluate_abc.hpp uses it per
// proof.
//
// The "double Montgomery" values. A record holds c*R^2 mod r as a plain integer (R = 2^256).
// Read as Montgomery limbs it is the field element c*R, and the witness file's plain integer w
// read as Montgomery limbs is w/R; their product is exactly the field element c*w. So the
// matrices keep each value as the element c*R (`value_times_r`), and evaluation multiplies by
// the witness's raw limbs: no conversion of either operand, as snarkjs and rapidsnark do it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "synth/csr_matrix.hpp"

namespace cuzk::synth {

template <class Fr>
struct constraint_matrices {
  // Rows are constraints (including the public-input rows), columns are signals. Values are the
  // coefficients times R, as explained above. a.rows == b.rows <= domain_size.
  csr_matrix<Fr> a;
  csr_matrix<Fr> b;
  std::size_t n_vars = 0;
  std::size_t domain_size = 0;
};

// The element c*R for a coefficient c, the form constraint_matrices stores.
template <class Fr>
constexpr Fr value_times_r(const Fr& c) {
  return c * Fr::from_montgomery(Fr::r2);  // the element with Montgomery limbs R^2 is R
}

// Reads the payload of the zkey's coefficient section (u32 nCoefs, then nCoefs records of u32
// matrix, u32 constraint, u32 signal and a 32-byte value) into CSR matrices with
// max(constraint) + 1 rows. Errors name the record: matrix not 0 or 1, constraint >=
// domain_size, signal >= n_vars, value >= r, or a payload whose size is not 4 + 44 * nCoefs.
template <class Fr>
result<constraint_matrices<Fr>> matrices_from_zkey(std::span<const uint8_t> coef_section, std::size_t n_vars,
                                                   std::size_t domain_size);

// A record of the zkey's coefficient section; value is the stored integer, c*R^2 mod r.
template <class Fr>
struct zkey_coefficient {
  uint32_t matrix;  // 0 = A, 1 = B
  uint32_t constraint;
  uint32_t signal;
  typename Fr::repr value;
};

// The same from records already in memory (setup and the synthetic circuits build keys this way).
template <class Fr>
result<constraint_matrices<Fr>> matrices_from_records(std::span<const zkey_coefficient<Fr>> records,
                                                      std::size_t n_vars, std::size_t domain_size);

extern template result<constraint_matrices<bn254::fr>> matrices_from_zkey<bn254::fr>(std::span<const uint8_t>,
                                                                                     std::size_t,
                                                                                     std::size_t);
extern template result<constraint_matrices<bn254::fr>> matrices_from_records<bn254::fr>(
    std::span<const zkey_coefficient<bn254::fr>>, std::size_t, std::size_t);
extern template result<constraint_matrices<bls12_381::fr>> matrices_from_zkey<bls12_381::fr>(
    std::span<const uint8_t>, std::size_t, std::size_t);
extern template result<constraint_matrices<bls12_381::fr>> matrices_from_records<bls12_381::fr>(
    std::span<const zkey_coefficient<bls12_381::fr>>, std::size_t, std::size_t);

}  // namespace cuzk::synth
