// SPDX-License-Identifier: MIT OR Apache-2.0
// The pinned pool: page-locked host buffers for a/b/c, allocated once and reused.
//
// Synthesis writes a, b and c straight into page-locked memory so the copies to the GPU run at the
// line rate (55.5 GB/s pinned against 8.2 GB/s pageable on the H200, 39.9 against 3.4 GB/s while
// synthesis loads the memory bus; docs/BENCHMARKS.md, 'Reference points'). Pinning costs 0.06-0.3 s per
// GiB even made on every core (gpu/locked_host_memory.hpp), so buffers are kept when a proof is done and handed to the next one: after warm-up no
// allocation happens on the proving path. The allocator is injected (host_allocator: the GPU layer's
// page-locked one, or a fake in tests), and every pooled byte is held as a reservation of the host
// memory_budget.
//
// acquire(circuit, bytes) hands out a lease on an idle buffer of at least `bytes` (the smallest that
// fits), else allocates one. Each circuit's largest request is remembered as its capacity hint, and
// a new buffer is allocated at the hint's size, so a circuit whose sizes vary settles on one buffer
// size (set_capacity_hint() seeds it from the key, prewarm() allocates ahead). When the pool cannot
// serve (no room in the budget after eviction, or the allocator fails) the lease falls back to
// pageable memory: the proof still runs, slower; the lease says so and why, the fallback is counted
// and reported through the on_event callback. The pool is the budget's first evictor
// (evictor_rank::idle_pinned_buffers): asked for room, it frees its least recently used idle buffers.
//
// The a/b/c bytes are usually already inside the job's working-set reservation, taken in priority
// order by the dispatcher. Passing that reservation as `charge` moves the a/b/c share out of it so
// nothing is counted twice: on a hit the share goes back to the budget (the pooled buffer is
// already counted), on a new buffer it becomes part of the buffer's reservation (no new budget
// needed, so admission alone decides), and on a fallback it travels with the lease and is released
// with it. Without a charge the pool reserves from the budget without waiting, and a fallback the
// budget refused is pageable memory the budget does not see.
//
// How it is used: the engine makes one pinned_pool on memory_budgets::host() with the backend's
// host allocator (the GPU backend's pinned one, backends/gpu_pinned_allocator.hpp; pageable_allocator
// with the CPU: buffers are then reused but report pinned() false) and maps on_event to its log
// (allocated: info, fallback: warn) and metrics. Each worker's prove_call carries the pool and the
// job's working-set reservation; the GPU backend acquires the proof's staging there (the witness,
// and a | b | c when synthesis runs on the host into pinned memory; backends/gpu_staging.hpp)
// charged to that reservation, lends it to the worker's gpu_workspace, and the lease goes back to
// the pool as soon as the copies to the device have read it. A circuit's first proof sets its
// capacity hint; set_capacity_hint() and prewarm() can seed it ahead. /status and /metrics read
// snapshot().
//
// Thread safety: every method from any thread. A lease belongs to one owner at a time; it keeps
// the pool's state alive and may outlive the pool (its buffer is then freed when it ends).
// Allocation and freeing run without the pool's lock held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/memory/host_allocator.hpp"
#include "engine/memory/memory_budget.hpp"

namespace cuzk::engine {

namespace detail {
struct pool_state;
}  // namespace detail

enum class pool_event_kind {
  allocated,  // a pooled buffer was allocated (slow: worth a log line with its time)
  freed,      // idle buffers were freed (eviction or trim)
  fallback,   // a lease is served from pageable memory
};

struct pool_event {
  pool_event_kind kind = pool_event_kind::allocated;
  std::string circuit;  // empty for freed
  uint64_t bytes = 0;
  uint32_t buffers = 1;
  double seconds = 0;  // allocation time (allocated)
  std::string reason;  // why (fallback)
};

struct pinned_pool_options {
  // Called outside the pool's lock, from the thread that caused the event. Unset: nothing is
  // reported (the counters still count).
  std::function<void(const pool_event&)> on_event;
};

// A buffer of at least the requested size, from the pool or pageable memory. Move-only; the
// destructor returns a pooled buffer to the pool (idle, still allocated) or frees pageable memory.
class pinned_lease {
 public:
  pinned_lease() = default;
  ~pinned_lease() { reset(); }
  pinned_lease(pinned_lease&& o) noexcept;
  pinned_lease& operator=(pinned_lease&& o) noexcept;
  pinned_lease(const pinned_lease&) = delete;
  pinned_lease& operator=(const pinned_lease&) = delete;

