// The Groth16 prover on the CPU, step by step as snarkjs and rapidsnark compute it, so that a
// proof from a snarkjs .zkey verifies with snarkjs (reference section 6).
//
// With w the witness (w_0 = 1, w_1..w_nPublic public), r and s the blinding factors:
//   synthesize   a = A w, b = B w, c = a∘b on the n-domain (synth/evaluate_abc.hpp)
//   compute_h    h_j = (AB - C)(x_j) on the odd coset x_j = c ω^j (poly/odd_coset.hpp), then out of
//                Montgomery form: the scalars of the H section
//   msm_a        πA  = α1 + Σ_i w_i A_i + r δ1
//   msm_b_g2     πB  = β2 + Σ_i w_i B2_i + s δ2
//   msm_b_g1     πB1 = β1 + Σ_i w_i B1_i + s δ1          (G1 copy of πB, needed only for πC)
//   msm_c        Σ_{i > nPublic} w_i C_i
//   msm_h        Σ_j h_j H_j
//   assemble     πC  = msm_c + msm_h + s πA + r πB1 - r s δ1
// which is Groth's πC = (Σ_priv w_i (β u_i + α v_i + w_i(τ)) + h(τ) t(τ)) / δ + s A + r B - r s δ
// (Groth, "On the size of pairing-based non-interactive arguments", EUROCRYPT 2016, section 3.2),
// with the 1/δ and the vanishing polynomial folded into the key's C and H points.
//
// prove_with() takes r and s explicitly: r = s = 0 gives a deterministic proof that tests compare
// against an independent computation, and the same r, s give the same proof on any thread
// count. prove() draws them from the OS CSPRNG; that is the one callers use.
//
// Side channels: the MSMs over the (secret) witness are variable-time, as in snarkjs and
// rapidsnark, and so are the few multiplications by r and s here; this prover is not hardened
// against an attacker who times it from the same machine.
#pragma once

#include <span>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/proof.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::groth16 {

// Wall-clock seconds per phase, for --verbose. `load` is the caller's (reading the key and the
// witness happens before prove()); the rest are filled by prove().
struct phase_timings {
  double load = 0;
  double synthesis = 0;
  double ntt = 0;  // compute_h: the three inverse and three forward NTTs and h = ab - c
  double msm_a = 0, msm_b_g1 = 0, msm_b_g2 = 0, msm_c = 0, msm_h = 0;
  double assembly = 0;

  double total() const {
    return load + synthesis + ntt + msm_a + msm_b_g1 + msm_b_g2 + msm_c + msm_h + assembly;
  }
};

// The proof for `witness` (plain integers < r, nVars of them, w_0 = 1) with blinding factors r, s.
// Errors: a key whose sections disagree with its header, or a witness of the wrong length.
template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings = nullptr,
                                         thread_pool& pool = thread_pool::global());

// prove_with() with r and s uniform in Fr from getrandom.
template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness,
                                    phase_timings* timings = nullptr,
                                    thread_pool& pool = thread_pool::global());

#define CUZK_PROVER_EXTERN(C)                                                                          \
  extern template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&,                  \
                                                          std::span<const C::fr::repr>, const C::fr&,  \
                                                          const C::fr&, phase_timings*, thread_pool&); \
  extern template result<formats::proof<C>> prove<C>(                                                  \
      const proving_key_view<C>&, std::span<const C::fr::repr>, phase_timings*, thread_pool&)
CUZK_PROVER_EXTERN(bn254);
CUZK_PROVER_EXTERN(bls12_381);
#undef CUZK_PROVER_EXTERN

}  // namespace cuzk::groth16
