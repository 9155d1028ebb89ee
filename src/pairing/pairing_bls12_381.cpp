// SPDX-License-Identifier: MIT OR Apache-2.0
// The pairing for BLS12-381, compiled once: explicit instantiations of the generic templates.
#include "curves/bls12_381.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/miller_loop.hpp"

namespace cuzk::pairing {

template fq12<bls12_381> miller_loop<bls12_381>(std::span<const g1g2_pair<bls12_381>>);
template fq12<bls12_381> final_exponentiation<bls12_381>(const fq12<bls12_381>&);

}  // namespace cuzk::pairing
