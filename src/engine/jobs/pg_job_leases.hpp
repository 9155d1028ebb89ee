// SPDX-License-Identifier: MIT OR Apache-2.0
// Claiming work across daemons: leases on the shared queue's jobs, with a heartbeat and a fencing
// generation, so that each job's result is committed exactly once.
//
// Each daemon (a node, named uniquely in the cluster) claims the next job with one statement:
// `SELECT ... ORDER BY priority DESC, id LIMIT 1 FOR UPDATE SKIP LOCKED` inside an UPDATE that
// writes the claim. SKIP LOCKED lets many nodes claim at once without waiting on each other's rows,
// and the order is the engine's: priority class first, FIFO (by id) within a class, except that a
// node may prefer the jobs whose key it holds resident for a bounded time (claim_preference). A
// claimable job is one not ended whose lease is unset (never claimed, or released) or past its end.
// The claim is also the attempt's start (state loading_key, the attempt counted): a node claims only
// for a worker about to take the job, so no separate write starts it.
//
// A claim is a lease: it lasts `lease` past the claim and past every heartbeat(), which extends all
// the node's leases at once. A node that dies (kill -9, power loss, a cut network) stops
// heartbeating; when its leases end, another node's claim takes the job. Every claim increments the
// job's lease generation, and finish() commits a result only while the job still carries the
// generation its claim returned (the fencing token): a node that comes back after its lease was taken
// over gets failed_precondition and writes nothing, whether or not the new holder has finished. The
// check and the write are one transaction on the row, so of two racing commits exactly one lands.
//
// Lease ends and heartbeats are the server's clock (clock_timestamp()), never a node's: nodes whose
// clocks disagree still agree on which leases ended. Each heartbeat also records the node in the
// `nodes` table (its last heartbeat), for a view of the cluster.
//
// Cancel reaches a job wherever it runs: any node flags it in its row, and the holder's next
// heartbeat returns it, so it stops within one heartbeat interval plus the phase it is in. A claim
// returns the flag too: a job flagged while its holder stalled, then taken over when the lease ran
// out, is ended cancelled by its new holder without being proved.
//
// Thread safety: any thread; one connection guarded by a mutex (separate from the store's, so a
// claim never waits behind a large result being written).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/jobs/job_lease.hpp"
#include "engine/jobs/job_store.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

// What a heartbeat found.
struct heartbeat_outcome {
  std::size_t renewed = 0;               // leases this node still holds, extended
  std::vector<job_id> cancel_requested;  // of those, the jobs a client asked (of any node) to cancel
};

// Which claimable jobs a node would rather take within a priority class: those whose key it holds
// resident (no key load), for at most `max_wait`; a job older than that is taken by any node in
// FIFO order, so no job waits for a node that holds its key.
struct claim_preference {
  std::vector<std::string> resident_circuits;
  std::chrono::milliseconds max_wait{0};
};

// What request_cancel() did.
enum class cancel_outcome : uint8_t {
  ended,         // no live lease held the job: it is cancelled now
  holder_asked,  // a node holds it: that node learns at its next heartbeat
};

class pg_job_leases {
 public:
  // Connects as `node` (non-empty, unique in the cluster) with leases of `lease` (at least 1 ms),
  // and migrates the schema as the store does (pg_schema.hpp).
  static result<std::unique_ptr<pg_job_leases>> open(const std::string& conninfo, std::string node,
                                                     std::chrono::milliseconds lease);

  // Claims the next claimable job (priority, then FIFO), or nullopt when none is. With a
  // preference: priority, then the preferred jobs (resident key, or older than max_wait), then FIFO.
  result<std::optional<job_lease>> claim(const claim_preference& prefer = {});
  // Claims the oldest claimable job of `circuit` in class `prio`: the companion of a claimed job in
  // a same-circuit batch.
  result<std::optional<job_lease>> claim_same(const std::string& circuit, priority prio);
  // Claims job `id` if it is claimable, whatever its place in the queue: a node at its start takes
  // back the jobs whose outcome it kept while the database was out of reach (parked_result.hpp).
  result<std::optional<job_lease>> claim_id(job_id id);
  // At a daemon's start: takes the node name. When a node of that name heartbeated within the lease,
  // waits half a lease and looks again: a heartbeat that moved meanwhile is another live daemon of
  // the same name (already_exists, nothing changed); one that did not is a predecessor that died.
  // The leases still held in the name (a predecessor's, killed) go back to the queue, since nothing
  // of this process holds them; returns how many.
  result<std::size_t> take_node_name();
  // Extends every lease this node still holds to `lease` from now, and says which of those jobs a
  // client asked to cancel (the holder stops each at its next phase boundary and commits it as
  // cancelled). A job another node took over is not this node's any more and is not extended.
  result<heartbeat_outcome> heartbeat();
  // Any node, for any job: asks for it to be cancelled with `reason`. A job no live lease holds
  // (queued, or its holder's lease ran out) is ended here as cancelled and announced, and its
  // generation moves on, so a holder that comes back cannot commit it. A held job is flagged for its
  // holder. not_found for an unknown job; failed_precondition for one that already ended.
  result<cancel_outcome> request_cancel(job_id id, const std::string& reason);
  // Commits the job's end (info.state terminal, info.id == l.id) if `l` is still the job's lease;
  // failed_precondition, with nothing written, if another claim took the job since.
  status finish(const job_lease& l, const job_result& info);
  // Gives the job back to the queue unfinished (a drain), if `l` is still its lease; the claim's
  // attempt is not counted against it, and idle nodes are woken (pg_job_queued_channel).
  status release(const job_lease& l);

  const std::string& node() const noexcept { return node_; }

 private:
  pg_job_leases(std::unique_ptr<pg_connection> c, std::string node, std::chrono::milliseconds lease)
      : c_(std::move(c)), node_(std::move(node)), lease_ms_(std::to_string(lease.count())) {}
  // Locks the job's row if `l` is still its lease; failed_precondition otherwise.
  // With `ended_by_us`: a row this lease already ended is not refused; *ended_by_us says so.
  status hold_fence(const job_lease& l, const char* what, bool* ended_by_us = nullptr);
  result<std::optional<job_lease>> claim_where(const std::string& order_and_filter,
                                               std::vector<pg_param> params);

  std::mutex m_;
  std::unique_ptr<pg_connection> c_;
  std::string node_;
  std::string lease_ms_;
};

}  // namespace cuzk::engine
