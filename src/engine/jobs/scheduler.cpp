// SPDX-License-Identifier: MIT OR Apache-2.0
// The dispatcher (see scheduler.hpp).
#include "engine/jobs/scheduler.hpp"

#include "base/enum_names.hpp"

namespace cuzk::engine {

const char* flush_reason_name(flush_reason r) noexcept {
  static constexpr auto words = words_of<flush_reason::grouped>({
      "single", "full", "timeout", "preempted", "grouped"});
  return words.name(r);
}

void scheduler::push(queued_job j) {
  {
    std::lock_guard lk(m_);
    auto& q = queues_[static_cast<int>(j.prio)];
    const job_id id = j.id;
    q.emplace(id, entry{std::move(j), false});
  }
  cv_.notify_all();
}

bool scheduler::remove(job_id id) {
  bool found = false;
  {
    std::lock_guard lk(m_);
    for (auto& q : queues_) found = found || q.erase(id) > 0;
  }
  if (found) cv_.notify_all();
  return found;
}

void scheduler::close() {
  {
    std::lock_guard lk(m_);
    closed_ = true;
  }
  cv_.notify_all();
}

void scheduler::set_resident_predicate(resident_predicate p) {
  std::lock_guard lk(m_);
  resident_ = std::move(p);
}

void scheduler::set_admission(admission_step a) {
  std::lock_guard lk(m_);
  admit_ = std::move(a);
}

int scheduler::highest_class_locked() const {
  for (int c = priority_count - 1; c >= 0; --c)
    if (!queues_[c].empty()) return c;
  return -1;
}

scheduler::queue::iterator scheduler::pick_head_locked(queue& q, steady_clock::time_point now, int slot,
                                                       bool& grouped) {
  grouped = false;
  auto head = q.begin();
  if (!opt_.group_by_circuit || !resident_ || resident_(head->second.job.circuit, slot)) return head;
  if (now - head->second.job.enqueued >= opt_.group_max_delay) return head;
  for (auto it = std::next(head); it != q.end(); ++it)
    if (resident_(it->second.job.circuit, slot)) {
      grouped = true;
      return it;
    }
  return head;
}

std::vector<scheduler::queue::iterator> scheduler::collect_locked(queue& q, queue::iterator head) {
  std::vector<queue::iterator> its{head};
  for (auto it = std::next(head); it != q.end() && its.size() < opt_.max_batch_size; ++it)
    if (it->second.job.circuit == head->second.job.circuit) its.push_back(it);
  return its;
}

work_batch scheduler::take_locked(queue& q, const std::vector<queue::iterator>& its, flush_reason why) {
  work_batch b;
  b.reason = why;
  for (auto it : its) {
    b.jobs.push_back(std::move(it->second.job));
    q.erase(it);
  }
  return b;
}

std::optional<work_batch> scheduler::next(worker_ref w) {
  std::unique_lock lk(m_);
  waiter me{w, std::nullopt};
  idle_.push_back(&me);
  // Leaves idle_ on every way out (route_locked removes a worker it hands a batch to).
  auto leave = [&] { std::erase(idle_, &me); };
  for (;;) {
    if (me.handed) {
      leave();
      return std::move(me.handed);
    }
    if (closed_) {
      leave();
      return std::nullopt;
    }
    if (dispatching_) {
      cv_.wait(lk);
      continue;
    }
    dispatching_ = true;
    auto b = choose_locked(lk, w.slot);
    if (b && admit_) {
      // Still the dispatcher, without the lock: the step may wait for memory.
      lk.unlock();
      admit_(*b, w);
      lk.lock();
    }
    dispatching_ = false;
    cv_.notify_all();  // the next dispatcher may start
    if (!b || b->jobs.empty()) continue;  // closed meanwhile, or every job refused
    if (waiter* other = route_locked(*b, me)) {
      std::erase(idle_, other);
      other->handed = std::move(b);
      ++handoffs_;
      cv_.notify_all();
      continue;  // dispatch again for this worker
    }
    leave();
    return b;
  }
}

scheduler::waiter* scheduler::route_locked(const work_batch& b, const waiter& me) const {
  if (me.who.slot < 0 || !resident_ || b.jobs.empty()) return nullptr;
  const std::string& circuit = b.jobs.front().circuit;
  if (resident_(circuit, me.who.slot)) return nullptr;
  for (waiter* other : idle_)
    if (other != &me && !other->handed && other->who.slot >= 0 && other->who.slot != me.who.slot &&
        resident_(circuit, other->who.slot))
      return other;
  return nullptr;
}

std::optional<work_batch> scheduler::choose_locked(std::unique_lock<std::mutex>& lk, int slot) {
  for (;;) {
    if (closed_) return std::nullopt;
    const int c = highest_class_locked();
    if (c < 0) {
      cv_.wait(lk);
      continue;
    }
    auto& q = queues_[c];
    const auto now = steady_clock::now();
    bool grouped = false;
    auto head = pick_head_locked(q, now, slot, grouped);
    const bool batchable = opt_.max_batch_size > 1 && c != static_cast<int>(priority::critical);
    if (!batchable) return take_locked(q, {head}, grouped ? flush_reason::grouped : flush_reason::single);

    auto its = collect_locked(q, head);
    if (its.size() >= opt_.max_batch_size) return take_locked(q, its, flush_reason::full);
    if (head->second.no_wait) return take_locked(q, its, flush_reason::preempted);
    const auto flush_at = head->second.job.enqueued + opt_.max_batch_wait;
    if (now >= flush_at) return take_locked(q, its, flush_reason::timeout);

    const job_id head_id = head->first;
    cv_.wait_until(lk, flush_at);
    // A higher class arrived while this batch waited: it goes first, and the batch stops waiting.
    if (!closed_ && highest_class_locked() > c) {
      auto h = q.find(head_id);
      if (h != q.end())
        for (auto it : collect_locked(q, h)) it->second.no_wait = true;
    }
  }
}

std::array<std::size_t, priority_count> scheduler::depth() const {
  std::lock_guard lk(m_);
  std::array<std::size_t, priority_count> d{};
  for (int c = 0; c < priority_count; ++c) d[c] = queues_[c].size();
  return d;
}

std::vector<queued_job> scheduler::queued() const {
  std::lock_guard lk(m_);
  std::vector<queued_job> out;
  for (int c = priority_count - 1; c >= 0; --c)
    for (const auto& [id, e] : queues_[c]) out.push_back(e.job);
  return out;
}

std::size_t scheduler::idle_workers() const {
  std::lock_guard lk(m_);
  return idle_.size();
}

uint64_t scheduler::handoffs() const {
  std::lock_guard lk(m_);
  return handoffs_;
}

}  // namespace cuzk::engine
