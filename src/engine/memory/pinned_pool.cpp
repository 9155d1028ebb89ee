// SPDX-License-Identifier: MIT OR Apache-2.0
// The pinned pool (see pinned_pool.hpp).
//
// The pool's state lives in a shared object that leases point to, so a lease that ends after the
// pool frees its buffer instead of touching a dead pool. One mutex guards the buffer table, the
// hints and the counters; it is never held while allocating (pinning is slow), while freeing, or
// while asking the budget for memory (the budget may call back into trim() to make room).
#include "engine/memory/pinned_pool.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace cuzk::engine {

namespace detail {

struct pooled_buffer {
  // Declared before the block so the memory is freed before its budget bytes are returned: the
  // budget never counts less than what is allocated.
  reservation res;
  host_block block;
  bool leased = false;
  uint64_t last_use = 0;  // LRU order among idle buffers
};

struct pool_state {
  std::shared_ptr<host_allocator> alloc;
  bool pinned_kind = false;
  mutable std::mutex m;
  memory_budget* budget = nullptr;            // null once the pool is gone
  std::map<uint64_t, pooled_buffer> buffers;  // by id (ids start at 1; 0 means "not pooled")
  uint64_t next_id = 1;
  uint64_t use_seq = 0;
  std::map<std::string, uint64_t> hints;
  std::function<void(const pool_event&)> on_event;

  uint64_t acquires = 0, hits = 0, allocations = 0, allocation_failures = 0;
  double allocation_seconds = 0;
  uint64_t fallbacks = 0, fallbacks_budget = 0, fallbacks_allocation = 0;
  uint64_t evicted_buffers = 0, evicted_bytes = 0;

  void report(const pool_event& e) const {
    if (on_event) on_event(e);
  }

  // A lease ended: the buffer goes idle, or is freed when the pool is gone.
  void give_back(uint64_t id) noexcept {
    std::optional<pooled_buffer> dead;  // declared before the lock: freed after it is released
    std::lock_guard lk(m);
    auto it = buffers.find(id);
    if (it == buffers.end()) return;
    if (budget == nullptr) {
      dead.emplace(std::move(it->second));
      buffers.erase(it);
      return;
    }
    it->second.leased = false;
    it->second.last_use = ++use_seq;
    // Something evictable appeared: a request first in line may now make room. Lock order is pool
    // then budget; the budget never holds its lock while calling into the pool.
    budget->wake_waiters();
  }

  uint64_t idle_fitting(uint64_t bytes) const {
    uint64_t n = 0;
    for (const auto& [id, b] : buffers)
      if (!b.leased && b.block.size() >= bytes) ++n;
    return n;
  }
};

}  // namespace detail

// ---- pinned_lease

pinned_lease::pinned_lease(pinned_lease&& o) noexcept { *this = std::move(o); }

pinned_lease& pinned_lease::operator=(pinned_lease&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = std::move(o.pool_);
    buffer_id_ = std::exchange(o.buffer_id_, 0);
    fallback_ = std::move(o.fallback_);
    res_ = std::move(o.res_);
    data_ = std::exchange(o.data_, nullptr);
    requested_ = std::exchange(o.requested_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    pinned_ = std::exchange(o.pinned_, false);
    reason_ = std::move(o.reason_);
    o.reason_.clear();
  }
  return *this;
}

void pinned_lease::reset() noexcept {
  if (pool_) {
    pool_->give_back(buffer_id_);
    pool_.reset();
  }
  fallback_ = host_block{};  // pageable memory first, then its budget bytes
  res_.reset();
  buffer_id_ = 0;
  data_ = nullptr;
  requested_ = 0;
  capacity_ = 0;
  pinned_ = false;
  reason_.clear();
}

// ---- pinned_pool

pinned_pool::pinned_pool(std::shared_ptr<host_allocator> alloc, memory_budget& budget,
                         pinned_pool_options opt)
    : state_(std::make_shared<detail::pool_state>()) {
  state_->pinned_kind = std::string(alloc->kind()) == "pinned";
  state_->alloc = std::move(alloc);
  state_->budget = &budget;
  state_->on_event = std::move(opt.on_event);
  evictor_ = budget.add_evictor("pinned pool: idle buffers", evictor_rank::idle_pinned_buffers,
                                [this](uint64_t missing) { return trim(missing); });
}

pinned_pool::~pinned_pool() {
  evictor_.reset();
  std::vector<detail::pooled_buffer> idle;
  {
    std::lock_guard lk(state_->m);
    state_->budget = nullptr;
    for (auto it = state_->buffers.begin(); it != state_->buffers.end();) {
      if (it->second.leased) {
        ++it;
        continue;
      }
      idle.push_back(std::move(it->second));
      it = state_->buffers.erase(it);
    }
  }
}

