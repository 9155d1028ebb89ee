// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 verification key and its verification_key.json, as `snarkjs zkey export
// verificationkey` writes it:
//
//   {"protocol": "groth16", "curve": "bn128", "nPublic": n, "vk_alpha_1": G1, "vk_beta_2": G2,
//    "vk_gamma_2": G2, "vk_delta_2": G2, "vk_alphabeta_12": Fq12, "IC": [G1 x (n + 1)]}
//
// in that key order and snarkjs's whitespace (snarkjs_json.hpp). vk_alphabeta_12 = e(α, β) is
// informational (no verifier needs it); it is kept as the JSON it was read as, so a key read and
// written back is byte-identical, and omitted when absent (a key exported here from a zkey has
// none until someone computes the pairing: the formats layer sits below the pairing).
//
// Reading is strict: every key but vk_alphabeta_12 is required; protocol must be "groth16", curve
// C's snarkjs name, nPublic an integer equal to len(IC) - 1; every point canonical, on the curve
// and in the subgroup. Errors name the file and the field ("verification_key.json: IC[2]: ...").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "formats/curve_id.hpp"
#include "formats/point_validation.hpp"
#include "formats/zkey.hpp"

namespace cuzk::formats {

template <class C>
struct verification_key {
  g1_affine<C> alpha1;
  g2_affine<C> beta2, gamma2, delta2;
  std::vector<g1_affine<C>> ic;  // nPublic + 1
  std::optional<nlohmann::ordered_json> alphabeta_12;

  uint32_t n_public() const { return static_cast<uint32_t>(ic.size() - 1); }
};

// The key's verifying part: alpha1, beta2, gamma2, delta2 and IC (no alphabeta_12).
template <class C>
verification_key<C> verification_key_of(const zkey<C>& key);

template <class C>
std::string verification_key_to_json(const verification_key<C>& vk);
template <class C>
result<verification_key<C>> verification_key_from_json(std::string_view text, const std::string& name,
                                                       subgroup_check check = subgroup_check::check);

template <class C>
status write_verification_key_json(const std::string& path, const verification_key<C>& vk);
template <class C>
result<verification_key<C>> read_verification_key_json(const std::string& path,
                                                       subgroup_check check = subgroup_check::check);

// The curve a verification_key.json (or proof.json) names in its "curve" field.
result<curve_id> detect_json_curve(const std::string& path);

#define CUZK_VK_EXTERN(C)                                                                                \
  extern template verification_key<C> verification_key_of<C>(const zkey<C>&);                            \
  extern template std::string verification_key_to_json<C>(const verification_key<C>&);                   \
  extern template result<verification_key<C>> verification_key_from_json<C>(                             \
      std::string_view, const std::string&, subgroup_check);                                             \
  extern template status write_verification_key_json<C>(const std::string&, const verification_key<C>&); \
  extern template result<verification_key<C>> read_verification_key_json<C>(const std::string&,          \
                                                                            subgroup_check)
CUZK_VK_EXTERN(bn254);
CUZK_VK_EXTERN(bls12_381);
#undef CUZK_VK_EXTERN

}  // namespace cuzk::formats
