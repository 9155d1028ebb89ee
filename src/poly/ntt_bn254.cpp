// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiations of the NTT, the coset evaluation and the H computation for bn254.
#include "curves/bn254.hpp"
#include "poly/ntt.hpp"
#include "poly/ntt_domain.hpp"
#include "poly/odd_coset.hpp"

namespace cuzk::poly {

template class ntt_domain<bn254>;
template status ntt<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>, ntt_direction, ntt_order,
                           ntt_order, thread_pool&);
template void bit_reverse_permute<bn254::fr>(std::span<bn254::fr>, thread_pool&);
template void distribute_powers<bn254::fr>(std::span<bn254::fr>, const bn254::fr&, const bn254::fr&,
                                           thread_pool&);
template status evaluate_on_coset<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>, const bn254::fr&,
                                         thread_pool&);
template status compute_h<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>, std::span<bn254::fr>,
                                 std::span<bn254::fr>, thread_pool&);

}  // namespace cuzk::poly
