// SPDX-License-Identifier: MIT OR Apache-2.0
// The prover behind the engine's workers: one interface, one implementation per kind of hardware.
//
// A worker hands a backend a resident key (and, for a GPU backend, the key's copy on the worker's
// device slot) and one partition's witness, and gets the proof back with its phase times;
// everything around it (which key, which job, cancellation between partitions, verification, timing
// of the phases the engine sees) stays in the engine. The CPU implementation
// (cpu_prover_backend.hpp) wraps groth16::prove; the GPU one (gpu_prover_backend.hpp) runs the same
// prover contract with a gpu_context on the key's device copy with buffers that belong to the
// calling worker.
//
// Batches. A backend may prove several partitions of one job at once (batch_partitions(), then
// prove_batch()), where that saves work: the GPU backend's streamed keys, whose points then cross
// PCIe once for the batch. The engine reads the batch's witnesses on threads of its own and hands
// the backend each as its read ends (batch_witnesses.hpp), so a backend can start on the first
// partitions while the last are read; it checks each proof.
//
// Workers and slots. A backend says how many workers it wants and which device slot each serves
// (worker_slots(); a CPU backend says nothing and the engine runs engine_options::workers). The
// engine leases keys for a worker on its slot and passes the worker's index, so per-worker state
// (pinned buffers, streams) needs no lock.
//
// Thread safety: prove() is called by several workers at once, each with its own index;
// implementations must allow it. activity() from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "engine/jobs/batch_witnesses.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/keys/device_tier.hpp"
#include "engine/jobs/key_summary.hpp"
#include "engine/keys/loaded_key.hpp"
#include "engine/memory/memory_budget.hpp"
#include "engine/memory/pinned_pool.hpp"
#include "engine/telemetry/device_activity.hpp"
#include "engine/telemetry/kernel_activity.hpp"
#include "formats/proof.hpp"
#include "groth16/phase_timings.hpp"

