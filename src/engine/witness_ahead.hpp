// SPDX-License-Identifier: MIT OR Apache-2.0
// Witnesses from input JSON computed ahead of the workers: threads of their own compute the
// partitions of jobs still queued, in the order the scheduler will hand the jobs out, so that a
// GPU worker finds its next job's witness made instead of computing it while the device idles.
//
// With the witness graph a million-constraint witness costs about as much CPU time as its GPU
// proof takes (docs/witness.md, 'Witnesses ahead of the GPU'): a worker that computes its own
// keeps the device idle that long, and at two workers per device the stream of such jobs measured
// 0.60x the throughput of the same jobs with .wtns files.
//
// A partition's witness is in one of three places:
//   computing  a witness thread runs the circuit's generator for it (or reserves its memory)
//   ready      the result (a witness, or the error the circuit gave) waits to be taken, its
//              memory held in the host budget (the witness's bytes, reserved before it started;
//              the calculation's working memory, reserved with them, went back when it ended)
//   claimed    its job's worker computes it itself (it asked before a witness thread began, the
//              budget refused the thread's calculation the memory its growth asked for, or its
//              ready witness was evicted)
// A worker's take() moves a ready result out, waits for one being computed, or claims the
// partition and computes it on the spot. drop() forgets a job's partitions when it ends: ready
// results are freed, a calculation under way is dropped when it returns (the job's cancel token
// stops it sooner). At most `most_held` partitions are computing or ready at once, and each
// needs room in the host budget taken without waiting or evicting, for its witness and for its
// calculation's working memory (jobs/calculation_room.hpp): witnesses ahead use spare memory,
// never a job's or a key's. Where the room is not there the thread starts nothing and looks again
// later (the job's worker computes it if it gets there first); a calculation that can never fit
// the budget is left to the worker, whose admission fails the job saying so. A calculation whose
// linear memory grows past its estimate asks for the growth in line, from spare room (
// calculation_growth::speculative); refused (resource_exhausted), it is no result: its worker
// computes it, from its batch's share and ahead of the line. And what they hold
// gives way: the pool is an evictor of the host budget (evictor_rank::witnesses_ahead), which
// drops ready witnesses, the last jobs' first, when a job or a key waits for memory, so that a
// witness held for a queued job never keeps the jobs ahead of it (or its own) from being admitted;
// their workers compute them, and no thread begins them again.
//
// stop() (the engine's drain) ends the threads: calculations under way stop at their next check
// (circom_wasm.hpp's limits) and are forgotten, so a worker that waited for one computes it itself.
// Ready results stay takeable until their jobs end.
//
// Thread safety: every method from any thread. The pool's lock is taken last: the callbacks run
// without it, and may take the engine's locks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/calculation_room.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/live_job.hpp"
#include "engine/memory/memory_budget.hpp"

namespace cuzk::engine {

struct witness_ahead_options {
  unsigned threads = 0;        // 0: nothing is computed ahead
  std::size_t most_held = 0;   // partitions computing or ready at once; 0: threads + 2
};

// The pool's counts since start (status and tests).
struct witness_ahead_snapshot {
  unsigned threads = 0;
  std::size_t computing = 0, ready = 0;  // computing: calculations begun (not a look for their room)
  uint64_t computed = 0;     // calculations a witness thread finished and kept
  uint64_t taken_ready = 0;  // take()s that found the witness made
  uint64_t waited = 0;       // take()s that waited for a witness thread's calculation
  uint64_t computed_by_worker = 0;  // take()s that computed the witness themselves
  uint64_t evicted = 0;      // ready witnesses dropped to make room for a job or a key
};

// What take() hands a worker: the witness (or why there is none), how long its calculation took
// wherever it ran, and whether a witness thread made it.
struct taken_witness {
  result<any_witness> witness;
  double calc_seconds = 0;
  bool ahead = false;
};

class witness_ahead {
 public:
  // The jobs whose input JSON partitions may be computed, most urgent first: queued jobs with a
  // witness generator, in dispatch order.
  using queued_jobs_fn = std::function<std::vector<std::shared_ptr<live_job>>()>;
  // Partition q's witness of job j, computed now in `room` (its working memory, reserved); `stop`
  // is polled during the calculation.
  using compute_fn = std::function<result<any_witness>(live_job& j, uint32_t q, const std::function<bool()>& stop,
                                                       calculation_room& room)>;
  // The host memory one partition's witness of j holds.
  using witness_bytes_fn = std::function<uint64_t(const live_job& j)>;
  // Partition q's calculation's working memory and `witness` bytes beside it, reserved from spare
  // room in one acquire (no waiting, no eviction), both in room.calculation (the pool splits the
  // witness's off); where there is no room for both, why (refusal::too_large: it can never fit).
  using room_fn =
      std::function<result<calculation_room>(const live_job& j, uint32_t q, uint64_t witness, refusal& why)>;

