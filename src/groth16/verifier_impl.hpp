// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for verifier.hpp, compiled once per curve in groth16_<curve>.cpp.
#pragma once

#include <array>
#include <string>

#include "ec/group.hpp"
#include "ec/scalar_mul.hpp"
#include "groth16/verifier.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

namespace detail {

template <class G>
status check_proof_point(const typename G::affine& p, const char* name) {
  if (!ec::is_on_curve<G>(p))
    return status(errc::not_on_curve, std::string("proof: ") + name + ": expected a point on the " + G::name +
                                          " curve, found one that is not");
  if (!G::in_subgroup_given_on_curve(p))
    return status(errc::not_in_subgroup, std::string("proof: ") + name +
                                             ": expected a point in the order-r " + G::name +
                                             " subgroup, found one outside it");
  return status::ok();
}

}  // namespace detail

template <class Curve>
status verify(const formats::verification_key<Curve>& vk, std::span<const typename Curve::fr> publics,
              const formats::proof<Curve>& proof) {
  using G1 = g1_group<Curve>;
  using G2 = g2_group<Curve>;
  if (vk.ic.empty())
    return status(errc::invalid_argument, "verification key: IC: expected nPublic + 1 points, found none");
  if (publics.size() != vk.ic.size() - 1)
    return status(errc::invalid_argument,
                  "public signals: count: expected the key's nPublic = " + std::to_string(vk.ic.size() - 1) +
                      ", found " + std::to_string(publics.size()));
  CUZK_TRY(detail::check_proof_point<G1>(proof.a, "pi_a"));
  CUZK_TRY(detail::check_proof_point<G2>(proof.b, "pi_b"));
  CUZK_TRY(detail::check_proof_point<G1>(proof.c, "pi_c"));

  g1<Curve> cpub = g1<Curve>::from_affine(vk.ic[0]);
  for (std::size_t i = 0; i < publics.size(); ++i) cpub += ec::scalar_mul(vk.ic[i + 1], publics[i]);

  const std::array<pairing::g1g2_pair<Curve>, 4> pairs = {{
      {-proof.a, proof.b},
      {cpub.to_affine(), vk.gamma2},
      {proof.c, vk.delta2},
      {vk.alpha1, vk.beta2},
  }};
  if (!pairing::pairing_check<Curve>(pairs))
    return status(
        errc::verification_failed,
        "invalid proof: e(-A, B) e(cpub, gamma) e(C, delta) e(alpha, beta) != 1 for these public signals");
  return status::ok();
}

}  // namespace cuzk::groth16
