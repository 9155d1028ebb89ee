// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU prover as an engine backend: groth16::prove over the key's view, on the shared thread
// pool. Synthesis runs inside that call, so a job on this backend goes from loading_key straight
// to proving; the split between synthesis and the rest comes from groth16's own phase timings.
//
// Concurrent proofs share thread_pool::global(), whose parallel_for calls are serialized, so
// several CPU workers overlap only their serial parts (witness reading, verification); one
// worker per machine is the useful setting for large circuits.
//
// It is also the GPU backend's fallback for a key that has no copy on the worker's device.
//
// Thread safety: stateless; prove() from any number of threads.
#pragma once

#include "engine/backends/prover_backend.hpp"

namespace cuzk::engine {

class cpu_prover_backend final : public prover_backend {
 public:
  const char* name() const noexcept override { return "cpu"; }
  result<any_proof> prove(const prove_call& call, const any_witness& witness, const cancel_token& cancel,
                          prove_report& report) override;
};

}  // namespace cuzk::engine