  witness_ahead(witness_ahead_options opt, memory_budget& host, queued_jobs_fn queued, compute_fn compute,
                witness_bytes_fn bytes, room_fn room);
  ~witness_ahead();
  witness_ahead(const witness_ahead&) = delete;
  witness_ahead& operator=(const witness_ahead&) = delete;

  void start();
  // Something changed that may give a witness thread work: a job queued, memory freed.
  void wake();
  // Partition q's witness for j's worker (see the opening comment). `here` computes it on the
  // caller's thread when no witness thread has begun it.
  taken_witness take(live_job& j, uint32_t q, const std::function<result<any_witness>()>& here);
  // Forgets every partition of job `id` (it ended, or went back to the queue).
  void drop(job_id id);
  // Ends the threads (idempotent); ready results stay takeable.
  void stop();

  witness_ahead_snapshot snapshot() const;

 private:
  using part_key = std::pair<job_id, uint32_t>;
  enum class where : uint8_t { computing, ready, claimed };
  struct part {
    where state = where::computing;
    bool begun = false;  // computing: its room is reserved and its calculation begun (not a look)
    std::shared_ptr<result<any_witness>> witness;  // ready: the result
    double calc_seconds = 0;
    reservation memory;  // ready: the witness's bytes
  };
  struct pick {
    std::shared_ptr<live_job> job;
    uint32_t partition = 0;
    calculation_room room;
  };

  void loop();
  // The host budget's evictor: drops ready witnesses, the last jobs' first, until `missing` bytes
  // are free; returns what it freed.
  uint64_t evict(uint64_t missing);
  // The next partition to compute, marked computing, with its memory reserved; empty when there is
  // none now (or no room for it).
  std::optional<pick> next_locked(std::unique_lock<std::mutex>& lk, reservation& memory);

  const witness_ahead_options opt_;
  memory_budget& host_;
  const queued_jobs_fn queued_;
  const compute_fn compute_;
  const witness_bytes_fn bytes_;
  const room_fn room_;

  std::atomic<bool> stop_{false};  // polled by calculations, without the lock
  // Held by the thread that picks the next partition and reserves its memory (without m_, taken
  // after this one): one at a time, so the partitions start in dispatch order.
  std::mutex picking_;
  mutable std::mutex m_;  // everything below
  std::condition_variable cv_;
  std::map<part_key, part> parts_;
  uint64_t wakes_ = 0;  // bumped by wake(): a thread that found nothing looks again
  witness_ahead_snapshot counts_;
  std::vector<std::thread> threads_;
  evictor_registration eviction_;  // last: unregistered (a call of it waited for) before the rest goes
};

// witness_threads as configured (-1: automatic) for a daemon with `workers` prover workers: the
// cores the workers leave, at least one; with the CPU backend (whose proofs use every core), one.
unsigned witness_threads_for(int configured, unsigned workers, bool cpu_backend, unsigned cores);

}  // namespace cuzk::engine
