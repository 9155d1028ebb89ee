// Proofs of several partitions of one circuit on one key at once, the way a Filecoin PoRep job (10
// partitions) or SnapDeals job (16) is proven: each partition's synthesis, NTTs and h run in turn,
// and then each of the five MSMs runs once for all of them (gpu::device_msm::run_device_batch),
// so a streamed key's points cross from host memory once per batch instead of once per proof.
//
// Device memory beyond a single proof's: every partition's witness and h on the device (32 (nVars
// + n) bytes each), and bucket sets per partition in the MSM arenas (which grow to them on the
// first batch: gpu_proving_key::msm_scratch is a single proof's). batch_device_bytes() says how
// much, so that a caller picks how many partitions to batch for its device budget.
//
// Each proof is the one prove_with() gives for the same witness, r and s, bit for bit
// (gpu_batch_prover_test.cpp checks this against the CPU prover). The phase timings are the
// batch's: the MSMs' and NTTs' sums over the partitions, the total the whole batch's.
//
// Thread: as prove_with(): one batch per workspace at a time.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "groth16/gpu/gpu_prover.hpp"

namespace cuzk::groth16 {

// The device bytes a batch of `partitions` proofs adds to one proof's (the witnesses and h vectors,
// and the MSMs' extra bucket sets), with `key` (made from pk) and its streamed vectors.
template <class Curve>
std::size_t batch_device_bytes(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                               std::size_t partitions);

// One proof per witness, in order, with blinding factors r[i], s[i].
// Errors: those of prove_with() for any witness (naming the partition), r or s of another length.
template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_with(
    const proving_key_view<Curve>& pk, std::span<const std::span<const typename Curve::fr::repr>> witnesses,
    std::span<const typename Curve::fr> r, std::span<const typename Curve::fr> s, phase_timings* timings,
    const gpu_context<Curve>& where);

#define CUZK_GPU_BATCH_PROVER_EXTERN(C)                                                                   \
  extern template std::size_t batch_device_bytes<C>(const proving_key_view<C>&, const gpu_proving_key<C>&, \
                                                    std::size_t);                                        \
  extern template result<std::vector<formats::proof<C>>> prove_batch_with<C>(                             \
      const proving_key_view<C>&, std::span<const std::span<const C::fr::repr>>, std::span<const C::fr>,  \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&)
CUZK_GPU_BATCH_PROVER_EXTERN(bn254);
CUZK_GPU_BATCH_PROVER_EXTERN(bls12_381);
#undef CUZK_GPU_BATCH_PROVER_EXTERN

}  // namespace cuzk::groth16
