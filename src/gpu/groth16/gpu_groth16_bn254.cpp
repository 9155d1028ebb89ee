// Explicit instantiations of the GPU prover and its resident key for BN254.
#include "gpu/groth16/gpu_groth16_impl.hpp"

namespace cuzk::gpu {
template class gpu_proving_key<bn254>;
template result<formats::proof<bn254>> gpu_prove<bn254>(const gpu_proving_key<bn254>&, gpu_workspace<bn254>&,
                                                  const groth16::proving_key_view<bn254>&,
                                                  std::span<const bn254::fr::repr>, const bn254::fr&,
                                                  const bn254::fr&, gpu_phase_timings*, thread_pool&);
template result<formats::proof<bn254>> gpu_prove<bn254>(const gpu_proving_key<bn254>&,
                                                  const groth16::proving_key_view<bn254>&,
                                                  std::span<const bn254::fr::repr>, const bn254::fr&,
                                                  const bn254::fr&, gpu_phase_timings*, thread_pool&);
}  // namespace cuzk::gpu
