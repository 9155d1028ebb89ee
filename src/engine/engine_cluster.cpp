// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's cluster side: many daemons, one PostgreSQL queue (docs/cluster.md).
//
// With a PostgreSQL store the engine does not queue every unfinished job at start: the jobs stay in
// the database until a node claims them (pg_job_leases.hpp), and a node claims only while it has a
// worker free for the job, so the queue's order (priority class, then FIFO) holds across the cluster
// and a CRITICAL job submitted behind many queued ones is the next job any node takes. A claimed job
// enters this node's scheduler as a submitted one would, so batching and routing work as alone.
//
// Three threads, besides the workers:
//   claimer    claims while this node holds fewer unended claims than it has workers; with
//              batching, a claimed job brings up to max_batch_size - 1 queued jobs of its circuit
//              and class. It sleeps until a worker frees, a job is announced on cuzk_job_queued, or
//              the fallback poll (a lease that ran out announces nothing).
//   heartbeat  extends this node's leases every third of a lease, and stops the jobs a client asked
//              (on any node) to cancel at their next phase boundary.
//   listener   LISTENs on cuzk_job_ended and cuzk_job_queued: wakes awaits of jobs held elsewhere,
//              and the claimer.
// A submit on any node writes the job and returns: whichever node is free claims it. An await of a
// job this node does not hold waits for its announced end and reads the result from the store; a
// cancel of one goes through the store (pg_job_leases::request_cancel).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "engine/engine.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_job_result.hpp"

