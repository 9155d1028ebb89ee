// Explicit instantiations of the GPU prover and its resident key for BLS12-381.
#include "gpu/groth16/gpu_groth16_impl.hpp"

namespace cuzk::gpu {
template class gpu_proving_key<bls12_381>;
template result<formats::proof<bls12_381>> gpu_prove<bls12_381>(const gpu_proving_key<bls12_381>&, gpu_workspace<bls12_381>&,
                                                  const groth16::proving_key_view<bls12_381>&,
                                                  std::span<const bls12_381::fr::repr>, const bls12_381::fr&,
                                                  const bls12_381::fr&, gpu_phase_timings*, thread_pool&);
template result<formats::proof<bls12_381>> gpu_prove<bls12_381>(const gpu_proving_key<bls12_381>&,
                                                  const groth16::proving_key_view<bls12_381>&,
                                                  std::span<const bls12_381::fr::repr>, const bls12_381::fr&,
                                                  const bls12_381::fr&, gpu_phase_timings*, thread_pool&);
}  // namespace cuzk::gpu
