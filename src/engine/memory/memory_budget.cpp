// SPDX-License-Identifier: MIT OR Apache-2.0
// The memory budget (see memory_budget.hpp).
//
// One mutex per budget guards the count, the line and the counters; a condition variable wakes
// waiters whenever memory comes back. The line is a list of tickets in arrival order and only the
// first ticket may be granted, which is what keeps a later, smaller request from overtaking.
// The first in line also runs the evictors, with the lock released (they release reservations of
// this budget), and so does a request ahead of the line that does not fit. It asks them again only when something changed since its last round (memory came
// back, wake_waiters(), a new evictor) or after k_evict_retry, so a long wait does not turn into a
// stream of useless evictor calls.
#include "engine/memory/memory_budget.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <iterator>
#include <list>
#include <mutex>

#include "base/enum_names.hpp"

namespace cuzk::engine {

namespace {

using clock = std::chrono::steady_clock;

// A cancel token has no way to wake a waiter, so waiters poll it this often (unless the engine
// calls wake_waiters() after cancelling). 20 ms is nothing against proofs that take seconds.
constexpr auto k_poll = std::chrono::milliseconds(20);
// The first in line asks the evictors again after this long even when nothing was signalled: a
// safety net for a cache that became evictable without calling wake_waiters().
constexpr auto k_evict_retry = std::chrono::seconds(1);

std::string seconds_text(clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

namespace detail {

struct evictor_slot {
  std::string name;
  int rank = 0;
  // Held while the evictor runs; unregistration takes it to wait for a running call to end.
  std::mutex call_m;
  evict_fn fn;  // cleared (under call_m) when unregistered
  // Under the budget's mutex.
  uint64_t calls = 0, bytes_requested = 0, bytes_freed = 0;
};

struct budget_core {
  struct ticket {
    uint64_t id;
    uint64_t bytes;
  };

  std::string name;
  memory_kind kind = memory_kind::host;
  int ordinal = -1;
  uint64_t limit = 0;

  mutable std::mutex m;
  std::condition_variable cv;
  uint64_t used = 0, peak = 0;
  std::list<ticket> line;
  uint64_t next_ticket = 0;
  // Bumped by anything that may let the first in line fit or give the evictors something new.
  uint64_t generation = 0;
  std::vector<std::shared_ptr<evictor_slot>> evictors;  // in the order they are asked

  uint64_t granted = 0, waited = 0, refused_too_large = 0, cancelled = 0, timed_out = 0;
  clock::duration wait_total{};
  uint64_t eviction_calls = 0, eviction_bytes_requested = 0, eviction_bytes_freed = 0;

  // Written so that a limit of UINT64_MAX ("unlimited") cannot overflow; used <= limit always.
  bool fits(uint64_t bytes) const noexcept { return bytes <= limit - used; }

  void give_back(uint64_t n) noexcept {
    if (n == 0) return;
    {
      std::lock_guard lk(m);
      used -= n;
      ++generation;
    }
    cv.notify_all();
  }

  // One round over the evictors for the first in line, asking each for what is still missing.
  void evict(std::unique_lock<std::mutex>& lk, uint64_t bytes) {
    const auto slots = evictors;
    for (const auto& s : slots) {
      if (fits(bytes)) break;
      const uint64_t missing = bytes - (limit - used);
      lk.unlock();
      uint64_t freed = 0;
      bool called = false;
      {
        std::lock_guard g(s->call_m);
        if (s->fn) {
          called = true;
          // An evictor that throws has freed nothing we can count on; the request carries on.
          try {
            freed = s->fn(missing);
          } catch (...) {
            freed = 0;
          }
        }
      }
      lk.lock();
      if (!called) continue;
      ++s->calls;
      s->bytes_requested += missing;
      s->bytes_freed += freed;
      ++eviction_calls;
      eviction_bytes_requested += missing;
      eviction_bytes_freed += freed;
    }
  }
};

}  // namespace detail

const char* refusal_name(refusal r) noexcept {
  static constexpr auto words = words_of<refusal::timed_out>({
      "none", "too_large", "cancelled", "timed_out"}, "unknown");
  return words.name(r);
}

std::string describe_bytes(uint64_t bytes) {
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = static_cast<double>(bytes) / 1024.0;
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(units)) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return std::string(buf) + " (" + std::to_string(bytes) + " bytes)";
}

// ---- reservation

reservation::reservation(reservation&& o) noexcept : core_(std::move(o.core_)), bytes_(o.bytes_) {
  o.bytes_ = 0;
}

reservation& reservation::operator=(reservation&& o) noexcept {
  if (this != &o) {
    reset();
    core_ = std::move(o.core_);
    bytes_ = o.bytes_;
    o.bytes_ = 0;
  }
  return *this;
}

bool reservation::belongs_to(const memory_budget& b) const noexcept { return core_ && core_ == b.core_; }

void reservation::release(uint64_t n) noexcept {
  if (!core_) return;
  n = std::min(n, bytes_);
  bytes_ -= n;
  core_->give_back(n);
}

void reservation::reset() noexcept {
  if (!core_) return;
  core_->give_back(bytes_);
  bytes_ = 0;
  core_.reset();
}

reservation reservation::split(uint64_t n) noexcept {
  if (!core_) return {};
  n = std::min(n, bytes_);
  bytes_ -= n;
  return reservation(core_, n);
}

status reservation::absorb(reservation&& other) {
  if (!other.core_) return status::ok();
  if (!core_) {
    *this = std::move(other);
    return status::ok();
  }
  if (core_ != other.core_)
    return status(errc::invalid_argument, "reservation: cannot merge a reservation of budget \"" +
                                              other.core_->name + "\" into one of budget \"" + core_->name +
                                              "\"");
  bytes_ += other.bytes_;
  other.bytes_ = 0;
  other.core_.reset();
  return status::ok();
}

// ---- evictor_registration

evictor_registration& evictor_registration::operator=(evictor_registration&& o) noexcept {
  if (this != &o) {
    reset();
    core_ = std::move(o.core_);
    slot_ = std::move(o.slot_);
  }
  return *this;
}

void evictor_registration::reset() noexcept {
  if (!slot_) return;
  {
    std::lock_guard lk(core_->m);
    auto& v = core_->evictors;
    v.erase(std::remove(v.begin(), v.end(), slot_), v.end());
  }
  {
    // Waits for a call in progress; a round that copied the list before the erase skips it.
    std::lock_guard g(slot_->call_m);
    slot_->fn = nullptr;
  }
  slot_.reset();
  core_.reset();
}

// ---- memory_budget

memory_budget::memory_budget(std::string name, memory_kind kind, int ordinal, uint64_t limit)
    : core_(std::make_shared<detail::budget_core>()) {
  core_->name = std::move(name);
  core_->kind = kind;
  core_->ordinal = ordinal;
  core_->limit = limit;
}

const std::string& memory_budget::name() const noexcept { return core_->name; }
memory_kind memory_budget::kind() const noexcept { return core_->kind; }
int memory_budget::ordinal() const noexcept { return core_->ordinal; }
uint64_t memory_budget::limit() const noexcept { return core_->limit; }

uint64_t memory_budget::used() const {
  std::lock_guard lk(core_->m);
  return core_->used;
}

result<reservation> memory_budget::acquire(uint64_t bytes, const acquire_options& opt) {
  return acquire_from(core_, bytes, opt);
}

status reservation::grow(uint64_t n, const acquire_options& opt) {
  if (!core_) return status(errc::failed_precondition, "reservation: a detached reservation cannot grow");
  auto more = memory_budget::acquire_from(core_, n, opt);
  if (!more) return more.error();
  return absorb(std::move(more).value());
}

result<reservation> memory_budget::acquire_from(const std::shared_ptr<detail::budget_core>& core, uint64_t bytes,
                                                const acquire_options& opt) {
  auto& c = *core;
  if (opt.why) *opt.why = refusal::none;
  const std::string head = "memory budget \"" + c.name + "\": ";
  const std::string request =
      describe_bytes(bytes) + (opt.purpose.empty() ? std::string() : " for " + std::string(opt.purpose));
  auto refuse = [&](refusal r, std::string msg) -> result<reservation> {
    if (opt.why) *opt.why = r;
    return status(r == refusal::cancelled ? errc::cancelled : errc::resource_exhausted, head + msg);
  };

  if (bytes > c.limit) {
    {
      std::lock_guard lk(c.m);
      ++c.refused_too_large;
    }
    return refuse(refusal::too_large, "a request of " + request + " is larger than the whole budget (limit " +
                                          describe_bytes(c.limit) + "); it can never be granted");
  }

  const auto start = clock::now();
  const auto deadline = opt.timeout ? start + *opt.timeout : clock::time_point::max();
  std::unique_lock lk(c.m);
  if (opt.cancel && opt.cancel->cancelled()) {
    ++c.cancelled;
    return refuse(refusal::cancelled, "cancelled before waiting for " + request);
  }
  bool evicted = false;
  uint64_t evicted_generation = 0;
  clock::time_point evicted_at{};
  if (opt.ahead_of_line) {
    // The evictors asked from this thread, outside the line: what running work needs to go on
    // may push a cache out, but never waits behind the line for it.
    if (!c.fits(bytes) && opt.evict && !c.evictors.empty()) {
      c.evict(lk, bytes);
      evicted = true;
      evicted_generation = c.generation;
      evicted_at = clock::now();
    }
    if (c.fits(bytes)) {
      c.used += bytes;
      c.peak = std::max(c.peak, c.used);
      ++c.granted;
      return reservation(core, bytes);
    }
  }
  const auto self = c.line.insert(c.line.end(), {c.next_ticket++, bytes});
  bool waited = false;

  // Leaves the line, lets the next one look, and says why.
  auto leave = [&](refusal r) -> result<reservation> {
    const auto ahead = static_cast<uint64_t>(std::distance(c.line.begin(), self));
    const auto waited_for = clock::now() - start;
    c.line.erase(self);
    c.wait_total += waited_for;
    (r == refusal::cancelled ? c.cancelled : c.timed_out) += 1;
    const std::string state = describe_bytes(c.used) + " of " + describe_bytes(c.limit) + " in use, " +
                              std::to_string(ahead) + " request(s) ahead";
    lk.unlock();
    c.cv.notify_all();
    const bool no_wait = opt.timeout && opt.timeout->count() == 0;
    std::string what = r == refusal::cancelled
                           ? "cancelled after waiting " + seconds_text(waited_for) + " for "
                       : no_wait ? "no room without waiting for "
                                 : "timed out after waiting " + seconds_text(waited_for) + " for ";
    return refuse(r, what + request + "; " + state);
  };

  for (;;) {
    const bool first = c.line.begin() == self;
    if (first && c.fits(bytes)) {
      c.used += bytes;
      c.peak = std::max(c.peak, c.used);
      c.line.erase(self);
      ++c.granted;
      if (waited) {
        ++c.waited;
        c.wait_total += clock::now() - start;
      }
      lk.unlock();
      c.cv.notify_all();  // the next in line may fit as well
      return reservation(core, bytes);
    }
    const auto now = clock::now();
    if (first && opt.evict && !c.evictors.empty() &&
        (!evicted || c.generation != evicted_generation || now - evicted_at >= k_evict_retry)) {
      c.evict(lk, bytes);
      evicted = true;
      evicted_generation = c.generation;
      evicted_at = clock::now();
      continue;
    }
    if (opt.cancel && opt.cancel->cancelled()) return leave(refusal::cancelled);
    if (now >= deadline) return leave(refusal::timed_out);
    waited = true;
    // Releases and wake_waiters() notify; the timed wake-up is for the cancel token and the
    // evictors' safety net.
    c.cv.wait_until(lk, std::min(deadline, now + (opt.cancel ? k_poll : k_evict_retry)));
  }
}

std::optional<reservation> memory_budget::try_now(uint64_t bytes) {
  auto& c = *core_;
  std::lock_guard lk(c.m);
  if (!c.line.empty() || !c.fits(bytes)) return std::nullopt;
  c.used += bytes;
  c.peak = std::max(c.peak, c.used);
  ++c.granted;
  return reservation(core_, bytes);
}

evictor_registration memory_budget::add_evictor(std::string name, int rank, evict_fn fn) {
  auto s = std::make_shared<detail::evictor_slot>();
  s->name = std::move(name);
  s->rank = rank;
  s->fn = std::move(fn);
  {
    std::lock_guard lk(core_->m);
    auto& v = core_->evictors;
    // After every evictor of the same or a lower rank: equal ranks keep registration order.
    auto at = std::find_if(v.begin(), v.end(), [&](const auto& e) { return e->rank > rank; });
    v.insert(at, s);
    ++core_->generation;
  }
  core_->cv.notify_all();
  return evictor_registration(core_, std::move(s));
}

void memory_budget::wake_waiters() noexcept {
  {
    std::lock_guard lk(core_->m);
    ++core_->generation;
  }
  core_->cv.notify_all();
}

budget_snapshot memory_budget::snapshot() const {
  const auto& c = *core_;
  std::lock_guard lk(c.m);
  budget_snapshot s;
  s.name = c.name;
  s.kind = c.kind;
  s.ordinal = c.ordinal;
  s.limit = c.limit;
  s.used = c.used;
  s.peak = c.peak;
  s.waiting = c.line.size();
  for (const auto& t : c.line) s.waiting_bytes += t.bytes;
  s.granted = c.granted;
  s.waited = c.waited;
  s.refused_too_large = c.refused_too_large;
  s.cancelled = c.cancelled;
  s.timed_out = c.timed_out;
  s.wait_seconds = std::chrono::duration<double>(c.wait_total).count();
  s.eviction_calls = c.eviction_calls;
  s.eviction_bytes_requested = c.eviction_bytes_requested;
  s.eviction_bytes_freed = c.eviction_bytes_freed;
  for (const auto& e : c.evictors)
    s.evictors.push_back({e->name, e->rank, e->calls, e->bytes_requested, e->bytes_freed});
  return s;
}

// ---- memory_budgets

memory_budgets::memory_budgets(uint64_t host_limit, const std::map<int, uint64_t>& device_limits)
    : host_(std::make_unique<memory_budget>("host", memory_kind::host, -1, host_limit)) {
  for (const auto& [ordinal, limit] : device_limits)
    devices_.emplace(ordinal, std::make_unique<memory_budget>("device" + std::to_string(ordinal),
                                                              memory_kind::device, ordinal, limit));
}

memory_budget* memory_budgets::device(int ordinal) noexcept {
  auto it = devices_.find(ordinal);
  return it == devices_.end() ? nullptr : it->second.get();
}

std::vector<int> memory_budgets::device_ordinals() const {
  std::vector<int> v;
  for (const auto& [o, b] : devices_) v.push_back(o);
  return v;
}

std::vector<budget_snapshot> memory_budgets::snapshot() const {
  std::vector<budget_snapshot> v{host_->snapshot()};
  for (const auto& [o, b] : devices_) v.push_back(b->snapshot());
  return v;
}

}  // namespace cuzk::engine
