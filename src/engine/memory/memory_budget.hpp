// SPDX-License-Identifier: MIT OR Apache-2.0
// The memory budget: admission control in bytes, one budget per kind of memory (the host's, and
// each GPU's by ordinal).
//
// Work reserves the memory it will use before it starts, as an RAII `reservation`, so the daemon
// never holds more than its configured limit and how many proofs run at once follows from their
// sizes rather than from a thread count. Requests are served in strict arrival order (one ticket
// queue per budget): a later, smaller request never overtakes an earlier one that is waiting
// (but for acquire_options::ahead_of_line: memory running work needs to go on, never waited for),
// because the dispatcher acquires in priority order and finishing jobs one after another beats
// interleaving them (the Rust cuzk measured +24% throughput and half the latency from that). A
// reservation is returned in parts (release(n): the a/b/c share as soon as they are on the GPU,
// the rest when the proof is done, or split() to hand a part to another owner).
//
// When the request first in line does not fit, the budget asks its evictors, in a fixed order
// (rank, then registration), to free up to the missing bytes before it waits: idle pinned buffers
// first (evictor_rank::idle_pinned_buffers), then proving keys nobody uses, down a tier
// (evictor_rank::proving_keys). An evictor frees through the budget itself: it holds reservations
// for what it caches and drops them. The budget never grants past its limit; a request larger than
// the whole limit fails at once, with the budget, the request and the limit in the message.
//
// Errors carry the engine's codes: a request larger than the limit, or one that timed out waiting
// (or would have had to wait, with a zero timeout), is resource_exhausted; a cancelled wait is
// cancelled. acquire_options::why says which of too_large, cancelled or timed_out it was, for
// callers that act on it.
//
// How to wire: the engine owns one `memory_budgets` (host limit from config, one device limit per
// ordinal of the device tier). The dispatcher, in priority order, calls host().acquire(job's
// working set, {&job.cancel, nullopt, "job N"}) before it hands a job to a worker and moves the
// reservation into the job; the pinned staging of a/b/c is charged to it (pinned_pool.hpp) and the
// job's end drops the rest. The pinned pool registers itself on host(), and so do the witnesses
// computed ahead of their jobs (witness_ahead.hpp: ready witnesses, evictor_rank::witnesses_ahead;
// a witness calculation's working memory is reserved too, jobs/calculation_room.hpp). The key manager holds a
// host reservation per resident key and a device reservation per device copy, registers an evictor
// at evictor_rank::proving_keys on each of those budgets that moves unused keys one tier down
// (least recently used first, dropping their reservations), and wakes a device budget's waiters
// when a copy loses its last user. A GPU backend's workers reserve their device buffers on their
// device's budget before they allocate them, and the backend registers an evictor of idle
// workers' buffers (evictor_rank::idle_device_buffers). The engine's cancel path calls
// wake_waiters() after request() on a token so a waiting job leaves at once instead of at the next
// poll. /status and /metrics read memory_budgets::snapshot().
//
// Thread safety: every method of memory_budget and memory_budgets from any thread. A reservation
// belongs to one owner at a time (move it between threads, do not share it). Evictors are called
// without the budget's lock held (so they may release reservations of this budget), from the thread
// whose request is first in line or from one whose request ahead of the line does not fit (so two
// rounds may run at once, but each evictor takes one call at a time); an evictor must not acquire
// from this budget nor destroy its own registration. Reservations and registrations keep the budget's state alive, so
// they may outlive the memory_budget object.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/cancel_token.hpp"

