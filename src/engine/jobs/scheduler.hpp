// SPDX-License-Identifier: MIT OR Apache-2.0
// Which queued job runs next: priority classes, FIFO within a class, same-circuit batching.
//
// Four classes, CRITICAL > HIGH > NORMAL > LOW; within a class jobs leave in job-id order, which
// is submission order (ids only grow, and a job re-queued after a restart keeps its id, so it
// goes before everything submitted since). One dispatcher at a time: a worker that wants work
// calls next(), which holds the dispatch lock while it chooses (and, when batching, waits), so
// work is handed out strictly in priority order and a later job never overtakes an earlier one of
// its class (the Rust cuzk measured +24% throughput from finishing jobs one after another instead
// of interleaving them).
//
// Batching (max_batch_size > 1): the head job of the highest class is dispatched together with the
// later jobs of its class and circuit, up to max_batch_size, so the key is made resident once and a
// GPU backend can prove them together. A batch leaves when it is full, when its head has waited
// max_batch_wait, or at once when a job of a higher class arrives (that job goes first and the
// batch follows without further waiting). CRITICAL jobs never wait for a batch: they are the
// latency class.
//
// Grouping by circuit (group_by_circuit): within the highest class, the oldest job whose key is
// resident where the dispatching worker proves (the predicate given by the engine) goes before
// older jobs whose key is not, unless the class's head has already waited group_max_delay; this
// trades a bounded delay for fewer key loads.
//
// Routing to the worker where the key is resident. Each worker asks with its device slot. The
// batch chosen is the same whoever asks (routing never changes the order work leaves in); only
// who runs it may change: when the key is not resident on the asking worker's slot but is on
// the slot of another worker that is idle in next() at that moment, the batch is handed to that
// worker (the one idle longest), and the asking worker dispatches again. With no such worker the
// asking one takes it (work goes to whichever worker is free; its slot then loads the key). A
// worker without a slot (-1, the CPU backend) never hands work off: every CPU worker shares the
// host's keys.
//
// Admission (set_admission): the dispatcher hands each batch it chose to the engine's admission
// step before anyone runs it, still as the one dispatcher, so memory is reserved in the order work
// leaves (a later job never overtakes an earlier one of its class by fitting into the budget
// first). The step may wait (for memory) and may drop jobs from the batch (refused, cancelled);
// the scheduler's lock is not held meanwhile, so submissions and removals go on.
//
// Deadlines are not reordered here: the priority class is how a caller asks for urgency; the
// engine reports a missed deadline (and may fail a job whose deadline passed before it started).
//
// Thread safety: push/remove/close/snapshot from any thread; next() from worker threads (callers
// queue on the dispatch lock).
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/jobs/job.hpp"

namespace cuzk::engine {

using steady_clock = std::chrono::steady_clock;

struct queued_job {
  job_id id = 0;
  std::string circuit;
  priority prio = priority::normal;
  steady_clock::time_point enqueued{};
};

// The worker asking for work: its index (for the caller's bookkeeping) and its device slot.
struct worker_ref {
  int index = 0;
  int slot = -1;  // -1: no device (the CPU backend)
};

enum class flush_reason { single, full, timeout, preempted, grouped };
const char* flush_reason_name(flush_reason r) noexcept;

struct work_batch {
  std::vector<queued_job> jobs;  // same circuit and class, in FIFO order
  flush_reason reason = flush_reason::single;
};

struct scheduler_options {
  std::size_t max_batch_size = 1;  // 1: no batching
  std::chrono::milliseconds max_batch_wait{50};
  bool group_by_circuit = false;
  std::chrono::milliseconds group_max_delay{2000};
};

class scheduler {
 public:
  explicit scheduler(scheduler_options opt) : opt_(opt) {}

  void push(queued_job j);
  // Removes a queued job; false when it is not queued (already dispatched or unknown).
  bool remove(job_id id);
  // The next batch for worker `w`, blocking until there is one (chosen by w or handed to w by
  // another worker's dispatch); nullopt once close() was called and nothing was handed to w.
  std::optional<work_batch> next(worker_ref w = {});
  // Wakes every waiter; next() returns nullopt from now on. Queued jobs stay (see queued()).
  void close();

  // Whether a circuit's key is resident on a device slot (slot >= 0) or on the host (slot -1), for
  // grouping and routing. Called under the scheduler's lock, so it must not call back into the
  // scheduler. Without one, no key counts as resident.
  using resident_predicate = std::function<bool(const std::string& circuit, int slot)>;
  void set_resident_predicate(resident_predicate p);
  // Called by the dispatcher with each batch before it is handed out (see the opening comment);
  // it may remove jobs; an emptied batch is dropped. Set before the first next().
  using admission_step = std::function<void(work_batch&, const worker_ref& dispatcher)>;
  void set_admission(admission_step a);

  std::array<std::size_t, priority_count> depth() const;
  // Every queued job in dispatch order (highest class first, FIFO within).
  std::vector<queued_job> queued() const;
  // Workers waiting in next() now (tests and status).
  std::size_t idle_workers() const;
  // Batches handed to the worker whose slot held the key, since start.
  uint64_t handoffs() const;

 private:
  struct entry {
    queued_job job;
    bool no_wait = false;  // its batch was preempted once: dispatch without waiting again
  };
  using queue = std::map<job_id, entry>;
  // A worker inside next(); handed is set by another worker's dispatch.
  struct waiter {
    worker_ref who;
    std::optional<work_batch> handed;
  };

  // The next batch for `me`, waiting for one while this thread is the dispatcher.
  std::optional<work_batch> choose_locked(std::unique_lock<std::mutex>& lk, int slot);
  // The idle worker (not `me`) to hand b to, or null to keep it.
  waiter* route_locked(const work_batch& b, const waiter& me) const;
  int highest_class_locked() const;
  queue::iterator pick_head_locked(queue& q, steady_clock::time_point now, int slot, bool& grouped);
  std::vector<queue::iterator> collect_locked(queue& q, queue::iterator head);
  work_batch take_locked(queue& q, const std::vector<queue::iterator>& its, flush_reason why);

  const scheduler_options opt_;
  mutable std::mutex m_;  // everything below
  std::condition_variable cv_;
  std::array<queue, priority_count> queues_;
  resident_predicate resident_;
  admission_step admit_;
  bool dispatching_ = false;    // one dispatcher at a time
  std::vector<waiter*> idle_;   // workers in next(), longest waiting first
  uint64_t handoffs_ = 0;
  bool closed_ = false;
};

}  // namespace cuzk::engine
