// SPDX-License-Identifier: MIT OR Apache-2.0
// vk_alphabeta_12: the pairing e(alpha1, beta2) that snarkjs writes into verification_key.json.
//
// No verifier needs it (each recomputes the pairing), but users compare these files and tools
// that read them expect the key, so every verification key cuzk writes carries it. The value is
// our pairing, which equals snarkjs's (the same fixed power of the reduced pairing: see
// pairing/final_exponentiation.hpp), printed in ffjavascript's Fq12 layout:
// [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each Fq2 as [real, imaginary] decimal strings.
// It lives here rather than in formats because formats sits below the pairing layer.
#pragma once

#include <nlohmann/json.hpp>

#include "curves/groups.hpp"
#include "formats/verification_key.hpp"
#include "pairing/pairing.hpp"

namespace cuzk::groth16 {

template <class Curve>
nlohmann::ordered_json alphabeta_12_json(const g1_affine<Curve>& alpha1, const g2_affine<Curve>& beta2) {
  const auto e = pairing::pairing<Curve>(alpha1, beta2);
  auto fq2_json = [](const auto& x) { return nlohmann::ordered_json::array({x.c0.to_decimal(), x.c1.to_decimal()}); };
  auto fq6_json = [&](const auto& x) {
    return nlohmann::ordered_json::array({fq2_json(x.c0), fq2_json(x.c1), fq2_json(x.c2)});
  };
  return nlohmann::ordered_json::array({fq6_json(e.c0), fq6_json(e.c1)});
}

// Fills vk.alphabeta_12 from vk.alpha1 and vk.beta2.
template <class Curve>
void add_alphabeta_12(formats::verification_key<Curve>& vk) {
  vk.alphabeta_12 = alphabeta_12_json<Curve>(vk.alpha1, vk.beta2);
}

}  // namespace cuzk::groth16
