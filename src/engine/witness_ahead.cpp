// SPDX-License-Identifier: MIT OR Apache-2.0
// Witnesses computed ahead of the workers (see witness_ahead.hpp).
#include "engine/witness_ahead.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace cuzk::engine {

namespace {

using steady = std::chrono::steady_clock;

double seconds_between(steady::time_point a, steady::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// How often a witness thread that found no work, or no memory, looks again without being woken:
// the host budget announces no freed memory to it.
constexpr std::chrono::milliseconds idle_poll{100};

}  // namespace

unsigned witness_threads_for(int configured, unsigned workers, bool cpu_backend, unsigned cores) {
  if (configured >= 0) return static_cast<unsigned>(configured);
  // The CPU prover's own threads take every core: one thread keeps the next witness made without
  // taking more than a core from it.
  if (cpu_backend) return 1;
  return cores > workers ? cores - workers : 1;
}

witness_ahead::witness_ahead(witness_ahead_options opt, memory_budget& host, queued_jobs_fn queued,
                             compute_fn compute, witness_bytes_fn bytes, room_fn room)
    : opt_{opt.threads, opt.most_held != 0 ? opt.most_held : opt.threads + 2},
      host_(host),
      queued_(std::move(queued)),
      compute_(std::move(compute)),
      bytes_(std::move(bytes)),
      room_(std::move(room)) {
  counts_.threads = opt_.threads;
  eviction_ = host_.add_evictor("witnesses computed ahead", evictor_rank::witnesses_ahead,
                                [this](uint64_t missing) { return evict(missing); });
}

witness_ahead::~witness_ahead() { stop(); }

void witness_ahead::start() {
  std::lock_guard lk(m_);
  for (unsigned i = 0; i < opt_.threads; ++i) threads_.emplace_back([this] { loop(); });
}

void witness_ahead::wake() {
  {
    std::lock_guard lk(m_);
    ++wakes_;
  }
  cv_.notify_all();
}

void witness_ahead::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lk(m_);
    stop_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
}

void witness_ahead::loop() {
  std::unique_lock lk(m_);
  while (!stop_) {
    reservation memory;
    const uint64_t seen = wakes_;
    auto p = next_locked(lk, memory);
    if (!p) {
      cv_.wait_for(lk, idle_poll, [&] { return stop_ || wakes_ != seen; });
      continue;
    }
    const part_key key{p->job->rec.info.id, p->partition};
    lk.unlock();
    const cancel_token cancel = p->job->cancel;
    const auto t0 = steady::now();
    auto w = std::make_shared<result<any_witness>>(compute_(
        *p->job, p->partition, [this, cancel] { return stop_.load() || cancel.cancelled(); }, p->room));
    const double took = seconds_between(t0, steady::now());
    p->room = {};  // the calculation's working memory goes back as it ends (a recording beside keeps its own)
    lk.lock();
    auto it = parts_.find(key);
    const bool dropped = it == parts_.end() || it->second.state != where::computing;
    // A calculation the pool's stop or the job's cancel interrupted is no result: a worker that
    // waits for it computes the witness itself, and a job that ends drops it anyway. Nor is one
    // the budget refused memory to grow (resource_exhausted, where the circuit's own failure is
    // failed_precondition): speculative work takes no memory the line waits for, and its worker,
    // with its batch's share, computes it; no thread begins it again.
    const bool interrupted = !*w && (stop_ || cancel.cancelled());
    const bool refused = !*w && w->error().code() == errc::resource_exhausted;
    if (dropped || interrupted || refused) {
      if (!dropped && refused && !interrupted) it->second.state = where::claimed;
      else if (!dropped) parts_.erase(it);
      lk.unlock();
      memory.reset();
      w.reset();  // the witness's bytes freed outside the lock
      cv_.notify_all();
      lk.lock();
      continue;
    }
    it->second.state = where::ready;
    it->second.witness = std::move(w);
    it->second.calc_seconds = took;
    it->second.memory = std::move(memory);
    ++counts_.computed;
    cv_.notify_all();
  }
}

