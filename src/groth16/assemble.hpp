// SPDX-License-Identifier: MIT OR Apache-2.0
// The last step of every Groth16 prover, CPU or GPU: the proof from the five MSM sums, with the
// blinding factors r and s. This is the one place the blinding formulas are written.
//
// With w the witness, the sums are (prover.hpp has the rest of the steps)
//   a  = Σ_i w_i A_i     b1 = Σ_i w_i B1_i     b2 = Σ_i w_i B2_i (G2)
//   c  = Σ_{i > nPublic} w_i C_i               h  = Σ_j h_j H_j
// and the proof is
//   πA  = α1 + a + r δ1
//   πB  = β2 + b2 + s δ2        (and its G1 copy πB1 = β1 + b1 + s δ1, needed only for πC)
//   πC  = c + h + s πA + r πB1 - r s δ1
// which is Groth's πC = (Σ_priv w_i (β u_i + α v_i + w_i(τ)) + h(τ) t(τ)) / δ + s A + r B - r s δ
// (Groth, "On the size of pairing-based non-interactive arguments", EUROCRYPT 2016, section 3.2),
// with the 1/δ and the vanishing polynomial folded into the key's C and H points.
//
// The multiplications by r and s are variable-time, as in snarkjs and rapidsnark.
#pragma once

#include "curves/groups.hpp"
#include "ec/scalar_mul.hpp"
#include "formats/proof.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

template <class Curve>
struct msm_sums {
  g1<Curve> a, b1, c, h;
  g2<Curve> b2;
};

template <class Curve>
formats::proof<Curve> assemble(const proving_key_view<Curve>& pk, const msm_sums<Curve>& sums,
                               const typename Curve::fr& r, const typename Curve::fr& s) {
  const g1<Curve> pi_a = sums.a + pk.alpha1 + ec::scalar_mul(pk.delta1, r);
  const g1<Curve> pi_b1 = sums.b1 + pk.beta1 + ec::scalar_mul(pk.delta1, s);
  const g2<Curve> pi_b = sums.b2 + pk.beta2 + ec::scalar_mul(pk.delta2, s);
  const g1<Curve> pi_c = sums.c + sums.h + ec::scalar_mul(pi_a, s) + ec::scalar_mul(pi_b1, r) -
                         ec::scalar_mul(pk.delta1, r * s);
  return {pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace cuzk::groth16
