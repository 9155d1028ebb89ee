// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 prover on the CPU, step by step as snarkjs and rapidsnark compute it, so that a
// proof from a snarkjs .zkey verifies with snarkjs.
//
// With w the witness (w_0 = 1, w_1..w_nPublic public), r and s the blinding factors:
//   synthesize   a = A w, b = B w, c = a∘b on the n-domain (synth/evaluate_abc.hpp)
//   compute_h    h_j = (AB - C)(x_j) on the odd coset x_j = c ω^j (poly/odd_coset.hpp), then out of
//                Montgomery form: the scalars of the H section
//   msm_a        Σ_i w_i A_i
//   msm_b_g2     Σ_i w_i B2_i
//   msm_b_g1     Σ_i w_i B1_i            (G1 copy of B, needed only for πC)
//   msm_c        Σ_{i > nPublic} w_i C_i
//   msm_h        Σ_j h_j H_j
//   assemble     the proof from the five sums with r and s (assemble.hpp, the blinding formulas)
//
// The contract every prover keeps: prove_with(pk, witness, r, s, timings, context), where the
// context says where it runs. This header's is cpu_context (a thread pool); the GPU prover's is
// gpu_context (groth16/gpu/gpu_prover.hpp). For the same pk, witness, r and s both give the same
// proof, bit for bit.
//
// prove_with() takes r and s explicitly: r = s = 0 gives a deterministic proof that tests compare
// against an independent computation, and the same r, s give the same proof on any thread
// count. prove() draws them from the OS CSPRNG; that is the one callers use.
//
// Side channels: the MSMs over the (secret) witness are variable-time, as in snarkjs and
// rapidsnark, and so are the few multiplications by r and s; this prover is not hardened
// against an attacker who times it from the same machine.
#pragma once

#include <span>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/proof.hpp"
#include "groth16/phase_timings.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

// Where the CPU prover runs: the threads of `pool`. Converts from a thread_pool so that a pool
// can be passed where the context goes.
struct cpu_context {
  cpu_context(thread_pool& p = thread_pool::global()) : pool(&p) {}  // NOLINT: implicit on purpose
  thread_pool* pool;
};

// The proof for `witness` (plain integers < r, nVars of them, w_0 = 1) with blinding factors r, s.
// Errors: a key whose sections disagree with its header, or a witness of the wrong length.
template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings = nullptr, cpu_context where = {});

// prove_with() with r and s uniform in Fr from getrandom.
template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness,
                                    phase_timings* timings = nullptr, cpu_context where = {});

#define CUZK_PROVER_EXTERN(C)                                                                          \
  extern template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&,                  \
                                                          std::span<const C::fr::repr>, const C::fr&,  \
                                                          const C::fr&, phase_timings*, cpu_context);  \
  extern template result<formats::proof<C>> prove<C>(                                                  \
      const proving_key_view<C>&, std::span<const C::fr::repr>, phase_timings*, cpu_context)
CUZK_PROVER_EXTERN(bn254);
CUZK_PROVER_EXTERN(bls12_381);
#undef CUZK_PROVER_EXTERN

}  // namespace cuzk::groth16
