// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 verifier: does a proof check against a verification key and public signals?
//
// In order, each with its own error:
//   1. the number of public signals is the key's nPublic (invalid_argument); each is an element
//      of Fr, so below r by construction (formats::read_public_json rejects values >= r);
//   2. πA and πC are on G1's curve and in its order-r subgroup, πB likewise in G2 (not_on_curve /
//      not_in_subgroup, naming the point). snarkjs checks only the curve equation; the subgroup
//      check is what rules out small-order components in πB on curves with a G2 cofactor;
//   3. the pairing equation, as one multi-pairing (one Miller loop, one final exponentiation):
//        e(-πA, πB) e(cpub, γ2) e(πC, δ2) e(α1, β2) = 1,  cpub = IC_0 + Σ_i pub_i IC_(i+1)
//      (snarkjs's Groth16 verifier). A proof that fails it gets
//      errc::verification_failed with a message starting "invalid proof".
//
// Nothing here is secret, so variable-time arithmetic is fine.
#pragma once

#include <span>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/proof.hpp"
#include "formats/verification_key.hpp"

namespace cuzk::groth16 {

// status::ok() when the proof is valid for `publics` (w_1..w_nPublic, as in public.json).
template <class Curve>
status verify(const formats::verification_key<Curve>& vk, std::span<const typename Curve::fr> publics,
              const formats::proof<Curve>& proof);

extern template status verify<bn254>(const formats::verification_key<bn254>&, std::span<const bn254::fr>,
                                     const formats::proof<bn254>&);
extern template status verify<bls12_381>(const formats::verification_key<bls12_381>&,
                                         std::span<const bls12_381::fr>, const formats::proof<bls12_381>&);

}  // namespace cuzk::groth16
