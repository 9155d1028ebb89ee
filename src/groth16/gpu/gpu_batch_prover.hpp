// SPDX-License-Identifier: MIT OR Apache-2.0
// Proofs of several partitions of one circuit on one key at once, the way a Filecoin PoRep job (10
// partitions) or SnapDeals job (16) is proven: each partition's synthesis, NTTs and h run in turn,
// and then each of the five MSMs runs once for all of them (gpu::device_msm::run_device_batch),
// so a streamed key's points cross from host memory once per batch instead of once per proof.
//
// One path proves both: prove_with() is a batch of one (gpu_prover_impl.hpp, prove_partitions).
//
// Device memory beyond a single proof's: every partition's witness and h on the device (32 (nVars
// + n) bytes each), and bucket sets per partition in the MSM arenas (which grow to them on the
// first batch: gpu_proving_key::msm_scratch is a single proof's). batch_device_bytes() says how
// much (none for a batch of one, which proves in the workspace's own vectors), so that a caller
// picks how many partitions to batch for its device budget.
//
// Each proof is the one prove_with() gives for the same witness, r and s, bit for bit
// (gpu_batch_prover_test.cpp checks this against the CPU prover). The phase timings are the
// batch's: the copies', synthesis', NTTs' and MSMs' sums over the partitions, the total the whole
// batch's.
//
// Witnesses as they arrive. A caller that reads the witnesses from disk (the daemon: 10 files of
// up to 4 GiB for a PoRep job) hands prove_batch_from() a source instead of the spans: the batch
// asks for each partition's witness in order when it stages it, so the first partitions'
// synthesis, NTTs and h run while the last are still being read, and only the MSMs' one pass over
// the points waits for every witness. A witness that is late is waited for without the device's
// kernel gate (another proof on the slot runs meanwhile); the wait counts in timings->witness.
//
// Thread: as prove_with(): one batch per workspace at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "groth16/gpu/gpu_prover.hpp"

namespace cuzk::groth16 {

// The device bytes a batch of `partitions` proofs adds to one proof's (the witnesses and h vectors,
// and the MSMs' extra bucket sets), with `key` (made from pk) and its streamed vectors; 0 for one.
template <class Curve>
std::size_t batch_device_bytes(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                               std::size_t partitions);

// The MSM arenas a call of `partitions` proofs with `key` (made from pk) lays out: the key's own
// for one (gpu_proving_key::msm_scratch), one bucket set per partition in each for more
// (key_msm_scratch): what a workspace is reserved with for such a call (gpu_workspace::reserve).
template <class Curve>
msm_scratch_sizes batch_msm_scratch(const proving_key_view<Curve>& pk, const gpu_proving_key<Curve>& key,
                                    std::size_t partitions);

// A batch's witnesses, each there once the caller has it.
template <class Curve>
struct batch_witness_source {
  std::size_t count = 0;
  // Partition p's values, waiting until they are there; called once per partition, in order. The
  // values stay valid until prove_batch_from() returns. An error ends the batch with it.
  std::function<result<std::span<const typename Curve::fr::repr>>(std::size_t p)> wait;
  // Whether wait(p) would return without waiting; null: always.
  std::function<bool(std::size_t p)> ready;
};

// One proof per witness, in order, with blinding factors r[i], s[i].
// Errors: those of prove_with() for any witness (naming the partition), r or s of another length,
// and a source's own (as it gave them).
template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_from(const proving_key_view<Curve>& pk,
                                                            const batch_witness_source<Curve>& witnesses,
                                                            std::span<const typename Curve::fr> r,
                                                            std::span<const typename Curve::fr> s,
                                                            phase_timings* timings, const gpu_context<Curve>& where);

// prove_batch_from() with every witness in memory already.
template <class Curve>
result<std::vector<formats::proof<Curve>>> prove_batch_with(
    const proving_key_view<Curve>& pk, std::span<const std::span<const typename Curve::fr::repr>> witnesses,
    std::span<const typename Curve::fr> r, std::span<const typename Curve::fr> s, phase_timings* timings,
    const gpu_context<Curve>& where);

#define CUZK_GPU_BATCH_PROVER_EXTERN(C)                                                                   \
  extern template std::size_t batch_device_bytes<C>(const proving_key_view<C>&, const gpu_proving_key<C>&, \
                                                    std::size_t);                                        \
  extern template msm_scratch_sizes batch_msm_scratch<C>(const proving_key_view<C>&,                     \
                                                         const gpu_proving_key<C>&, std::size_t);        \
  extern template result<std::vector<formats::proof<C>>> prove_batch_from<C>(                             \
      const proving_key_view<C>&, const batch_witness_source<C>&, std::span<const C::fr>,                 \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&);                                     \
  extern template result<std::vector<formats::proof<C>>> prove_batch_with<C>(                             \
      const proving_key_view<C>&, std::span<const std::span<const C::fr::repr>>, std::span<const C::fr>,  \
      std::span<const C::fr>, phase_timings*, const gpu_context<C>&)
CUZK_GPU_BATCH_PROVER_EXTERN(bn254);
CUZK_GPU_BATCH_PROVER_EXTERN(bls12_381);
#undef CUZK_GPU_BATCH_PROVER_EXTERN

}  // namespace cuzk::groth16
