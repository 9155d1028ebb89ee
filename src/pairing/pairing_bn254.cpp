// SPDX-License-Identifier: MIT OR Apache-2.0
// The pairing for BN254, compiled once: explicit instantiations of the generic templates.
#include "curves/bn254.hpp"
#include "pairing/final_exponentiation.hpp"
#include "pairing/miller_loop.hpp"

namespace cuzk::pairing {

template fq12<bn254> miller_loop<bn254>(std::span<const g1g2_pair<bn254>>);
template fq12<bn254> final_exponentiation<bn254>(const fq12<bn254>&);

}  // namespace cuzk::pairing