namespace cuzk::engine {

enum class memory_kind { host, device };

// Why acquire() returned no reservation.
enum class refusal { none, too_large, cancelled, timed_out };
const char* refusal_name(refusal r) noexcept;

// The order in which evictors are asked: lower first. Cheap-to-redo caches go first: an idle
// pinned buffer costs 0.06-0.3 s per GiB to pin again, an idle worker's device buffers a few
// milliseconds of cudaMalloc, a witness computed ahead of its job its calculation again (0.06 s
// to seconds, on its worker), a proving key moved down a tier a reload or a re-upload.
namespace evictor_rank {
inline constexpr int idle_pinned_buffers = 100;
inline constexpr int idle_device_buffers = 100;  // on device budgets only
inline constexpr int witnesses_ahead = 150;      // on the host budget only
inline constexpr int proving_keys = 200;
}  // namespace evictor_rank

struct acquire_options {
  // Checked while waiting (every poll, and at once after memory_budget::wake_waiters()).
  const cancel_token* cancel = nullptr;
  // How long to wait in line. nullopt: as long as it takes; zero: not at all (but when first in
  // line the evictors are still asked once).
  std::optional<std::chrono::milliseconds> timeout;
  // What the memory is for, in error messages: "job 42 working set".
  std::string_view purpose;
  // Ask the evictors when the request does not fit. Off for opportunistic requests (prewarming a
  // cache) that should use free room only, never push other cached memory out.
  bool evict = true;
  // When set: why no reservation came back (refusal::none when one did).
  refusal* why = nullptr;
  // Granted at once where it fits, ahead of the requests waiting in line, after asking the
  // evictors from the caller's thread where it does not fit and `evict` is set (else as without
  // it). For memory that work already running needs to go on (a worker's witness calculation
  // whose linear memory grows past its estimate): it cannot wait in line, as what it would wait
  // for may be its own job's, and refusing it where there is room would fail the job only because
  // others wait.
  // It cannot keep the first in line waiting for long: only the witness calculations of the
  // batches workers run now ask ahead of the line (a witness thread's asks in line,
  // jobs/calculation_room.hpp), what each takes goes back when it returns (its time limit bounds
  // that), and no new batch starts past the first in line (admission waits in line). So what it
  // takes ahead delays the first in line by no more than the batches already under way, which it
  // waits for anyway.
  bool ahead_of_line = false;
};

namespace detail {
struct budget_core;
struct evictor_slot;
}  // namespace detail

class memory_budget;

// Bytes held against one budget. Move-only; the destructor returns what is left.
class reservation {
 public:
  reservation() = default;
  ~reservation() { reset(); }
  reservation(reservation&& o) noexcept;
  reservation& operator=(reservation&& o) noexcept;
  reservation(const reservation&) = delete;
  reservation& operator=(const reservation&) = delete;

  // Attached to a budget (a reservation of 0 bytes is still attached until reset()).
  explicit operator bool() const noexcept { return core_ != nullptr; }
  uint64_t bytes() const noexcept { return bytes_; }
  bool belongs_to(const memory_budget& b) const noexcept;

  // Returns min(n, bytes()) to the budget now and wakes whoever waits; the reservation shrinks.
  void release(uint64_t n) noexcept;
  // Returns everything and detaches.
  void reset() noexcept;
  // Moves min(n, bytes()) into a new reservation of the same budget; nothing is returned to the
  // budget. On a detached reservation: a detached one.
  reservation split(uint64_t n) noexcept;
  // Takes over `other`'s bytes; both must belong to the same budget (or this one be detached).
  status absorb(reservation&& other);
  // `n` more bytes from its budget, as memory_budget::acquire(n, opt) grants them (in line, with
  // the evictors), added to this reservation; its errors where they are refused, and
  // failed_precondition on a detached reservation. A reservation keeps its budget's state alive,
  // so this works where the memory_budget object may be gone (a thread that outlives its owner,
  // such as the recording of a witness graph beside a calculation).
  status grow(uint64_t n, const acquire_options& opt = {});

 private:
  friend class memory_budget;
  reservation(std::shared_ptr<detail::budget_core> c, uint64_t n) : core_(std::move(c)), bytes_(n) {}
  std::shared_ptr<detail::budget_core> core_;
  uint64_t bytes_ = 0;
};

// An evictor's entry in a budget; destroying it unregisters the evictor, waiting for a call of it
// that is running. Move-only.
class evictor_registration {
 public:
  evictor_registration() = default;
  ~evictor_registration() { reset(); }
  evictor_registration(evictor_registration&& o) noexcept = default;
  evictor_registration& operator=(evictor_registration&& o) noexcept;
  evictor_registration(const evictor_registration&) = delete;
  evictor_registration& operator=(const evictor_registration&) = delete;

  explicit operator bool() const noexcept { return slot_ != nullptr; }
  void reset() noexcept;

