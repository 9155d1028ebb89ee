// SPDX-License-Identifier: MIT OR Apache-2.0
// The MSM instantiations for bls12_381's G1 and G2 (pippenger.hpp declares them extern).
#include "msm/pippenger.hpp"

namespace cuzk::msm {

template bls12_381_g1::jacobian msm<bls12_381_g1>(std::span<const bls12_381_g1::affine>, std::span<const bls12_381_g1::scalar::repr>,
                                       const msm_options&, thread_pool&);
template bls12_381_g2::jacobian msm<bls12_381_g2>(std::span<const bls12_381_g2::affine>, std::span<const bls12_381_g2::scalar::repr>,
                                       const msm_options&, thread_pool&);

}  // namespace cuzk::msm
