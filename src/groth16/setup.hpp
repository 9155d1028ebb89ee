// SPDX-License-Identifier: MIT OR Apache-2.0
// Development setup: a Groth16 proving key and verification key for a constraint system, from
// fresh random toxic waste.
//
// NOT A CEREMONY. Whoever runs this could have kept τ, α, β, γ, δ and could then forge proofs for
// any statement. It exists for tests, benchmarks and development, where a snarkjs powers of tau
// plus phase 2 would take many minutes (hours at 2^20). The secrets are drawn from the OS CSPRNG,
// used, and dropped; the result says so in `development_key::provenance`, which callers (the
// CLI) print.
//
// The key has snarkjs's layout and meaning exactly (snarkjs's zkey setup), so snarkjs and
// rapidsnark prove with it, with L_j = L_j(τ) the n-domain Lagrange basis and m = nConstraints:
//   A[s]  = Σ_j a_js L_j G1 (+ L_(m+s) G1 for s <= nPublic, the public-input rows)
//   B1[s] = Σ_j b_js L_j G1,  B2[s] = Σ_j b_js L_j G2
//   IC[s] = (β A_s + α B_s + C_s) / γ G1 for s <= nPublic, C[s] = the same / δ for s > nPublic
//           (A_s, B_s, C_s the scalars above, C_s = Σ_j c_js L_j)
//   H[j]  = L'_j(τ) / δ G1, the coset basis of lagrange.hpp (not the textbook τ^i Z(τ) / δ:
//           snarkjs's prover pairs these points with (AB - C) on the odd coset)
//   alpha1 = α G1, beta1 = β G1, beta2 = β G2, gamma2 = γ G2, delta1 = δ G1, delta2 = δ G2.
// snarkjs itself keeps γ = 1; a random γ is equally valid (its verifier reads gamma2 from the key).
//
// Cost: O(n) field work for the Lagrange values (one batch inversion), then ~3 nVars + n G1 and
// nVars G2 fixed-base multiplications (fixed_base.hpp) on the thread pool, or on a GPU
// (fixed_base_engine). Each point vector is made in the key's own vector, from scalars kept only
// while they are needed, so the setup's peak memory is about the key's own size.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey_writer.hpp"
#include "synth/constraint_system.hpp"

namespace cuzk::groth16 {

inline constexpr const char* development_setup_provenance =
    "cuzk development setup: random toxic waste from the OS CSPRNG, NOT a trusted-setup ceremony; "
    "for tests, benchmarks and development only";

// What a development setup makes: the proving key in the form formats::write_zkey takes, its
// verification key (with vk_alphabeta_12, as snarkjs writes it) and the label.
template <class Curve>
struct development_key {
  formats::groth16_key_data<Curve> key;
  formats::verification_key<Curve> vk;
  std::string provenance;
};

template <class Curve>
struct toxic_waste {
  typename Curve::fr tau, alpha, beta, gamma, delta;
};

// Where a setup's fixed-base products run: each function sets out[i] = [scalars[i]] of its group's
// generator, affine (out.size() == scalars.size()). Empty: the CPU comb of fixed_base.hpp. `cuzk
// setup` passes a GPU's (groth16/gpu/gpu_fixed_base.hpp), which makes a 2^25 key in seconds.
template <class Curve>
struct fixed_base_engine {
  using fr = typename Curve::fr;
  std::function<status(std::span<const fr>, std::span<g1_affine<Curve>>)> g1;
  std::function<status(std::span<const fr>, std::span<g2_affine<Curve>>)> g2;
};

// Each secret uniform in [1, r) from getrandom.
template <class Curve>
toxic_waste<Curve> random_toxic_waste();

// The key for `cs` from given secrets (tests fix them). Fails if the domain would exceed the
// field's 2-adicity, if γ or δ is zero, or if τ is one of the 2n evaluation points; or with the
// engine's error.
template <class Curve>
result<development_key<Curve>> setup(const synth::constraint_system<typename Curve::fr>& cs,
                                     const toxic_waste<Curve>& tw, const fixed_base_engine<Curve>& engine = {});

// setup() with random_toxic_waste(): what `cuzk setup` runs.
template <class Curve>
result<development_key<Curve>> development_setup(const synth::constraint_system<typename Curve::fr>& cs,
                                                 const fixed_base_engine<Curve>& engine = {}) {
  return setup<Curve>(cs, random_toxic_waste<Curve>(), engine);
}

extern template toxic_waste<bn254> random_toxic_waste<bn254>();
extern template toxic_waste<bls12_381> random_toxic_waste<bls12_381>();
extern template result<development_key<bn254>> setup<bn254>(const synth::constraint_system<bn254::fr>&,
                                                            const toxic_waste<bn254>&,
                                                            const fixed_base_engine<bn254>&);
extern template result<development_key<bls12_381>> setup<bls12_381>(
    const synth::constraint_system<bls12_381::fr>&, const toxic_waste<bls12_381>&,
    const fixed_base_engine<bls12_381>&);

}  // namespace cuzk::groth16
