// SPDX-License-Identifier: MIT OR Apache-2.0
// A daemon's part in a cluster: claims, heartbeats, the listener, and awaits and cancels of jobs
// other nodes hold (see cluster_member.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "engine/cluster_member.hpp"
#include "engine/engine.hpp"
#include "engine/jobs/parked_result.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_job_result.hpp"

namespace cuzk::engine {

result<std::unique_ptr<cluster_member>> cluster_member::open(engine& e) {
  // create() resolved the name and made the spool this node's directory under the shared root
  // (cluster_node.hpp): names never collide between nodes, and each node sweeps only its own.
  const std::string& node = e.opt_.cluster.node_name;
  auto leases = pg_job_leases::open(e.opt_.database, node, e.opt_.cluster.lease);
  if (!leases) return leases.error();
  auto released = (*leases)->take_node_name();
  if (!released) return released.error();
  std::unique_ptr<cluster_member> m(new cluster_member(e, std::move(leases).value()));
  auto beat = m->leases_->heartbeat();  // in `nodes` from the start, before the first claim
  if (!beat) return beat.error();
  e.log(log_level::info, "engine: cluster node=" + node + " lease_ms=" + std::to_string(e.opt_.cluster.lease.count()) +
                             " spool=" + e.spool_.dir() +
                             (*released > 0 ? " requeued_from_previous_run=" + std::to_string(*released) : ""));
  return m;
}

status cluster_member::take_unfinished(std::vector<job_record> jobs) {
  // The jobs stay in the database until a node claims them; the spool keeps what any unfinished
  // job of any node names.
  std::set<std::string> keep;
  for (const auto& r : jobs) {
    keep.insert(e_.spool_.result_path(r.info.id));
    for (std::size_t k = 0; k < r.witness_paths.size(); ++k)
      if (k < r.spooled.size() && r.spooled[k]) keep.insert(r.witness_paths[k]);
  }
  if (const std::size_t orphans = e_.spool_.sweep(keep))
    e_.log(log_level::info, "engine: orphan_files_removed=" + std::to_string(orphans));
  // The jobs this node proved before it stopped, whose outcomes waited for the database in its
  // spool (parked_result.hpp): take_node_name() has just given this name's leases back, so each is
  // claimed again here, before any other node proves it again, and its outcome committed under the
  // new lease. One another node holds by now is left to that node.
  for (const auto& r : jobs)
    if (::access(e_.spool_.result_path(r.info.id).c_str(), F_OK) == 0) end_parked(r.info.id);
  return status::ok();
}

void cluster_member::end_parked(job_id id) {
  auto l = leases_->claim_id(id);
  if (!l || !*l) {
    e_.log(log_level::info, "engine: job=" + std::to_string(id) + " has a result kept in the spool, but " +
                                (l ? std::string("another node holds it") : l.error().to_string()) +
                                "; left to whichever node proves it");
    return;
  }
  auto j = std::make_shared<live_job>();
  j->lease = **l;
  j->enqueued = steady_clock::now();
  std::string refused;
  std::optional<job_result> parked;
  if (const status why = check_claimed(*j, **l); why.is_ok())
    parked = take_parked_result(e_.spool_, j->rec, j->key.digest, refused);
  else
    refused = why.to_string();
  if (!parked) {
    e_.log(log_level::warn, "engine: job=" + std::to_string(id) + " proved again: " + refused);
    if (const status s = leases_->release(**l); !s)
      e_.log(log_level::warn, "engine: job=" + std::to_string(id) + " not released (another node takes it " +
                                  "when the lease runs out): " + s.to_string());
    return;
  }
  {
    std::lock_guard lk(e_.jobs_.mutex);
    e_.jobs_.live[id] = j;
  }
  e_.log(log_level::info, "engine: job=" + std::to_string(id) + " ended " + job_state_name(parked->state) +
                              " before the restart; its result, kept in the spool, goes to the database");
  e_.store_end(j, std::move(*parked));
}

void cluster_member::start() {
  listener_ = std::thread([this] { listen_loop(); });
  heartbeat_ = std::thread([this] { heartbeat_loop(); });
  claimer_ = std::thread([this] { claim_loop(); });
}

void cluster_member::stop_taking() {
  {
    std::lock_guard lk(cluster_m_);
    claim_stop_ = true;
  }
  cluster_cv_.notify_all();
  if (claimer_.joinable()) claimer_.join();
}

void cluster_member::stop() {
  {
    std::lock_guard lk(cluster_m_);
    claim_stop_ = cluster_stop_ = listen_stop_ = true;
  }
  cluster_cv_.notify_all();
  if (claimer_.joinable()) claimer_.join();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (listener_.joinable()) listener_.join();
}

result<job_id> cluster_member::queue_submitted(const std::shared_ptr<live_job>& j, const job_request&,
                                               const begun_files&) {
  e_.telemetry_.counters.add(j->rec.info.circuit, metrics::counter::submitted);
  // The insert announced the job to every node; whichever claims it first proves it (this one too).
  e_.log_queued(j->rec.info, " cluster=1");
  wake_claimer();  // this node need not wait for its own announcement to come back
  return j->rec.info.id;
}

void cluster_member::ended_locked(job_id id) {
  // An await that found the job in the store before this node claimed it waits for the end's
  // announcement: this node knows first.
  if (remote_waits_.count(id)) remote_ended_.insert(id);
}

std::size_t cluster_member::claimed_locked() const {
  std::size_t n = 0;
  for (const auto& [id, j] : e_.jobs_.live)
    if (j->lease && !is_terminal(j->rec.info.state) && !j->parked) ++n;
  return n;
}

void cluster_member::wake_claimer() {
  {
    std::lock_guard lk(cluster_m_);
    ++claim_wakes_;
  }
  cluster_cv_.notify_all();
}

void cluster_member::claim_loop() {
  const std::size_t capacity = e_.workers_.size();
  for (;;) {
    uint64_t wakes;
    {
      std::lock_guard lk(cluster_m_);
      if (claim_stop_) return;
      wakes = claim_wakes_;
    }
    std::size_t held;
    {
      std::lock_guard lk(e_.jobs_.mutex);
      held = claimed_locked();
    }
    bool claimed = false;
    if (held < capacity && e_.accepting_) {
      claim_preference prefer;
      for (const auto& c : e_.circuits_.list())
        if (e_.keys_.resident(c.id)) prefer.resident_circuits.push_back(c.id);
      prefer.max_wait = e_.opt_.cluster.key_preference;
      auto l = leases_->claim(prefer);
      if (!l) {
        e_.log(log_level::warn, "engine: claim failed: " + l.error().to_string());
      } else if (*l) {
        claimed = true;
        const job_lease first = **l;
        if (adopt(first))
          for (std::size_t k = 1; k < e_.opt_.scheduling.max_batch_size && first.prio != priority::critical; ++k) {
            auto more = leases_->claim_same(first.circuit, first.prio);
            if (!more || !*more) break;
            adopt(**more);
          }
      }
    }
    if (claimed) continue;  // more may be claimable: claim until full or none is left
    std::unique_lock lk(cluster_m_);
    cluster_cv_.wait_for(lk, e_.opt_.cluster.poll, [&] { return claim_stop_ || claim_wakes_ != wakes; });
  }
}

bool cluster_member::adopt(const job_lease& l) {
  auto j = std::make_shared<live_job>();
  j->lease = l;
  j->enqueued = steady_clock::now();
  status why = check_claimed(*j, l);
  job_result& i = j->rec.info;
  {
    std::lock_guard lk(e_.jobs_.mutex);
    e_.jobs_.live[l.id] = j;
  }
  if (l.cancel_requested) {
    // A client asked to cancel it while its last holder held it, and that holder stalled (a
    // stopped process, a frozen heartbeat) until its lease ran out, the flag unread: ended here,
    // never proved (docs/HARDENING.md, finding 25).
    e_.log(log_level::info, "engine: job claimed id=" + std::to_string(l.id) +
                                " ended cancelled without running (cancelled while another node held it)");
    e_.finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
    return false;
  }
  if (why.code() == errc::unavailable) {
    // The database went away between the claim and the read of the job's rows (a server
    // restarting): not the job's fault, and failing it would end it for good. The claim stays this
    // node's (its heartbeat keeps it), so its rows are read again once the server answers; a drain
    // meanwhile gives the claim back, or leaves it to run out.
    e_.log(log_level::warn, "engine: job claimed id=" + std::to_string(l.id) +
                                " waits to be read, the database out of reach: " + why.to_string());
    for (;;) {
      {
        std::unique_lock lk(cluster_m_);
        if (cluster_cv_.wait_for(lk, e_.opt_.cluster.poll, [&] { return claim_stop_; })) break;
      }
      why = check_claimed(*j, l);
      if (why.code() != errc::unavailable) break;
    }
    if (why.code() == errc::unavailable) {
      (void)leases_->release(l);
      std::lock_guard lk(e_.jobs_.mutex);
      e_.jobs_.live.erase(l.id);
      return false;
    }
  }
  if (!why.is_ok()) {
    e_.finish(j, job_state::failed, why);
    return false;
  }
  e_.event(*j, l.attempts > 1 ? event_kind::requeued : event_kind::queued, 0, -1);
  e_.enqueue({l.id, i.circuit, i.prio, j->enqueued});
  e_.log(log_level::info, "engine: job claimed id=" + std::to_string(l.id) + " circuit=" + i.circuit +
                              " priority=" + priority_name(i.prio) + " generation=" + std::to_string(l.generation) +
                              " attempts=" + std::to_string(l.attempts));
  return true;
}

status cluster_member::check_claimed(live_job& j, const job_lease& l) {
  auto rec = e_.store_->get(l.id);
  status why;
  if (!rec) {
    why = rec.error();
  } else if (!*rec) {
    why = status(errc::not_found, "job " + std::to_string(l.id) + ": claimed, but its rows are gone");
  } else {
    j.rec = std::move(**rec);
  }
  job_result& i = j.rec.info;
  i.id = l.id;
  i.attempts = l.attempts - 1;  // job_run::begin() counts this attempt when it starts it
  i.state = job_state::queued;
  if (!why.is_ok()) return why;
  auto c = e_.circuits_.find(i.circuit);
  if (!c) {
    // Registered on another node since this one started: restored from the store, as at a start.
    if (auto stored = e_.store_->circuits())
      for (const auto& cr : *stored)
        if (cr.id == i.circuit)
          if (auto sum = e_.summary_as_registered(cr)) {
            (void)e_.keys_.add(cr.id, cr.zkey_path, *sum);
            e_.circuits_.put({cr.id, cr.zkey_path, cr.default_priority, *sum, {}, {}});
          }
    c = e_.circuits_.find(i.circuit);
  }
  if (!c) return status(errc::not_found, "circuit " + i.circuit + " is not registered on node " + leases_->node());
  if (l.attempts > e_.opt_.max_attempts)
    return status(errc::internal, "interrupted " + std::to_string(l.attempts - 1) +
                                      " times (a daemon stopped while proving it); not retried");
  j.key = c->key;
  j.generator = c->generator;
  for (std::size_t k = 0; k < j.rec.witness_paths.size(); ++k)
    if (::access(j.rec.witness_paths[k].c_str(), R_OK) != 0)
      return status(errc::io_error, "partition " + std::to_string(k) + ": witness " + j.rec.witness_paths[k] +
                                        " cannot be read on node " + leases_->node() +
                                        " (every node must mount the witnesses' storage at the same path)");
  return status::ok();
}

void cluster_member::heartbeat_loop() {
  const auto interval = std::max(e_.opt_.cluster.lease / 3, std::chrono::milliseconds(1));
  for (;;) {
    {
      std::unique_lock lk(cluster_m_);
      if (cluster_cv_.wait_for(lk, interval, [&] { return cluster_stop_; })) return;
    }
    auto beat = leases_->heartbeat();
    if (!beat) {
      e_.log(log_level::warn, "engine: heartbeat failed: " + beat.error().to_string());
      continue;
    }
    for (job_id id : beat->cancel_requested) {
      std::shared_ptr<live_job> j;
      {
        std::lock_guard lk(e_.jobs_.mutex);
        auto it = e_.jobs_.live.find(id);
        if (it == e_.jobs_.live.end() || is_terminal(it->second->rec.info.state) ||
            it->second->cancel.reason() != cancel_reason::none)
          continue;
        j = it->second;
      }
      e_.log(log_level::info, "engine: job cancel requested elsewhere id=" + std::to_string(id));
      j->cancel.request(cancel_reason::caller);
      e_.memory_.host().wake_waiters();
      if (e_.sched_.remove(id)) e_.finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
    }
  }
}

void cluster_member::listen_loop() {
  std::unique_ptr<pg_connection> c;
  for (;;) {
    {
      std::lock_guard lk(cluster_m_);
      if (listen_stop_) return;
    }
    if (!c) {
      auto opened = pg_connection::open(e_.opt_.database);
      status s = opened ? status::ok() : opened.error();
      if (opened) {
        c = std::move(opened).value();
        for (const char* ch : {pg_job_ended_channel, pg_job_queued_channel})
          if (auto r = c->exec("listen", std::string("LISTEN ") + ch); !r) s = r.error();
      }
      if (!s.is_ok()) {
        e_.log(log_level::warn, "engine: listening for job events failed (retrying): " + s.to_string());
        c.reset();
        std::unique_lock lk(cluster_m_);
        cluster_cv_.wait_for(lk, e_.opt_.cluster.poll, [&] { return listen_stop_; });
        continue;
      }
      // Ends announced while nobody listened: awaiters read the store again.
      {
        std::lock_guard lk(e_.jobs_.mutex);
        for (const auto& [id, n] : remote_waits_) remote_ended_.insert(id);
      }
      e_.jobs_.changed.notify_all();
      wake_claimer();
    }
    auto got = c->all_notifications();
    if (!got) {
      e_.log(log_level::warn, "engine: job events: " + got.error().to_string());
      c.reset();
      continue;
    }
    bool queued = false, ended = false;
    {
      std::lock_guard lk(e_.jobs_.mutex);
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
    if (ended) e_.jobs_.changed.notify_all();
    if (queued) wake_claimer();
    // Short enough that a stop is seen promptly; the socket wakes it at once for a notification.
    if (auto w = c->wait_readable(std::chrono::milliseconds(250)); !w) c.reset();
  }
}

status cluster_member::commit_end(const live_job& j, const job_result& info) {
  return leases_->finish(*j.lease, info);
}

void cluster_member::release_unstarted() {
  std::vector<std::shared_ptr<live_job>> back;
  {
    std::lock_guard lk(e_.jobs_.mutex);
    for (const auto& [id, j] : e_.jobs_.live)
      if (j->lease && j->worker < 0 && !is_terminal(j->rec.info.state) && !j->parked) back.push_back(j);
  }
  for (const auto& j : back) {
    e_.sched_.remove(j->rec.info.id);
    e_.ahead_.drop(j->rec.info.id);
    const status s = leases_->release(*j->lease);
    if (!s)
      e_.log(log_level::warn, "engine: job=" + std::to_string(j->rec.info.id) +
                               " not released (another node takes it when the lease runs out): " + s.to_string());
    std::lock_guard lk(e_.jobs_.mutex);
    e_.jobs_.live.erase(j->rec.info.id);
  }
  if (!back.empty()) e_.log(log_level::info, "engine: released unstarted claims=" + std::to_string(back.size()));
}

result<job_result> cluster_member::await_absent(job_id id, std::chrono::milliseconds timeout) {
  const auto until = steady_clock::now() + timeout;
  // A lost notification (a connection that broke) costs at most this much.
  constexpr auto reread = std::chrono::seconds(5);
  for (;;) {
    {
      std::lock_guard lk(e_.jobs_.mutex);
      ++remote_waits_[id];  // before the store is read: an end announced after the read is kept
    }
    auto unregister = [&] {
      if (--remote_waits_[id] == 0) {
        remote_waits_.erase(id);
        remote_ended_.erase(id);
      }
    };
    auto r = e_.store_->get(id);
    std::unique_lock lk(e_.jobs_.mutex);
    if (!r || !*r || is_terminal((*r)->info.state) || timeout.count() < 0 ||
        (timeout.count() > 0 && steady_clock::now() >= until)) {
      unregister();
      lk.unlock();
      if (!r) return r.error();
      if (!*r) return e_.unknown_job(id);
      return std::move(**r).info;
    }
    auto wake = steady_clock::now() + reread;
    if (timeout.count() > 0) wake = std::min(wake, until);
    // After a drain no wake comes (the listener stopped): report the job as it stands, as the local
    // await does for a job that will not run.
    e_.jobs_.changed.wait_until(lk, wake, [&] { return remote_ended_.count(id) > 0 || !e_.accepting_; });
    const bool stop = !e_.accepting_;
    unregister();
    if (stop) {
      lk.unlock();
      return await_absent(id, std::chrono::milliseconds(-1));
    }
  }
}

status cluster_member::cancel_absent(job_id id) {
  auto r = leases_->request_cancel(id, "cancelled by the caller");
  if (!r) {
    if (r.error().code() == errc::not_found) return status(errc::not_found, "job " + std::to_string(id) + ": unknown");
    return r.error();
  }
  e_.log(log_level::info, "engine: job cancel id=" + std::to_string(id) +
                           (*r == cancel_outcome::ended ? " ended (no node held it)"
                                                        : " asked of its node (at its next heartbeat)"));
  return status::ok();
}

}  // namespace cuzk::engine