void pinned_pool::set_capacity_hint(const std::string& circuit, uint64_t bytes) {
  std::lock_guard lk(state_->m);
  auto& h = state_->hints[circuit];
  h = std::max(h, bytes);
}

uint64_t pinned_pool::capacity_hint(const std::string& circuit) const {
  std::lock_guard lk(state_->m);
  auto it = state_->hints.find(circuit);
  return it == state_->hints.end() ? 0 : it->second;
}

result<pinned_lease> pinned_pool::acquire(const std::string& circuit, uint64_t bytes, reservation* charge) {
  auto& s = *state_;
  const std::string who = "pinned pool: circuit " + circuit + ": ";
  if (bytes == 0) return status(errc::invalid_argument, who + "a buffer of 0 bytes was requested");
  memory_budget& budget = *s.budget;
  if (charge != nullptr && *charge && !charge->belongs_to(budget))
    return status(errc::invalid_argument,
                  who + "the charged reservation is not one of budget \"" + budget.name() + "\"");

  pinned_lease lease;
  lease.requested_ = bytes;
  uint64_t hint = 0;
  {
    std::lock_guard lk(s.m);
    ++s.acquires;
    auto& h = s.hints[circuit];
    h = std::max(h, bytes);
    hint = h;
    // The smallest idle buffer that fits; among equals the most recently used (warm in cache).
    detail::pooled_buffer* best = nullptr;
    uint64_t best_id = 0;
    for (auto& [id, b] : s.buffers) {
      if (b.leased || b.block.size() < bytes) continue;
      if (best == nullptr || b.block.size() < best->block.size() ||
          (b.block.size() == best->block.size() && b.last_use > best->last_use)) {
        best = &b;
        best_id = id;
      }
    }
    if (best != nullptr) {
      best->leased = true;
      ++s.hits;
      lease.pool_ = state_;
      lease.buffer_id_ = best_id;
      lease.data_ = static_cast<std::byte*>(best->block.data());
      lease.capacity_ = best->block.size();
      lease.pinned_ = s.pinned_kind;
    }
  }
  // The caller's share for these bytes is covered by the pooled buffer from here on.
  const uint64_t from_charge = charge != nullptr ? std::min(bytes, charge->bytes()) : 0;
  if (lease) {
    if (charge != nullptr) charge->release(from_charge);
    return lease;
  }

  // A new buffer: at the hint's size when the budget allows, else exactly the request.
  reservation res;
  uint64_t size = 0;
  std::string refused;
  std::vector<uint64_t> sizes{hint};
  if (bytes != hint) sizes.push_back(bytes);
  for (const uint64_t want : sizes) {
    const uint64_t need = want - from_charge;
    if (need == 0) {
      size = want;
      break;
    }
    const std::string purpose = "a pinned buffer for circuit " + circuit;
    acquire_options opt;
    opt.timeout = std::chrono::milliseconds(0);
    opt.purpose = purpose;
    auto r = budget.acquire(need, opt);
    if (r) {
      res = std::move(*r);
      size = want;
      break;
    }
    refused = r.error().message();
  }

  std::string reason;
  bool budget_refused = false;
  if (size != 0) {
    if (charge != nullptr) (void)res.absorb(charge->split(from_charge));  // same budget: checked above
    const auto t0 = std::chrono::steady_clock::now();
    auto blk = s.alloc->allocate(size);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (blk) {
      lease.pool_ = state_;
      lease.data_ = static_cast<std::byte*>(blk->data());
      lease.capacity_ = size;
      lease.pinned_ = s.pinned_kind;
      {
        std::lock_guard lk(s.m);
        const uint64_t id = s.next_id++;
        lease.buffer_id_ = id;
        auto& b = s.buffers[id];
        b.res = std::move(res);
        b.block = std::move(*blk);
        b.leased = true;
        ++s.allocations;
        s.allocation_seconds += secs;
      }
      s.report({pool_event_kind::allocated, circuit, size, 1, secs, {}});
      return lease;
    }
    {
      std::lock_guard lk(s.m);
      ++s.allocation_failures;
    }
    reason = "the " + std::string(s.alloc->kind()) + " allocator failed: " + blk.error().message();
    // The budget bytes stay with the lease, covering the pageable memory that replaces the buffer.
    res.release(res.bytes() - std::min(res.bytes(), bytes));
  } else {
    budget_refused = true;
    reason = "no room in the budget: " + refused;
    if (charge != nullptr) res = charge->split(from_charge);
  }

  pageable_allocator pageable;
  auto blk = pageable.allocate(bytes);
  if (!blk)
    return status(errc::io_error, who + "no pooled buffer (" + reason + ") and " + describe_bytes(bytes) +
                                      " of pageable memory could not be allocated either");
  lease.data_ = static_cast<std::byte*>(blk->data());
  lease.capacity_ = bytes;
  lease.pinned_ = false;
  lease.fallback_ = std::move(*blk);
  lease.res_ = std::move(res);
  lease.reason_ = reason;
  {
    std::lock_guard lk(s.m);
    ++s.fallbacks;
    ++(budget_refused ? s.fallbacks_budget : s.fallbacks_allocation);
  }
  s.report({pool_event_kind::fallback, circuit, bytes, 1, 0, reason});
  return lease;
}

