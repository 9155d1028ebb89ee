// SPDX-License-Identifier: MIT OR Apache-2.0
// The MSM instantiations for bn254's G1 and G2 (pippenger.hpp declares them extern).
#include "msm/pippenger.hpp"

namespace cuzk::msm {

template bn254_g1::jacobian msm<bn254_g1>(std::span<const bn254_g1::affine>, std::span<const bn254_g1::scalar::repr>,
                                       const msm_options&, thread_pool&);
template bn254_g2::jacobian msm<bn254_g2>(std::span<const bn254_g2::affine>, std::span<const bn254_g2::scalar::repr>,
                                       const msm_options&, thread_pool&);

}  // namespace cuzk::msm
