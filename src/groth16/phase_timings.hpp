// SPDX-License-Identifier: MIT OR Apache-2.0
// The time one proof spent in each phase, in seconds: the one shape every layer above the prover
// uses (the CPU and GPU provers fill it, the engine adds it to a job's times, the CLI and the
// benchmark print it).
//
// The CPU prover runs its phases one after another, so they add up to `total`. The GPU prover
// overlaps them (A, B1, B2 and C run on the device while a, b, c are synthesized, and while the
// NTTs and the H MSM run), so there they do not: `total` is the wall clock from witness in to
// proof out, and `msm_wait` is how long the proving thread waited for A, B1, B2, C after its H
// MSM. Fields a prover has no such phase for stay zero (the CPU copies nothing to a device).
//
// Thread: a plain value; one proof writes it.
#pragma once

#include <chrono>
#include <vector>

namespace cuzk::groth16 {

// An interval of the device's kernel lock on the host clock: held = true for the intervals the
// proof held it ("gpu": the union of its two sides' turns, which may overlap), false for named
// parts inside them (the sides, "msm_abc" and "ntt_h", and their parts "msm_a", ..., "ntt"). A
// daemon turns them into its busy ratios and its trace.
struct kernel_span {
  const char* name = "";
  std::chrono::steady_clock::time_point begin{}, end{};
  bool held = true;
};

struct phase_timings {
  double witness = 0;    // the witness staged for the device (into pinned memory)
  double synthesis = 0;  // a = A w, b = B w, c = a∘b (on the device: its kernel alone)
  bool synthesis_on_device = false;
  double h2d = 0;  // host -> device: a, b, c, or with synthesis on the device the witness
  double h2d_bytes = 0;
  double witness_h2d = 0;  // the witness copied to the device once, for A, B1, B2, C
  double ntt = 0;          // the three inverse and three coset NTTs and h = ab - c
  double msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_c = 0, msm_h = 0;
  double msm_wait = 0;  // after the H MSM, the wait for A, B1, B2, C (GPU)
  double assembly = 0;
  // The device's kernel lock: waiting for it (another proof's kernels ran) and holding it (this
  // proof's GPU work, what a device's busy time is made of).
  double lock_wait = 0, lock_held = 0;
  double total = 0;  // witness in, proof out
  std::vector<kernel_span> kernel_spans;

  double h2d_gb_per_s() const noexcept { return h2d > 0 ? h2d_bytes / h2d / 1e9 : 0; }
  // Seconds after synthesis (and the witness staging before it): what the engine reports as the
  // proof's "prove" phase beside "synthesis".
  double after_synthesis() const noexcept { return total - witness - synthesis; }
};

// Adds the seconds from its construction to its destruction to `*slot` (nothing when slot is
// null), so a step's code holds no clock of its own.
class phase_timer {
 public:
  explicit phase_timer(double* slot) : slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~phase_timer() { stop(); }
  // Ends the interval now (the destructor then adds nothing).
  void stop() {
    if (slot_ != nullptr)
      *slot_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    slot_ = nullptr;
  }
  phase_timer(const phase_timer&) = delete;
  phase_timer& operator=(const phase_timer&) = delete;

 private:
  double* slot_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cuzk::groth16