std::optional<witness_ahead::pick> witness_ahead::next_locked(std::unique_lock<std::mutex>& lk,
                                                              reservation& memory) {
  auto held = [&] {
    std::size_t n = 0;
    for (const auto& [k, p] : parts_) n += p.state != where::claimed ? 1 : 0;
    return n;
  };
  if (held() >= opt_.most_held) return std::nullopt;
  // The queue is read without the pool's lock: the callback takes the engine's.
  lk.unlock();
  const std::vector<std::shared_ptr<live_job>> jobs = queued_();
  // One thread picks at a time: a later job never takes the room an earlier one is reserving.
  const std::lock_guard picking(picking_);
  lk.lock();
  if (stop_ || held() >= opt_.most_held) return std::nullopt;
  for (const auto& j : jobs) {
    if (j->cancel.cancelled()) continue;
    // Fixed since the submit: which partitions are input JSON.
    const auto& input_json = j->rec.input_json;
    for (uint32_t q = 0; q < input_json.size(); ++q) {
      const part_key key{j->rec.info.id, q};
      if (!input_json[q] || parts_.contains(key)) continue;
      // Claimed while its memory is reserved without the pool's lock (the room reads the input's
      // size and the circuit's estimate): a worker that comes meanwhile waits for the outcome.
      parts_[key].state = where::computing;
      lk.unlock();
      // Spare memory only: no wait, no eviction. The next look, after the poll, tries again. The
      // witness and the calculation in one acquire: a look with room for one of them only holds
      // nothing meanwhile (and no refused look hands memory back, waking the budget's line).
      const uint64_t witness = bytes_(*j);
      refusal why = refusal::none;
      auto room = room_(*j, q, witness, why);
      lk.lock();
      auto it = parts_.find(key);
      const bool ours = it != parts_.end() && it->second.state == where::computing;  // not dropped meanwhile
      if (ours && room && !stop_) {
        memory = room->calculation.split(witness);
        it->second.begun = true;
        return pick{j, q, std::move(room).value()};
      }
      // Never: its worker's admission fails the job with the budget's words; meanwhile the threads
      // go on with later jobs. Else no room now: left to a later look, or to its worker.
      const bool never = ours && !room && why == refusal::too_large;
      if (never) it->second.state = where::claimed;
      else if (ours) parts_.erase(it);
      // What was reserved goes back, and a worker that waited looks again, outside the lock.
      lk.unlock();
      room = status(errc::cancelled, "not started");
      cv_.notify_all();
      lk.lock();
      if (!never || stop_ || held() >= opt_.most_held) return std::nullopt;
    }
  }
  return std::nullopt;
}

taken_witness witness_ahead::take(live_job& j, uint32_t q, const std::function<result<any_witness>()>& here) {
  const part_key key{j.rec.info.id, q};
  std::unique_lock lk(m_);
  bool waited = false;
  for (;;) {
    auto it = parts_.find(key);
    // A calculation its job's cancel (or a drain's) interrupted is not begun again for it.
    if (j.cancel.cancelled() && (it == parts_.end() || it->second.state != where::ready))
      return {status(errc::cancelled, "partition " + std::to_string(q) + ": not computed: the job is stopping")};
    if (it == parts_.end() || it->second.state == where::claimed) {
      // No witness thread began it (or it was taken before): computed here, and no thread starts it.
      if (it == parts_.end()) parts_[key].state = where::claimed;
      ++counts_.computed_by_worker;
      lk.unlock();
      const auto t0 = steady::now();
      taken_witness t{here(), 0, false};
      t.calc_seconds = seconds_between(t0, steady::now());
      return t;
    }
    if (it->second.state == where::ready) {
      taken_witness t{std::move(*it->second.witness), it->second.calc_seconds, true};
      reservation memory = std::move(it->second.memory);
      it->second.witness.reset();
      it->second.state = where::claimed;
      ++(waited ? counts_.waited : counts_.taken_ready);
      lk.unlock();
      memory.reset();  // the worker's own reservation holds the witness from here
      cv_.notify_all();
      return t;
    }
    waited = true;
    cv_.wait(lk);
  }
}

void witness_ahead::drop(job_id id) {
  std::vector<part> gone;
  {
    std::lock_guard lk(m_);
    for (auto it = parts_.lower_bound({id, 0}); it != parts_.end() && it->first.first == id;) {
      gone.push_back(std::move(it->second));
      it = parts_.erase(it);
    }
  }
  if (!gone.empty()) cv_.notify_all();
  // `gone` frees the witnesses and their memory here, outside the lock.
}

uint64_t witness_ahead::evict(uint64_t missing) {
  std::vector<part> gone;
  uint64_t freed = 0;
  {
    std::lock_guard lk(m_);
    // Job ids grow with submission: the last submitted are, within a priority class, the last
    // dispatched.
    // An evicted partition stays, claimed: its worker computes it, and no thread begins it again.
    // Begun again, it would take the room its eviction made for the job or key that waits, be
    // evicted once more at that waiter's next round, and so on until the waiter timed out.
    for (auto it = parts_.end(); it != parts_.begin() && freed < missing;) {
      --it;
      if (it->second.state != where::ready) continue;
      freed += it->second.memory.bytes();
      gone.push_back(std::move(it->second));
      it->second = part{};
      it->second.state = where::claimed;
      ++counts_.evicted;
    }
  }
  gone.clear();  // the witnesses and their memory go back to the budget here, outside the lock
  return freed;
}

witness_ahead_snapshot witness_ahead::snapshot() const {
  std::lock_guard lk(m_);
  witness_ahead_snapshot s = counts_;
  for (const auto& [k, p] : parts_) {
    s.computing += p.state == where::computing && p.begun ? 1 : 0;
    s.ready += p.state == where::ready ? 1 : 0;
  }
  return s;
}

}  // namespace cuzk::engine
