// SPDX-License-Identifier: MIT OR Apache-2.0
// The optimal ate pairing e: G1 x G2 -> GT for BN254 and BLS12-381, and the product of pairings
// that a Groth16 verifier checks.
//
// A pairing is a Miller loop followed by a final exponentiation. A product of n pairings shares
// one accumulator through the loop (one squaring per step for all pairs) and one final
// exponentiation, so pairing_check on the verifier's four terms costs little more than two
// pairings.
//
// Which element of GT: final_exponentiation computes a fixed power of the textbook reduced
// pairing, e(P,Q)^c with c = 3 on BLS12 curves and c = 2x(6x^2 + 3x + 1) on BN curves, because
// those are the exponents of the shortest known addition chains (final_exponentiation.hpp says
// which). c is prime to r, so the map is still a non-degenerate bilinear pairing, and these are
// exactly the values snarkjs computes and writes as vk_alphabeta_12, so users can compare them.
//
// Inputs are affine points, assumed on their curves and in the order-r subgroups (the formats
// layer checks that when it decodes them); a point at infinity, (0, 0), contributes 1.
//
// Generic code is written once over the curve; the definitions live in miller_loop.hpp and
// final_exponentiation.hpp and are compiled once per curve in pairing_<curve>.cpp, so this header
// stays light and a change recompiles one file per curve.
#pragma once

#include <span>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/affine.hpp"
#include "ff/fp12.hpp"

namespace cuzk::pairing {

template <class Curve>
using fq12 = ff::fp12<Curve>;
template <class Curve>
using g1_affine = ec::affine<typename Curve::fq>;
template <class Curve>
using g2_affine = ec::affine<typename Curve::fq2>;

template <class Curve>
struct g1g2_pair {
  g1_affine<Curve> p;
  g2_affine<Curve> q;
};

// prod_i f_{loop, Q_i}(P_i), the product of the pairs' Miller functions, before the final
// exponentiation.
template <class Curve>
fq12<Curve> miller_loop(std::span<const g1g2_pair<Curve>> pairs);

// f^((q^12 - 1)/r * c), with c as described above.
template <class Curve>
fq12<Curve> final_exponentiation(const fq12<Curve>& f);

template <class Curve>
fq12<Curve> pairing_product(std::span<const g1g2_pair<Curve>> pairs) {
  return final_exponentiation<Curve>(miller_loop<Curve>(pairs));
}

template <class Curve>
fq12<Curve> pairing(const g1_affine<Curve>& p, const g2_affine<Curve>& q) {
  const g1g2_pair<Curve> one_pair{p, q};
  return pairing_product<Curve>(std::span<const g1g2_pair<Curve>>(&one_pair, 1));
}

// prod_i e(P_i, Q_i) == 1: the Groth16 verification equation
// e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) == 1.
template <class Curve>
bool pairing_check(std::span<const g1g2_pair<Curve>> pairs) {
  return pairing_product<Curve>(pairs).is_one();
}

extern template fq12<bn254> miller_loop<bn254>(std::span<const g1g2_pair<bn254>>);
extern template fq12<bn254> final_exponentiation<bn254>(const fq12<bn254>&);
extern template fq12<bls12_381> miller_loop<bls12_381>(std::span<const g1g2_pair<bls12_381>>);
extern template fq12<bls12_381> final_exponentiation<bls12_381>(const fq12<bls12_381>&);

}  // namespace cuzk::pairing