status pinned_pool::prewarm(const std::string& circuit, uint32_t count) {
  auto& s = *state_;
  const uint64_t hint = capacity_hint(circuit);
  const std::string who = "pinned pool: prewarm of circuit " + circuit + ": ";
  if (hint == 0)
    return status(errc::failed_precondition,
                  who + "no capacity hint for the circuit (set_capacity_hint, or a first proof, sets one)");
  for (uint32_t made = 0;; ++made) {
    uint64_t ready = 0;
    {
      std::lock_guard lk(s.m);
      ready = s.idle_fitting(hint);
    }
    // `made` bounds the loop when concurrent acquires keep taking the new buffers.
    if (ready >= count || made >= count) return status::ok();
    const std::string progress = std::to_string(ready) + " of " + std::to_string(count) + " buffers of " +
                                 describe_bytes(hint) + " ready";
    const std::string purpose = "a pinned buffer for circuit " + circuit;
    acquire_options opt;
    opt.timeout = std::chrono::milliseconds(0);
    opt.purpose = purpose;
    opt.evict = false;  // free room only: evicting would throw out the very buffers being made
    auto r = s.budget->acquire(hint, opt);
    if (!r) return r.error().with_context(who + progress);
    const auto t0 = std::chrono::steady_clock::now();
    auto blk = s.alloc->allocate(hint);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!blk) {
      std::lock_guard lk(s.m);
      ++s.allocation_failures;
      return blk.error().with_context(who + progress + "; the " + s.alloc->kind() + " allocator failed");
    }
    {
      std::lock_guard lk(s.m);
      auto& b = s.buffers[s.next_id++];
      b.res = std::move(*r);
      b.block = std::move(*blk);
      b.last_use = ++s.use_seq;
      ++s.allocations;
      s.allocation_seconds += secs;
    }
    s.report({pool_event_kind::allocated, circuit, hint, 1, secs, {}});
  }
}

uint64_t pinned_pool::trim(uint64_t bytes) {
  auto& s = *state_;
  std::vector<detail::pooled_buffer> dead;
  uint64_t freed = 0;
  {
    std::lock_guard lk(s.m);
    std::vector<std::pair<uint64_t, uint64_t>> idle;  // (last_use, id)
    for (const auto& [id, b] : s.buffers)
      if (!b.leased) idle.emplace_back(b.last_use, id);
    std::sort(idle.begin(), idle.end());
    for (const auto& [use, id] : idle) {
      if (freed >= bytes) break;
      auto it = s.buffers.find(id);
      freed += it->second.block.size();
      dead.push_back(std::move(it->second));
      s.buffers.erase(it);
    }
    s.evicted_buffers += dead.size();
    s.evicted_bytes += freed;
  }
  if (dead.empty()) return 0;
  const auto n = static_cast<uint32_t>(dead.size());
  dead.clear();  // frees the memory and returns the budget bytes, outside the lock
  s.report({pool_event_kind::freed, {}, freed, n, 0, {}});
  return freed;
}

pinned_pool_snapshot pinned_pool::snapshot() const {
  const auto& s = *state_;
  pinned_pool_snapshot out;
  out.memory = s.alloc->kind();
  std::lock_guard lk(s.m);
  for (const auto& [id, b] : s.buffers) {
    ++out.buffers;
    out.bytes += b.block.size();
    if (b.leased) {
      ++out.leased;
    } else {
      ++out.idle;
      out.idle_bytes += b.block.size();
    }
  }
  out.acquires = s.acquires;
  out.hits = s.hits;
  out.allocations = s.allocations;
  out.allocation_seconds = s.allocation_seconds;
  out.allocation_failures = s.allocation_failures;
  out.fallbacks = s.fallbacks;
  out.fallbacks_budget = s.fallbacks_budget;
  out.fallbacks_allocation = s.fallbacks_allocation;
  out.evicted_buffers = s.evicted_buffers;
  out.evicted_bytes = s.evicted_bytes;
  out.capacity_hints.assign(s.hints.begin(), s.hints.end());
  return out;
}

}  // namespace cuzk::engine
