// SPDX-License-Identifier: MIT OR Apache-2.0
// One job's run on a worker, as named steps:
//
//   begin            the attempt counted, the queue wait timed, an expired deadline refused
//   lease_key        the circuit's key resident and leased (key_manager::acquire), once a batch
//   per batch of partitions, until all are proven:
//     plan_batch     how many partitions one backend call takes, their witnesses reserved
//     read_witnesses the batch's witnesses read on threads of their own (witness_stream.hpp);
//                    read_ahead starts the next batch's while this one proves
//     prove_batch    the backend's prove (or prove_batch) call, its times and spans recorded
//     check_and_encode  each proof verified (verify_proofs) and encoded
//   finish_done      the proofs stored as the job's result
//
// one function each, over one job_run that holds what they share; run() only orders them (the
// GPU prover's gpu_proof_run is built the same way). Each step returns go_on, or ended once it has
// ended the job itself: failed, cancelled, or handed back to the queue by a drain. The job's cancel
// token is checked at every boundary between steps.
//
// The steps are the engine's worker side: they write the job's record under the engine's job-table
// lock and end jobs through the engine's finish(), as one worker loop did before, hence a friend
// of engine rather than a copy of its state.
//
// Thread safety: a job_run lives on its worker's thread for one job. The witness reads it starts
// run on threads of their own and end before the step that started them returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/backends/prover_backend.hpp"
#include "engine/jobs/witness_stream.hpp"
#include "engine/keys/key_manager.hpp"
#include "engine/live_job.hpp"
#include "engine/memory/memory_budget.hpp"
#include "engine/witness_ahead.hpp"

namespace cuzk::engine {

class engine;

class job_run {
 public:
  // `lease`, `working_set` and `calculations` belong to the worker's batch: a job after the first of
  // a batch finds the key leased already, and the working set and the calculation share admission
  // reserved are the batch's. `later_calculations`: a later job of the batch has input JSON, so
  // the share stays once this job's calculations are over.
  job_run(engine& e, int worker, std::shared_ptr<live_job> job, key_lease& lease, reservation& working_set,
          calculation_share& calculations, bool later_calculations);
  job_run(const job_run&) = delete;
  job_run& operator=(const job_run&) = delete;

  // The steps in order, until one ends the job.
  void run();

 private:
  enum class step : uint8_t { go_on, ended };
  // A batch of partitions proven in one backend call.
  struct batch {
    uint32_t first = 0, count = 0;
    reservation extra;     // plan_batch()'s: the batch's witnesses beyond one
    reservation prefetch;  // one more, while the batch before still holds its own
    std::unique_ptr<witness_stream> read;  // last: its reads end before the reservations go
    std::string name() const;              // "partition 3", "partitions 0-9"
  };

  step begin();
  step lease_key();
  step prove_partitions();
  std::unique_ptr<batch> plan_batch(uint32_t first);
  uint32_t batch_size(uint32_t first, reservation& held);
  std::unique_ptr<witness_stream> read_witnesses(uint32_t first, uint32_t count,
                                                 std::shared_ptr<reads_ended> after);
  taken_witness witness_of(uint32_t q);
  result<any_witness> witness_from_file(uint32_t q);
  result<any_witness> witness_from_input(uint32_t q);
  void read_ahead(const batch& cur, std::unique_ptr<batch>& next);
  result<std::vector<any_proof>> prove_batch(batch& b);
  step check_and_encode(batch& b, const std::vector<any_proof>& made);
  step finish_done();

  // Ends the job as its stop asks: back to the queue for a drain, cancelled for the caller.
  step stop(cancel_reason r);
  // go_on, or the job stopped when a stop was asked for.
  step stop_if_asked();
  // A step that fails once a stop was requested ends as the stop says, not as a failure: a backend
  // that honours the token inside prove() returns an error when it abandons the proof, and so may a
  // witness read that a shutdown interrupts. The caller asked to stop; the error is only the echo.
  step fail_unless_stopped(status s);
  step fail(status s);

  engine& e_;
  const int worker_;
  const int slot_;  // the worker's device slot, fixed since start; -1: none
  const std::shared_ptr<live_job> j_;
  job_result& info_;
  key_lease& lease_;
  reservation& working_set_;
  calculation_share& calculations_;
  const bool later_calculations_;
  // The job's input JSON partitions whose witnesses are not yet in hand; at 0 the batch's
  // calculation share goes back (unless a later job of the batch needs it).
  std::atomic<uint32_t> calculations_left_{0};
  std::optional<prove_call> call_;  // once the key is leased
  std::vector<partition_proof> proofs_;
};

}  // namespace cuzk::engine
