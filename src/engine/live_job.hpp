// SPDX-License-Identifier: MIT OR Apache-2.0
// A job the engine holds in memory, from its submit (or its claim, or its recovery at a start)
// until the store has taken its outcome: the row the store keeps, and what only a running job
// has (its key's summary, its cancel token, its timeline, its working-set reservation, its claim).
//
// Thread safety: the engine's job table owns each one (job_table.hpp); the fields a reader outside
// the worker sees (rec.info, events, worker, parked) change under the table's mutex.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/arriving_witnesses.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/jobs/input_witness.hpp"
#include "engine/jobs/job_lease.hpp"
#include "engine/jobs/job_store.hpp"
#include "engine/jobs/key_summary.hpp"
#include "engine/jobs/scheduler.hpp"
#include "engine/memory/memory_budget.hpp"
#include "engine/telemetry/timeline.hpp"

namespace cuzk::engine {

struct live_job {
  job_record rec;
  key_summary key;
  generator_ptr generator;  // the circuit's, for partitions given as input JSON
  cancel_token cancel;
  steady_clock::time_point enqueued;
  std::vector<timeline_event> events;
  int worker = -1;
  reservation working_set;  // from admission until its batch ends (the worker takes it over)
  // From admission: one witness calculation's memory for its batch's input JSON (the worker's
  // calculation_share, jobs/calculation_room.hpp), where the batch has any.
  reservation calculation_share;
  // Ended, but the store refused its outcome for good (engine::finish()): it stays in the job
  // table, failed, until engine::retry_unstored() stores that failure.
  bool unstored = false;
  // Ended, but the store was out of reach (errc::unavailable: a server restarting, a full disk):
  // the outcome, proofs and all, waits here until engine::retry_unstored() stores it, and only then
  // is it published. Meanwhile the job shows its last running state, and an await that runs out of
  // time is told to await again (docs/HARDENING.md, finding 17). `store_fault` is the last refusal.
  // The spool keeps a copy (jobs/parked_result.hpp), so that a stop of the daemon meanwhile costs
  // no proof (finding 23).
  std::optional<job_result> parked;
  status store_fault;
  // In a cluster: this node's claim on the job, which its result is committed under.
  std::optional<job_lease> lease;
  // While its submit still stores or checks its witnesses (arriving_witnesses.hpp); null otherwise.
  std::shared_ptr<arriving_witnesses> arrival;
};

}  // namespace cuzk::engine
