// Explicit instantiations of the GPU prover and its resident key for BN254.
#include "groth16/gpu/gpu_prover_impl.hpp"

namespace cuzk::groth16 {
using C = bn254;
template class gpu_proving_key<C>;
template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&, std::span<const C::fr::repr>,
                                                 const C::fr&, const C::fr&, phase_timings*, const gpu_context<C>&);
template result<formats::proof<C>> prove<C>(const proving_key_view<C>&, std::span<const C::fr::repr>,
                                            phase_timings*, const gpu_context<C>&);
}  // namespace cuzk::groth16
