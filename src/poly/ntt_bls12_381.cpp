// SPDX-License-Identifier: MIT OR Apache-2.0
// Explicit instantiations of the NTT, the coset evaluation and the H computation for bls12_381.
#include "curves/bls12_381.hpp"
#include "poly/ntt.hpp"
#include "poly/ntt_domain.hpp"
#include "poly/odd_coset.hpp"

namespace cuzk::poly {

template class ntt_domain<bls12_381>;
template status ntt<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>, ntt_direction,
                               ntt_order, ntt_order, thread_pool&);
template void bit_reverse_permute<bls12_381::fr>(std::span<bls12_381::fr>, thread_pool&);
template void distribute_powers<bls12_381::fr>(std::span<bls12_381::fr>, const bls12_381::fr&,
                                               const bls12_381::fr&, thread_pool&);
template status evaluate_on_coset<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>,
                                             const bls12_381::fr&, thread_pool&);
template status compute_h<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>,
                                     std::span<bls12_381::fr>, std::span<bls12_381::fr>, thread_pool&);

}  // namespace cuzk::poly