namespace cuzk::engine {

status engine::open_cluster() {
  // create() resolved the name and made the spool this node's directory under the shared root
  // (cluster_node.hpp): names never collide between nodes, and each node sweeps only its own.
  const std::string& node = opt_.cluster.node_name;
  auto leases = pg_job_leases::open(opt_.database, node, opt_.cluster.lease);
  if (!leases) return leases.error();
  auto released = (*leases)->take_node_name();
  if (!released) return released.error();
  leases_ = std::move(leases).value();
  auto beat = leases_->heartbeat();  // in `nodes` from the start, before the first claim
  if (!beat) return beat.error();
  log(log_level::info, "engine: cluster node=" + node + " lease_ms=" + std::to_string(opt_.cluster.lease.count()) +
                           " spool=" + spool_.dir() +
                           (*released > 0 ? " requeued_from_previous_run=" + std::to_string(*released) : ""));
  return status::ok();
}

void engine::start_cluster_threads() {
  if (!leases_) return;
  listener_ = std::thread([this] { listen_loop(); });
  heartbeat_ = std::thread([this] { heartbeat_loop(); });
  claimer_ = std::thread([this] { claim_loop(); });
}

void engine::stop_cluster_threads() {
  if (!leases_) return;
  {
    std::lock_guard lk(cluster_m_);
    claim_stop_ = cluster_stop_ = listen_stop_ = true;
  }
  cluster_cv_.notify_all();
  if (claimer_.joinable()) claimer_.join();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (listener_.joinable()) listener_.join();
}

std::size_t engine::claimed_locked() const {
  std::size_t n = 0;
  for (const auto& [id, j] : live_)
    if (j->lease && !is_terminal(j->rec.info.state) && !j->parked) ++n;
  return n;
}

void engine::wake_claimer() {
  if (!leases_) return;
  {
    std::lock_guard lk(cluster_m_);
    ++claim_wakes_;
  }
  cluster_cv_.notify_all();
}

void engine::claim_loop() {
  const std::size_t capacity = workers_.size();
  for (;;) {
    uint64_t wakes;
    {
      std::lock_guard lk(cluster_m_);
      if (claim_stop_) return;
      wakes = claim_wakes_;
    }
    std::size_t held;
    {
      std::lock_guard lk(m_);
      held = claimed_locked();
    }
    bool claimed = false;
    if (held < capacity && accepting_) {
      claim_preference prefer;
      for (const auto& c : circuits_.list())
        if (srs_.resident(c.id)) prefer.resident_circuits.push_back(c.id);
      prefer.max_wait = opt_.cluster.key_preference;
      auto l = leases_->claim(prefer);
      if (!l) {
        log(log_level::warn, "engine: claim failed: " + l.error().to_string());
      } else if (*l) {
        claimed = true;
        const job_lease first = **l;
        if (adopt(first))
          for (std::size_t k = 1; k < opt_.scheduling.max_batch_size && first.prio != priority::critical; ++k) {
            auto more = leases_->claim_same(first.circuit, first.prio);
            if (!more || !*more) break;
            adopt(**more);
          }
      }
    }
    if (claimed) continue;  // more may be claimable: claim until full or none is left
    std::unique_lock lk(cluster_m_);
    cluster_cv_.wait_for(lk, opt_.cluster.poll, [&] { return claim_stop_ || claim_wakes_ != wakes; });
  }
}

bool engine::adopt(const job_lease& l) {
  auto j = std::make_shared<live_job>();
  j->lease = l;
  j->enqueued = steady_clock::now();
  auto rec = store_->get(l.id);
  status why;
  if (!rec) {
    why = rec.error();
  } else if (!*rec) {
    why = status(errc::not_found, "job " + std::to_string(l.id) + ": claimed, but its rows are gone");
  } else {
    j->rec = std::move(**rec);
  }
  job_result& i = j->rec.info;
  i.id = l.id;
  i.attempts = l.attempts - 1;  // run_job() counts this attempt when it starts it
  i.state = job_state::queued;
  if (why.is_ok()) {
    auto c = circuits_.find(i.circuit);
    if (!c) {
      // Registered on another node since this one started: restored from the store, as at a start.
      if (auto stored = store_->circuits())
        for (const auto& cr : *stored)
          if (cr.id == i.circuit)
            if (auto sum = summary_as_registered(cr)) {
              (void)srs_.add(cr.id, cr.zkey_path, *sum);
              circuits_.put({cr.id, cr.zkey_path, cr.default_priority, *sum, {}, {}});
            }
      c = circuits_.find(i.circuit);
    }
    if (!c) {
      why = status(errc::not_found, "circuit " + i.circuit + " is not registered on node " + leases_->node());
    } else if (l.attempts > opt_.max_attempts) {
      why = status(errc::internal, "interrupted " + std::to_string(l.attempts - 1) +
                                       " times (a daemon stopped while proving it); not retried");
    } else {
      j->key = c->key;
      j->generator = c->generator;
      for (std::size_t k = 0; k < j->rec.witness_paths.size() && why.is_ok(); ++k)
        if (::access(j->rec.witness_paths[k].c_str(), R_OK) != 0)
          why = status(errc::io_error, "partition " + std::to_string(k) + ": witness " + j->rec.witness_paths[k] +
                                           " cannot be read on node " + leases_->node() +
                                           " (every node must mount the witnesses' storage at the same path)");
    }
  }
  {
    std::lock_guard lk(m_);
    live_[l.id] = j;
  }
  if (!why.is_ok()) {
    finish(j, job_state::failed, why);
    return false;
  }
  event(*j, l.attempts > 1 ? event_kind::requeued : event_kind::queued, 0, -1);
  sched_.push({l.id, i.circuit, i.prio, j->enqueued});
  log(log_level::info, "engine: job claimed id=" + std::to_string(l.id) + " circuit=" + i.circuit +
                           " priority=" + priority_name(i.prio) + " generation=" + std::to_string(l.generation) +
                           " attempts=" + std::to_string(l.attempts));
  return true;
}

void engine::heartbeat_loop() {
  const auto interval = std::max(opt_.cluster.lease / 3, std::chrono::milliseconds(1));
  for (;;) {
    {
      std::unique_lock lk(cluster_m_);
      if (cluster_cv_.wait_for(lk, interval, [&] { return cluster_stop_; })) return;
    }
    auto beat = leases_->heartbeat();
    if (!beat) {
      log(log_level::warn, "engine: heartbeat failed: " + beat.error().to_string());
      continue;
    }
    for (job_id id : beat->cancel_requested) {
      std::shared_ptr<live_job> j;
      {
        std::lock_guard lk(m_);
        auto it = live_.find(id);
        if (it == live_.end() || is_terminal(it->second->rec.info.state) ||
            it->second->cancel.reason() != cancel_reason::none)
          continue;
        j = it->second;
      }
      log(log_level::info, "engine: job cancel requested elsewhere id=" + std::to_string(id));
      j->cancel.request(cancel_reason::caller);
      memory_.host().wake_waiters();
      if (sched_.remove(id)) finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
    }
  }
}

void engine::listen_loop() {
  std::unique_ptr<pg_connection> c;
  for (;;) {
    {
      std::lock_guard lk(cluster_m_);
      if (listen_stop_) return;
    }
    if (!c) {
      auto opened = pg_connection::open(opt_.database);
      status s = opened ? status::ok() : opened.error();
      if (opened) {
        c = std::move(opened).value();
        for (const char* ch : {pg_job_ended_channel, pg_job_queued_channel})
          if (auto r = c->exec("listen", std::string("LISTEN ") + ch); !r) s = r.error();
      }
      if (!s.is_ok()) {
        log(log_level::warn, "engine: listening for job events failed (retrying): " + s.to_string());
        c.reset();
        std::unique_lock lk(cluster_m_);
        cluster_cv_.wait_for(lk, opt_.cluster.poll, [&] { return listen_stop_; });
        continue;
      }
      // Ends announced while nobody listened: awaiters read the store again.
      {
        std::lock_guard lk(m_);
        for (const auto& [id, n] : remote_waits_) remote_ended_.insert(id);
      }
      done_cv_.notify_all();
      wake_claimer();
    }
    auto got = c->all_notifications();
    if (!got) {
      log(log_level::warn, "engine: job events: " + got.error().to_string());
      c.reset();
      continue;
    }
    bool queued = false, ended = false;
    {
      std::lock_guard lk(m_);
      for (const auto& [channel, payload] : *got) {
        if (channel == pg_job_queued_channel) {
          queued = true;
          continue;
        }
        const auto id = static_cast<job_id>(std::strtoull(payload.c_str(), nullptr, 10));
        if (remote_waits_.count(id)) {
          remote_ended_.insert(id);
          ended = true;
        }
      }
    }
    if (ended) done_cv_.notify_all();
    if (queued) wake_claimer();
    // Short enough that a stop is seen promptly; the socket wakes it at once for a notification.
    if (auto w = c->wait_readable(std::chrono::milliseconds(250)); !w) c.reset();
  }
}

status engine::commit_end(const live_job& j, const job_result& info) {
  if (!j.lease) return store_->finish(info);
  return leases_->finish(*j.lease, info);
}

void engine::release_unstarted() {
  if (!leases_) return;
  std::vector<std::shared_ptr<live_job>> back;
  {
    std::lock_guard lk(m_);
    for (const auto& [id, j] : live_)
      if (j->lease && j->worker < 0 && !is_terminal(j->rec.info.state) && !j->parked) back.push_back(j);
  }
  for (const auto& j : back) {
    sched_.remove(j->rec.info.id);
    const status s = leases_->release(*j->lease);
    if (!s)
      log(log_level::warn, "engine: job=" + std::to_string(j->rec.info.id) +
                               " not released (another node takes it when the lease runs out): " + s.to_string());
    std::lock_guard lk(m_);
    live_.erase(j->rec.info.id);
  }
  if (!back.empty()) log(log_level::info, "engine: released unstarted claims=" + std::to_string(back.size()));
}

result<job_result> engine::await_elsewhere(job_id id, std::chrono::milliseconds timeout) {
  const auto until = steady_clock::now() + timeout;
  // A lost notification (a connection that broke) costs at most this much.
  constexpr auto reread = std::chrono::seconds(5);
  for (;;) {
    {
      std::lock_guard lk(m_);
      ++remote_waits_[id];  // before the store is read: an end announced after the read is kept
    }
    auto unregister = [&] {
      if (--remote_waits_[id] == 0) {
        remote_waits_.erase(id);
        remote_ended_.erase(id);
      }
    };
    auto r = store_->get(id);
    std::unique_lock lk(m_);
    if (!r || !*r || is_terminal((*r)->info.state) || timeout.count() < 0 ||
        (timeout.count() > 0 && steady_clock::now() >= until)) {
      unregister();
      lk.unlock();
      if (!r) return r.error();
      if (!*r)
        return status(errc::not_found, "job " + std::to_string(id) +
                                           ": unknown (never submitted, or purged after the retention of " +
                                           std::to_string(opt_.result_retention.count()) + " s)");
      return std::move(**r).info;
    }
    auto wake = steady_clock::now() + reread;
    if (timeout.count() > 0) wake = std::min(wake, until);
    // After a drain no wake comes (the listener stopped): report the job as it stands, as the local
    // await does for a job that will not run.
    done_cv_.wait_until(lk, wake, [&] { return remote_ended_.count(id) > 0 || !accepting_; });
    const bool stop = !accepting_;
    unregister();
    if (stop) {
      lk.unlock();
      return await_elsewhere(id, std::chrono::milliseconds(-1));
    }
  }
}

status engine::cancel_elsewhere(job_id id) {
  auto r = leases_->request_cancel(id, "cancelled by the caller");
  if (!r) {
    if (r.error().code() == errc::not_found) return status(errc::not_found, "job " + std::to_string(id) + ": unknown");
    return r.error();
  }
  log(log_level::info, "engine: job cancel id=" + std::to_string(id) +
                           (*r == cancel_outcome::ended ? " ended (no node held it)"
                                                        : " asked of its node (at its next heartbeat)"));
  return status::ok();
}

}  // namespace cuzk::engine