  explicit operator bool() const noexcept { return data_ != nullptr; }
  std::byte* data() const noexcept { return data_; }
  template <class T>
  T* as() const noexcept {
    return reinterpret_cast<T*>(data_);
  }
  uint64_t requested() const noexcept { return requested_; }
  uint64_t capacity() const noexcept { return capacity_; }
  std::span<std::byte> bytes() const noexcept { return {data_, static_cast<std::size_t>(requested_)}; }
  // From the pool (as opposed to a pageable fallback).
  bool pooled() const noexcept { return buffer_id_ != 0; }
  // Page-locked: pooled, from an allocator of kind "pinned".
  bool pinned() const noexcept { return pinned_; }
  // Why the pool did not serve it; empty when pooled.
  const std::string& fallback_reason() const noexcept { return reason_; }
  // The budget bytes this lease holds itself (a fallback's share of the charge); pooled buffers
  // are counted by the pool.
  uint64_t reserved_bytes() const noexcept { return res_.bytes(); }

  void reset() noexcept;

 private:
  friend class pinned_pool;
  std::shared_ptr<detail::pool_state> pool_;  // set for pooled buffers
  uint64_t buffer_id_ = 0;
  host_block fallback_;  // set for pageable fallbacks
  reservation res_;
  std::byte* data_ = nullptr;
  uint64_t requested_ = 0;
  uint64_t capacity_ = 0;
  bool pinned_ = false;
  std::string reason_;
};

struct pinned_pool_snapshot {
  std::string memory;    // the allocator's kind: "pinned" or "pageable"
  uint64_t buffers = 0;  // allocated now
  uint64_t leased = 0;
  uint64_t idle = 0;
  uint64_t bytes = 0;  // allocated now (all of it held in the budget)
  uint64_t idle_bytes = 0;
  uint64_t acquires = 0;
  uint64_t hits = 0;         // served by an idle buffer
  uint64_t allocations = 0;  // buffers allocated, by acquire() or prewarm()
  double allocation_seconds = 0;
  uint64_t allocation_failures = 0;
  uint64_t fallbacks = 0;             // leases served from pageable memory
  uint64_t fallbacks_budget = 0;      //   because the budget had no room
  uint64_t fallbacks_allocation = 0;  //   because the allocator failed
  uint64_t evicted_buffers = 0;       // freed on the budget's request or by trim()
  uint64_t evicted_bytes = 0;
  std::vector<std::pair<std::string, uint64_t>> capacity_hints;  // by circuit
};

class pinned_pool {
 public:
  // `alloc` supplies the pooled buffers and must outlive the pool's buffers (leases included);
  // `budget` is the host budget. The pool registers as the budget's evictor of rank
  // evictor_rank::idle_pinned_buffers.
  pinned_pool(std::shared_ptr<host_allocator> alloc, memory_budget& budget, pinned_pool_options opt = {});
  // Frees the idle buffers; leased ones are freed when their leases end.
  ~pinned_pool();
  pinned_pool(const pinned_pool&) = delete;
  pinned_pool& operator=(const pinned_pool&) = delete;

  // A buffer of at least `bytes` for `circuit` (see the opening comment for `charge`, which must
  // be a reservation of this pool's budget). Errors: a charge from another budget, bytes == 0,
  // and a pageable fallback that could not be allocated either.
  result<pinned_lease> acquire(const std::string& circuit, uint64_t bytes, reservation* charge = nullptr);

  // Raises the circuit's capacity hint to at least `bytes`.
  void set_capacity_hint(const std::string& circuit, uint64_t bytes);
  // 0 when the circuit has none.
  uint64_t capacity_hint(const std::string& circuit) const;

  // Allocates buffers of the circuit's hinted size until `count` idle buffers of at least that
  // size exist, from free room in the budget only (it evicts nothing). Errors: no hint for the
  // circuit, or the budget or the allocator refused (the message says which, and how many buffers
  // are ready).
  status prewarm(const std::string& circuit, uint32_t count);

  // Frees idle buffers, least recently used first, until at least `bytes` are freed or none is
  // idle; returns the bytes freed. The budget's evictor calls this.
  uint64_t trim(uint64_t bytes);

  pinned_pool_snapshot snapshot() const;

 private:
  std::shared_ptr<detail::pool_state> state_;
  evictor_registration evictor_;  // last: unregistered first when the pool goes
};

}  // namespace cuzk::engine
