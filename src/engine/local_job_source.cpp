// SPDX-License-Identifier: MIT OR Apache-2.0
// A daemon alone's job source (see local_job_source.hpp).
#include "engine/local_job_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <span>

#include "engine/engine.hpp"
#include "engine/jobs/parked_result.hpp"

namespace cuzk::engine {

status local_job_source::take_unfinished(std::vector<job_record> jobs) {
  std::size_t requeued = 0, failed = 0, withdrawn = 0, ended = 0;
  std::set<std::string> keep;
  for (auto& r : jobs) {
    // The outcome parked for it stays while the job does (its end may be parked again now); that
    // of a job the store has ended since goes with the sweep.
    keep.insert(e_.spool_.result_path(r.info.id));
    auto done = recover(std::move(r), keep);
    if (!done) return done.error();
    ++(*done == recovered::requeued ? requeued
       : *done == recovered::failed ? failed
       : *done == recovered::ended  ? ended
                                    : withdrawn);
  }
  const std::size_t orphans = e_.spool_.sweep(keep);
  if (requeued || failed || withdrawn || ended || orphans)
    e_.log(log_level::info, "engine: recovered requeued=" + std::to_string(requeued) + " failed=" +
                                std::to_string(failed) + " withdrawn=" + std::to_string(withdrawn) +
                                " ended_from_spool=" + std::to_string(ended) +
                                " orphan_files_removed=" + std::to_string(orphans));
  return status::ok();
}

result<local_job_source::recovered> local_job_source::recover(job_record r, std::set<std::string>& keep) {
  // A submit that stopped while it stored the witnesses of a job it had queued (arriving_witnesses.hpp):
  // it never returned, so nobody has the job's id, and a retry of it must make a new job. The job
  // goes, and the spool's sweep takes its files.
  bool interrupted_submit = false;
  for (std::size_t k = 0; k < r.witness_paths.size(); ++k)
    interrupted_submit = interrupted_submit || (r.spooled[k] && witness_spool::interrupted(r.witness_paths[k]));
  if (interrupted_submit) {
    CUZK_TRY(e_.store_->remove(r.info.id));
    e_.log(log_level::info, "engine: job=" + std::to_string(r.info.id) +
                                " removed: its submit stopped before its witnesses were stored");
    return recovered::withdrawn;
  }
  for (std::size_t k = 0; k < r.witness_paths.size(); ++k)
    if (r.spooled[k]) keep.insert(r.witness_paths[k]);
  auto j = std::make_shared<live_job>();
  j->rec = std::move(r);
  j->enqueued = steady_clock::now();
  job_result& i = j->rec.info;
  const bool interrupted = i.state != job_state::queued;
  status why;
  const auto c = e_.circuits_.find(i.circuit);
  if (c) {
    // Proved before the daemon stopped, its outcome waiting for the store (parked_result.hpp):
    // stored now, not proved again. A file that is not this job's outcome is refused and the job
    // proved again.
    std::string refused;
    if (auto parked = take_parked_result(e_.spool_, j->rec, c->key.digest, refused)) {
      j->key = c->key;
      {
        std::lock_guard lk(e_.jobs_.mutex);
        e_.jobs_.live[i.id] = j;
      }
      e_.log(log_level::info, "engine: job=" + std::to_string(i.id) + " ended " +
                                  job_state_name(parked->state) +
                                  " before the restart; its result, kept in the spool, goes to the store");
      e_.store_end(j, std::move(*parked));
      return recovered::ended;
    }
    if (!refused.empty())
      e_.log(log_level::warn, "engine: job=" + std::to_string(i.id) + " proved again: " + refused);
  }
  if (!c) {
    why = status(errc::not_found, "circuit " + i.circuit + " is no longer registered after a restart");
  } else if (interrupted && i.attempts >= e_.opt_.max_attempts) {
    why = status(errc::internal, "interrupted " + std::to_string(i.attempts) +
                                     " times (the daemon stopped while proving it); not retried");
  } else {
    j->key = c->key;
    j->generator = c->generator;
    for (std::size_t k = 0; k < j->rec.witness_paths.size() && why.is_ok(); ++k)
      if (::access(j->rec.witness_paths[k].c_str(), R_OK) != 0)
        why = status(errc::io_error, "partition " + std::to_string(k) + ": " +
                                         (j->rec.spooled[k] ? "inline witness" : "witness " + j->rec.witness_paths[k]) +
                                         " is gone after a restart");
  }
  {
    std::lock_guard lk(e_.jobs_.mutex);
    e_.jobs_.live[i.id] = j;
  }
  if (!why.is_ok()) {
    e_.finish(j, job_state::failed, why);
    return recovered::failed;
  }
  i.state = job_state::queued;
  CUZK_TRY(e_.store_->update_state(i.id, job_state::queued, i.attempts));
  e_.event(*j, interrupted ? event_kind::requeued : event_kind::queued, 0, -1);
  e_.telemetry_.counters.add(i.circuit, metrics::counter::recovered);
  e_.enqueue({i.id, i.circuit, i.prio, j->enqueued});
  return recovered::requeued;
}

// The job is queued as soon as its row is committed. Witnesses sent inline as .wtns bytes are
// written, and files named by path read and checked, while it proves (arriving_witnesses.hpp); the
// submit returns once they are on disk and passed.
result<job_id> local_job_source::queue_submitted(const std::shared_ptr<live_job>& j, const job_request& req,
                                                 const begun_files& begun) {
  const job_id id = j->rec.info.id;
  const bool paths = std::ranges::any_of(req.partitions, [](const witness_input& p) { return p.inline_bytes().empty(); });
  if (!begun.empty() || paths) {
    // The bytes a worker may read meanwhile: those of the begun files alone (input JSON, written
    // before the job was stored, is not a .wtns to read).
    std::vector<std::span<const uint8_t>> bytes(req.partitions.size());
    for (const auto& [k, f] : begun) bytes[k] = req.partitions[k].inline_bytes();
    j->arrival = std::make_shared<arriving_witnesses>(std::move(bytes));
  }
  j->enqueued = steady_clock::now();
  {
    std::lock_guard lk(e_.jobs_.mutex);
    e_.jobs_.live[id] = j;
  }
  e_.event(*j, event_kind::queued, 0, -1);
  e_.enqueue({id, req.circuit, j->rec.info.prio, j->enqueued});
  e_.log_queued(j->rec.info, "");
  if (j->arrival) CUZK_TRY(settle_arriving(j, req, begun));
  e_.telemetry_.counters.add(req.circuit, metrics::counter::submitted);
  return id;
}

status local_job_source::settle_arriving(const std::shared_ptr<live_job>& j, const job_request& req,
                                        const begun_files& begun) {
  // Settled on every way out of here, an exception's too: a worker must not read the request's
  // bytes once submit has returned, and the job's end must not wait for good.
  struct settle_guard {
    engine& e;
    const std::shared_ptr<live_job>& job;
    const begun_files& files;
    bool armed = true;
    ~settle_guard() {
      if (armed) e.withdraw(job, files);
    }
  } guard{e_, j, begun};
  status stored = status::ok();
  for (std::size_t i = 0; i < begun.size() && stored.is_ok(); ++i)
    stored = e_.spool_.complete(begun[i].second, req.partitions[begun[i].first].inline_bytes());
  if (!stored) {
    e_.log(log_level::error, "engine: job=" + std::to_string(j->rec.info.id) +
                                 " withdrawn: witness spool write failed error=\"" + stored.to_string() + "\"");
    guard.armed = false;
    e_.withdraw(j, begun);
    return e_.reject(reject_reason::spool_failed, e_.hide_spool(stored).with_context("inline witness"));
  }
  // The files named by path, refused as a submit refuses them before its job is stored: the same
  // message, and the job gone as if it never was.
  if (status checked = e_.check_paths_while_proving(req, j->key, *j->arrival); !checked) {
    e_.log(log_level::info, "engine: job=" + std::to_string(j->rec.info.id) + " withdrawn: a witness was refused");
    guard.armed = false;
    e_.withdraw(j, begun, checked);
    return e_.reject(reject_reason::bad_witness, checked);
  }
  guard.armed = false;
  j->arrival->settle(true);
  return status::ok();
}

result<job_result> local_job_source::await_absent(job_id id, std::chrono::milliseconds) {
  auto r = e_.store_->get(id);
  if (!r) return r.error();
  if (!*r) return e_.unknown_job(id);
  return std::move(**r).info;
}

status local_job_source::cancel_absent(job_id id) {
  auto r = e_.store_->get(id);
  if (!r) return r.error();
  if (!*r) return status(errc::not_found, "job " + std::to_string(id) + ": unknown");
  return status(errc::failed_precondition, "job " + std::to_string(id) + ": already " + job_state_name((*r)->info.state));
}

void local_job_source::record_start(const live_job& j, uint32_t attempts) {
  const status st = e_.store_->update_state(j.rec.info.id, job_state::loading_key, attempts);
  if (!st) e_.log(log_level::warn, "engine: job=" + std::to_string(j.rec.info.id) + " store: " + st.to_string());
}

status local_job_source::record_requeue(const live_job& j, uint32_t attempts) {
  return e_.store_->update_state(j.rec.info.id, job_state::queued, attempts);
}

status local_job_source::commit_end(const live_job&, const job_result& info) { return e_.store_->finish(info); }

}  // namespace cuzk::engine
