// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prover on the GPU: the prover contract of groth16/prover.hpp with a device context,
// and the same proof as the CPU prover, bit for bit, for the same witness, r and s.
//
// The steps and where they run (prover.hpp and assemble.hpp have the formulas;
// gpu_prover_impl.hpp has one function per step):
//   CPU   stage_witness: the witness into a pinned buffer
//   GPU   copy_witness: the witness to the device once; run_witness_msms: A, B1, B2 (G2; all nVars
//         signals) and C (signals nPublic+1..nVars-1) read it there, in that order, on a thread of
//         their own, started before synthesis: they need only the witness
//   GPU   synthesis a = A w, b = B w, c = a∘b (the key's synthesis_place: by default on the device
//         from the same device witness, gpu/abc_device.hpp; or synthesize_on_host: CPU threads
//         into pinned (or, to measure the difference, pageable) buffers, then a, b, c copied on the
//         copy stream, one vector at a time)
//   GPU   transform, on the NTT stream, as each vector is there: inverse NTT natural ->
//         bit-reversed, forward odd-coset NTT bit-reversed -> natural (no permutation pass; the
//         coset factor g^i is applied at bit-reversed positions inside the first pass), then
//         h = a b - c out of Montgomery form (gpu/h_scalars.hpp)
//   GPU   msm_h, on the h the NTT stream left in device memory
//   CPU   assemble (groth16/assemble.hpp), the CPU prover's own code
// A proof is a batch of one (gpu_batch_prover.hpp): the same steps prove a batch's partitions, each
// MSM once over every partition's scalars.
// With two of a, b, c on the device (abc_on_device::two, gpu_workspace.hpp) the order differs: c
// is made in b's place once a b is made. With synthesis on the device a second synthesis kernel
// makes it there; with synthesis on the host it is copied in, and the witness into it once h is,
// so the witness MSMs start after the transforms, beside msm_h, and lent host buffers go back at
// the end.
// The domain points, the coset shift (omega_2n, or 25 at the largest domain) and every field
// operation are those of poly::compute_h, and a field element's representation is unique, so
// h and the MSM sums, and hence the affine proof points, equal the CPU prover's exactly.
//
// Where the lock is held. The kernel lock (gpu_proving_key.hpp) covers the GPU work only: the MSM
// thread takes its turn around A, B1, C (and B2, unless B2's own thread runs it beside them), and
// the proving thread from synthesis on the device (or the first NTT) to the end of the H MSM; the
// sides share one turn (kernel_gate.hpp), so one side's copy-bound MSMs overlap another's
// compute-bound ones. The witness copies, synthesis on the host,
// the copies to the device (issued before the lock, on the workspace's copy stream, so they
// overlap another proof's kernels) and the assembly run outside it. How long each proof waited for
// the lock and held it is timed. Host buffers a lender put in the workspace go back once the
// copies have read them: before the proving thread waits for the lock, when it has to wait.
//
// Timings (phase_timings): GPU spans are CUDA events; the MSMs are host clocks around each
// (synchronous) run; CPU phases are host clocks. Phases overlap (A, B1, B2, C with synthesis and
// with whatever of the NTTs and the H MSM they outlast), so they do not add up to `total`. The
// kernel spans: MSMs A, B1, B2, C are synchronous runs, so their parts are exact; inside "ntt_h"
// the kernels are queued at once, so "synthesis" (on the device) and "ntt" are placed from the
// interval's start with their CUDA-event lengths and "msm_h" is the rest of the interval.
//
// Thread: any thread. With a workspace, one proof per workspace at a time (the caller's); without
// one the key's own serves, one proof at a time.
#pragma once

#include <span>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/proof.hpp"
#include "groth16/gpu/gpu_proving_key.hpp"
#include "groth16/phase_timings.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

// Where the GPU prover runs: the key resident on its device, the buffers of one proof (on the
// key's device; grown first when the proof is larger than they are; null: the key's own, made with
// key_workspace::own), and the threads that stage the witness and, with synthesis on the host,
// synthesize.
template <class Curve>
struct gpu_context {
  const gpu_proving_key<Curve>& key;
  gpu_workspace<Curve>* workspace = nullptr;
  thread_pool* pool = &thread_pool::global();
};

// The proof for `witness` (nVars plain integers < r, w_0 = 1) with blinding factors r, s. `pk` is
// the CPU view of the same key the context's key was made from (its matrices for synthesis on the
// host and its header points).
// Errors: pk inconsistent or of other sizes than the device key, a witness of the wrong length, a
// workspace on another device, no workspace where the key has none of its own, CUDA failures.
template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings, const gpu_context<Curve>& where);

// prove_with() with r and s uniform in Fr from getrandom.
template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness, phase_timings* timings,
                                    const gpu_context<Curve>& where);

#define CUZK_GPU_PROVER_EXTERN(C)                                                                 \
  extern template result<formats::proof<C>> prove_with<C>(                                        \
      const proving_key_view<C>&, std::span<const C::fr::repr>, const C::fr&, const C::fr&,       \
      phase_timings*, const gpu_context<C>&);                                                     \
  extern template result<formats::proof<C>> prove<C>(const proving_key_view<C>&,                  \
                                                     std::span<const C::fr::repr>, phase_timings*, \
                                                     const gpu_context<C>&)
CUZK_GPU_PROVER_EXTERN(bn254);
CUZK_GPU_PROVER_EXTERN(bls12_381);
#undef CUZK_GPU_PROVER_EXTERN

}  // namespace cuzk::groth16
