// vk_alphabeta_12 = e(α1, β2), the Fq12 value `snarkjs zkey export verificationkey` writes into
// every verification key. No verifier needs it (ours and snarkjs's recompute the term), but with it
// the keys cuzk writes are byte-identical to snarkjs's export of the same zkey, which is the
// simplest interop check there is. The formats layer sits below the pairing and leaves the field
// out; the command line, which links both, fills it in.
//
// Our pairing and snarkjs's agree exactly, not just up to a power (pairing/gt_convention_test.cpp
// pins the final exponentiation to snarkjs's), and the JSON nesting is snarkjs's:
//   [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each an Fq2 [re, im] of decimal strings.
#pragma once

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/verification_key.hpp"

namespace cuzk::apps {

// vk with alphabeta_12 set to e(vk.alpha1, vk.beta2).
template <class C>
formats::verification_key<C> with_alphabeta(formats::verification_key<C> vk);

extern template formats::verification_key<bn254> with_alphabeta<bn254>(formats::verification_key<bn254>);
extern template formats::verification_key<bls12_381> with_alphabeta<bls12_381>(formats::verification_key<bls12_381>);

}  // namespace cuzk::apps
