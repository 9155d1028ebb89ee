// SPDX-License-Identifier: MIT OR Apache-2.0
// A Groth16 proof (πA ∈ G1, πB ∈ G2, πC ∈ G1) and its proof.json, as snarkjs writes it:
//
//   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], "pi_c": [x, y, "1"],
//    "protocol": "groth16", "curve": "bn128" | "bls12381"}
//
// with decimal strings of the plain affine coordinates, in that key order and snarkjs's
// whitespace (snarkjs_json.hpp). proof_to_json() gives the same bytes as `snarkjs groth16 prove`.
//
// Reading is strict: pi_a, pi_b, pi_c and protocol = "groth16" are required; "curve" may be
// missing (rapidsnark omits it) but must name C when present; other keys are ignored. Points must
// be canonical and on the curve; the subgroup check is on by default (snarkjs's verifier checks
// only the curve equation, which lets a small-order πB through; we do not).
#pragma once

#include <string>
#include <string_view>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/groups.hpp"
#include "formats/point_validation.hpp"

namespace cuzk::formats {

template <class C>
struct proof {
  g1_affine<C> a;
  g2_affine<C> b;
  g1_affine<C> c;
  bool operator==(const proof&) const = default;
};

// The text of proof.json.
template <class C>
std::string proof_to_json(const proof<C>& p);
// `name` (the file) prefixes every error, with the field: "proof.json: pi_b: bn254 G2 y.c0: ...".
template <class C>
result<proof<C>> proof_from_json(std::string_view text, const std::string& name,
                                 subgroup_check check = subgroup_check::check);

template <class C>
status write_proof_json(const std::string& path, const proof<C>& p);
template <class C>
result<proof<C>> read_proof_json(const std::string& path, subgroup_check check = subgroup_check::check);

#define CUZK_PROOF_EXTERN(C)                                                                                 \
  extern template std::string proof_to_json<C>(const proof<C>&);                                             \
  extern template result<proof<C>> proof_from_json<C>(std::string_view, const std::string&, subgroup_check); \
  extern template status write_proof_json<C>(const std::string&, const proof<C>&);                           \
  extern template result<proof<C>> read_proof_json<C>(const std::string&, subgroup_check)
CUZK_PROOF_EXTERN(bn254);
CUZK_PROOF_EXTERN(bls12_381);
#undef CUZK_PROOF_EXTERN

}  // namespace cuzk::formats
