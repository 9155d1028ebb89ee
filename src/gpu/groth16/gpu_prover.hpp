// The Groth16 prover on the GPU: the same proof as groth16::prove_with (groth16/prover.hpp), bit
// for bit, for the same witness, r and s.
//
// The steps and where they run (prover.hpp has the formulas):
//   CPU   witness -> pinned buffer
//   GPU   the witness copied to the device once; MSMs A, B1, B2 (G2; all nVars signals) and C
//         (signals nPublic+1..nVars-1) read it there, in that order on a thread of their own,
//         started before synthesis: they need only the witness
//   GPU   synthesis a = A w, b = B w, c = a∘b (the key's synthesis_place: by default on the
//         device from the same device witness, abc_device.hpp; or on CPU threads into pinned (or,
//         to measure the difference, pageable) buffers, then a, b, c copied on the copy stream,
//         one vector at a time)
//   GPU   on the NTT stream, as each vector is there: inverse NTT natural -> bit-reversed, forward odd-coset NTT bit-reversed ->
//         natural (no permutation pass; the coset factor g^i is applied at bit-reversed positions
//         inside the first pass), then h = a b - c out of Montgomery form (h_scalars.hpp)
//   GPU   MSM H, on the h the NTT stream left in device memory
//   CPU   assembly, with the CPU prover's own code (groth16::detail::assemble)
// The domain points, the coset shift (omega_2n, or 25 at the largest domain) and every field
// operation are those of poly::compute_h, and a field element's representation is unique, so
// h and the MSM sums, and hence the affine proof points, equal the CPU prover's exactly.
//
// Where the lock is held. The kernel lock (gpu_proving_key.hpp) covers the GPU work only: the MSM
// thread takes it around A, B1, B2, C, and the proving thread takes it from synthesis on the
// device (or the first NTT) to the end of the H MSM. The witness copies, synthesis on the host,
// the copies to the device (issued before the lock, on the workspace's copy stream, so they
// overlap another proof's kernels) and the assembly run outside it. How long each proof waited for
// the lock and held it is timed. Host buffers a lender put in the workspace go back once the
// copies have read them: before the proving thread waits for the lock, when it has to wait.
//
// Thread: any thread. With a workspace, one proof per workspace at a time (the caller's); the
// overload without one uses the key's own, one proof at a time.
#pragma once

#include <chrono>
#include <span>
#include <vector>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "formats/proof.hpp"
#include "gpu/groth16/gpu_proving_key.hpp"
#include "groth16/proving_key.hpp"

namespace cuzk::gpu {

// Milliseconds per phase. GPU spans are CUDA events; the MSMs are host clocks around each
// (synchronous) run; CPU phases are host clocks. Phases overlap (A, B1, B2, C with synthesis and
// with whatever of the NTTs and the H MSM they outlast), so they do not add up to `total_ms`.
struct gpu_phase_timings {
  bool synthesis_on_device = false;  // the key's synthesis_place is device
  double witness_ms = 0;             // witness -> pinned buffer
  double synthesis_ms = 0;           // a, b, c: CPU clock on the host, CUDA events on the device
  double h2d_ms = 0;  // a, b, c host -> device (with synthesis on the device: the witness copy)
  double h2d_bytes = 0;
  double ntt_ms = 0;      // six NTTs and the h kernel (from the first NTT)
  double witness_h2d_ms = 0;  // the witness pinned host -> device, once for A, B1, B2, C
  double msm_a_ms = 0, msm_b1_ms = 0, msm_c_ms = 0, msm_h_ms = 0;  // GPU, G1
  double msm_b2_ms = 0;                                            // GPU, G2
  double msm_wait_ms = 0;  // after the H MSM, how long the prover waited for A, B1, B2, C to end
  double assembly_ms = 0;
  double total_ms = 0;  // witness in, proof out
  // The kernel lock, both threads together: waiting for it (another proof's kernels ran) and
  // holding it (this proof's GPU work, what a device's busy time is made of).
  double lock_wait_ms = 0;
  double lock_held_ms = 0;
  // The same on the host clock, for a timeline: each interval the lock was held ("msm_abc",
  // "ntt_h"; held = true) and named parts inside them (held = false). MSMs A, B1, B2, C are
  // synchronous runs, so their parts are exact; inside "ntt_h" the kernels are queued at once, so
  // "synthesis" (on the device) and "ntt" are placed from the interval's start with their CUDA-event
  // lengths and "msm_h" is the rest of the interval.
  struct lock_span {
    const char* name = "";
    std::chrono::steady_clock::time_point begin{}, end{};
    bool held = true;
  };
  std::vector<lock_span> lock_spans;

  double h2d_gb_per_s() const { return h2d_ms > 0 ? h2d_bytes / (h2d_ms * 1e6) : 0; }
};

// The proof for `witness` (nVars plain integers < r, w_0 = 1) with blinding factors r, s, using
// the buffers of `ws` (on gk's device; grown first when pk is larger than they are). `pk` is the
// CPU view of the same key `gk` was made from (its matrices for synthesis and its header points);
// `pool` runs synthesis.
// Errors: pk inconsistent or of other sizes than gk, a witness of the wrong length, a workspace
// on another device, CUDA failures.
template <class Curve>
result<formats::proof<Curve>> gpu_prove(const gpu_proving_key<Curve>& gk, gpu_workspace<Curve>& ws,
                                        const groth16::proving_key_view<Curve>& pk,
                                        std::span<const typename Curve::fr::repr> witness,
                                        const typename Curve::fr& r, const typename Curve::fr& s,
                                        gpu_phase_timings* timings = nullptr,
                                        thread_pool& pool = thread_pool::global());

// The same with the key's own workspace (made with key_workspace::own; an error otherwise).
template <class Curve>
result<formats::proof<Curve>> gpu_prove(const gpu_proving_key<Curve>& gk,
                                        const groth16::proving_key_view<Curve>& pk,
                                        std::span<const typename Curve::fr::repr> witness,
                                        const typename Curve::fr& r, const typename Curve::fr& s,
                                        gpu_phase_timings* timings = nullptr,
                                        thread_pool& pool = thread_pool::global());

#define CUZK_GPU_PROVER_EXTERN(C)                                                                          \
  extern template result<formats::proof<C>> gpu_prove<C>(                                                  \
      const gpu_proving_key<C>&, gpu_workspace<C>&, const groth16::proving_key_view<C>&,                   \
      std::span<const C::fr::repr>, const C::fr&, const C::fr&, gpu_phase_timings*, thread_pool&);         \
  extern template result<formats::proof<C>> gpu_prove<C>(                                                  \
      const gpu_proving_key<C>&, const groth16::proving_key_view<C>&, std::span<const C::fr::repr>,        \
      const C::fr&, const C::fr&, gpu_phase_timings*, thread_pool&)
CUZK_GPU_PROVER_EXTERN(bn254);
CUZK_GPU_PROVER_EXTERN(bls12_381);
#undef CUZK_GPU_PROVER_EXTERN

}  // namespace cuzk::gpu