namespace cuzk::engine {

using any_proof = std::variant<formats::proof<bn254>, formats::proof<bls12_381>>;

// What a backend says of one proof: the prover's own phase times (the one shape, groth16's), and
// what the backend added around the prover: its wait for device memory for the worker's buffers,
// where the proof ran, and whether its staging fell back to pageable memory.
struct prove_report {
  groth16::phase_timings phases;
  double device_memory_wait = 0;  // waiting in the device budget's line for the worker's buffers
  std::string ran_on;             // "cpu" or a slot's name; empty: the engine fills in "cpu"
  bool pinned_fallback = false;   // the pool could not serve: staged in pageable memory
};

// One proof's inputs besides the witness.
struct prove_call {
  const loaded_key& key;
  const device_key* on_device = nullptr;  // the key's copy on the worker's slot; null: none there
  int slot = -1;                          // the worker's device slot; -1: none
  int worker = 0;                         // the calling worker's index
  std::string_view circuit;               // for the pinned pool's capacity hints
  // Where a backend that stages host data for a device takes its pinned buffers, and the job's
  // working-set reservation it charges them to (pinned_pool::acquire's `charge`). Null: none
  // (the backend uses buffers of its own).
  pinned_pool* pinned = nullptr;
  reservation* working_set = nullptr;
};

// Host memory one proof of a key needs while it runs, for admission against the host budget.
struct proof_memory {
  uint64_t host = 0;    // everything, pinned included
  uint64_t pinned = 0;  // of which staged in pinned buffers (taken from the pinned pool)
};

// `one`'s times added to `into`'s (a batch's report of proofs made one after another).
inline void add_report(prove_report& into, const prove_report& one) {
  groth16::phase_timings& t = into.phases;
  const groth16::phase_timings& o = one.phases;
  t.witness += o.witness;
  t.synthesis += o.synthesis;
  t.synthesis_on_device = o.synthesis_on_device;
  t.h2d += o.h2d;
  t.h2d_bytes += o.h2d_bytes;
  t.witness_h2d += o.witness_h2d;
  t.ntt += o.ntt;
  t.msm_a += o.msm_a;
  t.msm_b1 += o.msm_b1;
  t.msm_b2 += o.msm_b2;
  t.msm_c += o.msm_c;
  t.msm_h += o.msm_h;
  t.msm_wait += o.msm_wait;
  t.assembly += o.assembly;
  t.lock_wait += o.lock_wait;
  t.lock_held += o.lock_held;
  t.total += o.total;
  t.kernel_spans.insert(t.kernel_spans.end(), o.kernel_spans.begin(), o.kernel_spans.end());
  into.device_memory_wait += one.device_memory_wait;
  if (into.ran_on.empty()) into.ran_on = one.ran_on;
  into.pinned_fallback = into.pinned_fallback || one.pinned_fallback;
}

class prover_backend {
 public:
  virtual ~prover_backend() = default;
  virtual const char* name() const noexcept = 0;
  // The device slot of each worker, one entry per worker; empty: a CPU backend.
  virtual std::vector<int> worker_slots() const { return {}; }
  // The proof of `witness` (same curve as the key, nVars values) with fresh random r, s.
  virtual result<any_proof> prove(const prove_call& call, const any_witness& witness, const cancel_token& cancel,
                                  prove_report& report) = 0;
  // How many of a job's next `remaining` partitions (at least 2) to prove in one prove_batch()
  // call: 1 unless proving them together saves work. The GPU backend batches where the key streams
  // point vectors from host memory (each range then crosses PCIe once for the batch, not once per
  // partition), as many as its device budget has room for now.
  virtual unsigned batch_partitions(const prove_call& /*call*/, unsigned /*remaining*/) { return 1; }
  // One proof per witness, in order, all of call.key, with fresh random r, s each; a witness whose
  // read failed ends the batch with that error. The report is the batch's: its phases summed over
  // the partitions. The default proves them one after another, each as soon as it is read.
  virtual result<std::vector<any_proof>> prove_batch(const prove_call& call, batch_witnesses& witnesses,
                                                     const cancel_token& cancel, prove_report& report) {
    std::vector<any_proof> out;
    for (std::size_t q = 0; q < witnesses.size(); ++q) {
      // The wait for a witness still being read counts as its staging (the job's synthesis, as
      // the read did when it came first), within the batch's total.
      double waited = 0;
      result<const any_witness*> w = nullptr;
      {
        groth16::phase_timer timer(&waited);
        w = witnesses.wait(q);
      }
      report.phases.witness += waited;
      report.phases.total += waited;
      if (!w) return w.error();
      prove_report one;
      auto p = prove(call, **w, cancel, one);
      add_report(report, one);
      if (!p) return p.error().with_context("partition " + std::to_string(out.size()) + " of the batch");
      out.push_back(std::move(p).value());
    }
    return out;
  }
  // Per device slot, in slot order; empty for a CPU backend.
  virtual std::vector<device_activity> activity() const { return {}; }
  // The engine's budgets, once, before the first proof (they outlive the backend's use of them): a
  // backend with device buffers reserves them on the device budgets and registers an evictor of
  // idle ones (memory_budget.hpp). The CPU backend's memory is the job's host reservation.
  virtual void attach_memory(memory_budgets& /*budgets*/) {}
  // What one proof of a key with these sizes holds in host memory while it runs (an estimate from
  // the sizes). This default is the CPU prover's: the witness as read (nVars scalars) and a, b, c
  // and h (n scalars each, all four live at the peak); the MSMs' buckets are small beside them.
  virtual proof_memory memory_per_proof(const key_summary& k) const {
    constexpr uint64_t scalar = 32;  // an Fr element of either curve
    return {(uint64_t{k.n_vars} + 4 * uint64_t{k.domain_size}) * scalar, 0};
  }
};

}  // namespace cuzk::engine