 private:
  friend class memory_budget;
  evictor_registration(std::shared_ptr<detail::budget_core> c, std::shared_ptr<detail::evictor_slot> s)
      : core_(std::move(c)), slot_(std::move(s)) {}
  std::shared_ptr<detail::budget_core> core_;
  std::shared_ptr<detail::evictor_slot> slot_;
};

// Asked for `missing` bytes; frees up to that much (whole items may free more) by dropping
// reservations of the budget, and returns how many bytes it freed.
using evict_fn = std::function<uint64_t(uint64_t missing)>;

struct evictor_stats {
  std::string name;
  int rank = 0;
  uint64_t calls = 0;
  uint64_t bytes_requested = 0;
  uint64_t bytes_freed = 0;
};

// One budget's state and counters since it was made, for /status and /metrics.
struct budget_snapshot {
  std::string name;  // "host", "device0"
  memory_kind kind = memory_kind::host;
  int ordinal = -1;  // the device ordinal; -1 for host
  uint64_t limit = 0;
  uint64_t used = 0;
  uint64_t peak = 0;
  uint64_t waiting = 0;        // requests in line now
  uint64_t waiting_bytes = 0;  // what they ask for
  uint64_t granted = 0;
  uint64_t waited = 0;  // of those granted, how many were not granted at once
  uint64_t refused_too_large = 0;
  uint64_t cancelled = 0;
  uint64_t timed_out = 0;
  double wait_seconds = 0;  // total time spent in line, granted or not
  uint64_t eviction_calls = 0;
  uint64_t eviction_bytes_requested = 0;
  uint64_t eviction_bytes_freed = 0;
  std::vector<evictor_stats> evictors;  // in the order they are asked
};

class memory_budget {
 public:
  memory_budget(std::string name, memory_kind kind, int ordinal, uint64_t limit);
  memory_budget(const memory_budget&) = delete;
  memory_budget& operator=(const memory_budget&) = delete;

  const std::string& name() const noexcept;
  memory_kind kind() const noexcept;
  int ordinal() const noexcept;
  uint64_t limit() const noexcept;
  uint64_t used() const;

  // `bytes` reserved, once every earlier request has been served and they fit (after asking the
  // evictors). Errors (see acquire_options::why): larger than the limit or timed out
  // (resource_exhausted), cancelled while waiting (cancelled). A refused request leaves the line at
  // once and the next one proceeds.
  result<reservation> acquire(uint64_t bytes, const acquire_options& opt = {});

  // `bytes` reserved where they fit now and nobody waits in line; else nothing, and nothing
  // counted (no timed_out) and nobody woken. For a caller that polls for spare room while it
  // waits for something else (a calculation waiting for its batch's share), so that its tries do
  // not read as refusals in /status and /metrics nor wake the line. Never asks the evictors.
  std::optional<reservation> try_now(uint64_t bytes);

  // Adds an evictor, asked after those of lower rank and those of equal rank added earlier.
  evictor_registration add_evictor(std::string name, int rank, evict_fn fn);

  // Makes every waiter look again now: after a cancel token was triggered, or after something
  // became evictable (a pinned buffer went idle, a key lost its last user).
  void wake_waiters() noexcept;

  budget_snapshot snapshot() const;

 private:
  friend class reservation;
  static result<reservation> acquire_from(const std::shared_ptr<detail::budget_core>& core, uint64_t bytes,
                                          const acquire_options& opt);
  std::shared_ptr<detail::budget_core> core_;
};

// The engine's budgets: the host's and one per device ordinal.
class memory_budgets {
 public:
  memory_budgets(uint64_t host_limit, const std::map<int, uint64_t>& device_limits);

  memory_budget& host() noexcept { return *host_; }
  // Null when the ordinal has no budget.
  memory_budget* device(int ordinal) noexcept;
  std::vector<int> device_ordinals() const;
  // Host first, then devices by ordinal.
  std::vector<budget_snapshot> snapshot() const;

 private:
  std::unique_ptr<memory_budget> host_;
  std::map<int, std::unique_ptr<memory_budget>> devices_;
};

// "1.50 GiB (1610612736 bytes)": sizes in messages, exact and readable.
std::string describe_bytes(uint64_t bytes);

}  // namespace cuzk::engine
