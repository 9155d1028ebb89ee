// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's submit path (see engine.hpp): a request's checks, its inline witnesses spooled, its
// row stored, and a retry under the same request id answered with the first job; a submit the
// store refused, or could not confirm, undone as far as it is safe to (docs/HARDENING.md, finding
// 34), and a job withdrawn whose witnesses failed while it was queued. engine.cpp holds the rest of
// the API side.
#include "engine/engine.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "engine/jobs/input_witness.hpp"
#include "engine/jobs/request_checks.hpp"
#include "engine/jobs/witness.hpp"

namespace cuzk::engine {

void engine::discard_spooled(const job_record& rec) {
  for (std::size_t k = 0; k < rec.witness_paths.size(); ++k)
    if (k < rec.spooled.size() && rec.spooled[k]) spool_.remove(rec.witness_paths[k]);
}

void engine::discard_submitted_files(const job_record& rec, const begun_files& begun) {
  discard_spooled(rec);
  for (const auto& [k, f] : begun) spool_.abandon(f);
}

status engine::check_request(const job_request& req, const circuit_info& c, bool paths, reject_reason& why) {
  // The files' bytes each path check holds until it returns, for the reads beyond one, where the
  // host budget has room for them now (witness_reads_at_once).
  std::size_t by_path = 0;
  for (const auto& p : req.partitions) by_path += p.inline_bytes().empty() ? 1 : 0;
  reservation room;
  partition_checks with;
  with.dirs = &client_paths_.witnesses;
  with.paths = paths;
  if (paths)
    with.reads_at_once =
        witness_reads_at_once(by_path, max_witness_bytes(c.key), nullptr, "a submit's witness checks", room);
  if (c.generator)
    with.input_json = [gen = c.generator](std::string_view json, const std::string& what) {
      return check_input_json(*gen, json, what);
    };
  request_fault fault = request_fault::none;
  const status s = check_partitions(req, c.key, with, fault);
  why = fault == request_fault::malformed ? reject_reason::malformed_request : reject_reason::bad_witness;
  return s;
}

status engine::check_paths_while_proving(const job_request& req, const key_summary& key,
                                         arriving_witnesses& arrival) const {
  // One file at a time, from the last partition back while the job reads from the first on: a file
  // the job has read and passed is not read again (arriving_witnesses.hpp). A second file's bytes
  // would take host memory that the job's batch, planned at this moment, needs for its own
  // witnesses.
  return check_witness_paths_from_last(
      req, key, client_paths_.witnesses, [&arrival](std::size_t k) { return arrival.passed_by_job(k); },
      [&arrival] { return arrival.failed_by_job(); });
}

status engine::spool_inline(const job_request& req, job_record& rec, begun_files* begun) {
  for (std::size_t k = 0; k < req.partitions.size(); ++k) {
    const auto& p = req.partitions[k];
    const auto bytes = p.inline_bytes();
    if (bytes.empty()) {
      rec.witness_paths.push_back(p.path);
      rec.spooled.push_back(false);
      rec.witness_digests.emplace_back();
      continue;
    }
    // Written now, or only begun for the caller to complete (begun files: a .wtns's bytes). What
    // the spool holds is what check_partitions() checked: the file is not opened again here.
    auto path = [&]() -> result<std::string> {
      if (!begun || p.input_json) return spool_.write(bytes);
      auto b = spool_.begin();
      if (!b) return b.error();
      begun->emplace_back(k, *b);
      return b->path;
    }();
    if (!path) {
      // The client hears why, not where: the spool lies in the daemon's data directory. The log
      // keeps the path for the operator.
      log(log_level::error, "engine: witness spool write failed error=\"" + path.error().to_string() + "\"");
      return hide_spool(path.error()).with_context("partition " + std::to_string(k) + ": inline witness");
    }
    rec.witness_paths.push_back(*path);
    rec.spooled.push_back(true);
    rec.witness_digests.push_back(witness_digest(bytes));
    rec.input_json.resize(k + 1);
    rec.input_json[k] = p.input_json;
  }
  return status::ok();
}

status engine::reject(reject_reason why, status s) {
  // Counted by reason, never by the circuit named: that may be any string a client made up.
  telemetry_.counters.reject(why);
  log(log_level::warn, std::string("engine: submit rejected reason=") + reject_reason_name(why) + " error=\"" +
                           s.to_string() + "\"");
  return s;
}

std::string engine::request_conflict(const job_request& req, const job_record& s) {
  if (s.info.circuit != req.circuit) return "of circuit " + s.info.circuit + ", not " + req.circuit;
  if (s.info.partitions != req.partitions.size())
    return "of " + std::to_string(s.info.partitions) + " partitions, not " + std::to_string(req.partitions.size());
  if (req.prio && *req.prio != s.info.prio)
    return std::string("of priority ") + priority_name(s.info.prio) + ", not " + priority_name(*req.prio);
  const auto ms = [](const std::optional<wall_time>& t) { return t ? std::optional(to_unix_ms(*t)) : std::nullopt; };
  if (ms(req.deadline) != ms(s.info.deadline)) return "with another deadline";
  for (std::size_t k = 0; k < req.partitions.size() && k < s.witness_paths.size(); ++k) {
    const auto& p = req.partitions[k];
    const bool spooled = k < s.spooled.size() && s.spooled[k];
    const std::string digest = k < s.witness_digests.size() ? s.witness_digests[k] : std::string();
    const bool input = k < s.input_json.size() && s.input_json[k];
    const bool same = p.inline_bytes().empty()
                          ? !spooled && s.witness_paths[k] == p.path
                          : spooled && input == p.input_json && witness_digest_matches(digest, p.inline_bytes());
    if (!same) return "with another witness for partition " + std::to_string(k);
  }
  return {};
}

result<job_id> engine::same_request(const job_request& req, job_id existing) {
  // The first submit may still be storing or checking its witnesses: its answer is this one's.
  std::shared_ptr<arriving_witnesses> arriving;
  {
    std::lock_guard lk(jobs_.mutex);
    if (auto it = jobs_.live.find(existing); it != jobs_.live.end()) arriving = it->second->arrival;
  }
  if (arriving && !arriving->wait_accepted()) {
    // A witness refused: the same request gets the same answer.
    if (status refused = arriving->refusal(); !refused) return reject(reject_reason::bad_witness, refused);
    return status(errc::unavailable, "request id \"" + req.request_id +
                                         "\": its first submit could not store the witnesses; submit it again");
  }
  auto r = store_->get(existing);
  if (!r) return r.error();
  // Gone meanwhile: withdrawn (its submit could not store the witnesses, or refused one) or purged.
  if (!*r)
    return status(errc::unavailable, "request id \"" + req.request_id + "\": job " + std::to_string(existing) +
                                         " was withdrawn or purged meanwhile; submit it again");
  const job_record& s = **r;
  if (const std::string what = request_conflict(req, s); !what.empty())
    return reject(reject_reason::request_id_conflict,
                  status(errc::already_exists, "request id \"" + req.request_id + "\" was used for job " +
                                                   std::to_string(existing) + " " + what +
                                                   "; a retry must resend the same request"));
  if (failed_for_store_fault(s.info)) {
    // The job failed because the store refused its result, not because of the request: the
    // retry is proved again as a new job, which takes the request id over (docs/cluster.md,
    // "When the database is out of reach"). 0 tells the caller to submit it anew.
    {
      std::lock_guard lk(jobs_.mutex);
      if (jobs_.live.count(existing)) return existing;  // its failure is not stored yet: as it stands
    }
    CUZK_TRY(store_->remove(existing));
    log(log_level::info, "engine: job=" + std::to_string(existing) + " removed: request id " + req.request_id +
                             " submitted again after its result could not be stored");
    return job_id{0};
  }
  return existing;
}

std::shared_ptr<live_job> engine::new_job(const job_request& req, const circuit_info& c) const {
  auto j = std::make_shared<live_job>();
  job_result& info = j->rec.info;
  info.request_id = req.request_id;
  info.circuit = req.circuit;
  info.prio = req.prio.value_or(c.default_priority);
  info.partitions = static_cast<uint32_t>(req.partitions.size());
  info.submitted_at = wall_clock::now();
  info.deadline = req.deadline;
  j->key = c.key;
  j->generator = c.generator;
  return j;
}

result<job_id> engine::submit(job_request req) {
  if (!accepting_)
    return reject(reject_reason::draining, status(errc::unavailable, "engine is draining: not accepting jobs"));
  // Until the job is in jobs_.live, where register_circuit() counts it (registration_m_ in engine.hpp).
  std::shared_lock reg(registration_m_);
  const auto c = circuits_.find(req.circuit);
  if (!c) {
    // An id no circuit may have is said by its size, never quoted: a 100 KB id in the message
    // would overflow gRPC's metadata and reach the client as RESOURCE_EXHAUSTED.
    if (auto bad = circuit_registry::check_id(req.circuit); !bad) return reject(reject_reason::malformed_request, bad);
    return reject(reject_reason::unknown_circuit,
                  status(errc::not_found, "circuit \"" + req.circuit + "\": not registered"));
  }
  // The request's shape (its request id's text among it) before the request id is looked up: a
  // malformed request is refused as malformed, whatever job its request id names. Its witnesses
  // once the request is known to be new.
  if (auto s = check_request_shape(req); !s) return reject(reject_reason::malformed_request, s);
  // A request id names one request: a retry (the same request again) gets the first job; anything
  // else under the same id is refused rather than answered with a job it did not ask for.
  if (!req.request_id.empty()) {
    auto found = store_->find_request(req.request_id);
    if (!found) return found.error();
    if (*found)
      if (auto again = same_request(req, **found); !again || *again != 0) return again;
  }
  // Where the job is queued at once, the files it names by path are read and checked while it
  // proves (arriving_witnesses.hpp): a PoRep job's ten files of GiBs each took its submit seconds.
  const bool paths_while_proving = source_->queues_at_submit();
  reject_reason why = reject_reason::bad_witness;
  if (status s = check_request(req, *c, !paths_while_proving, why); !s) return reject(why, s);
  auto j = new_job(req, *c);
  job_record& rec = j->rec;
  // Witnesses sent inline as .wtns bytes, where the source queues the job at once: its files are
  // written while it proves (local_job_source.cpp). The write of a 2^22 witness (128 MiB, with its
  // fsync) and the worker's read of it back were otherwise on the path of every such proof.
  const auto inline_part = [](const witness_input& p) { return !p.inline_bytes().empty(); };
  const bool prove_while_storing =
      source_->queues_at_submit() && std::ranges::any_of(req.partitions, inline_part) &&
      std::ranges::none_of(req.partitions, [&](const witness_input& p) { return inline_part(p) && p.input_json; });
  begun_files begun;
  auto discard = [&] { discard_submitted_files(rec, begun); };
  if (status s = spool_inline(req, rec, prove_while_storing ? &begun : nullptr); !s) {
    discard();
    return reject(reject_reason::spool_failed, s);
  }
  auto ins = store_->insert(rec);
  if (!ins) {
    discard();
    return hide_store(ins.error());
  }
  if (ins->effect == insert_effect::outcome_unknown) {
    rec.info.id = ins->id;  // the id its row would have
    return unconfirmed_submit(req, rec, *ins, begun);
  }
  if (ins->effect == insert_effect::request_id_taken) {  // a concurrent submit with the same request id won
    discard();
    auto first = same_request(req, ins->id);
    if (first && *first == 0)
      return status(errc::unavailable, "request id \"" + req.request_id + "\": submitted twice at once; submit it again");
    return first;
  }
  rec.info.id = ins->id;
  return source_->queue_submitted(j, req, begun);
}

status engine::unconfirmed_submit(const job_request& req, const job_record& rec, const insert_outcome& ins,
                                  const begun_files& begun) {
  // The job may be stored, and its row names the spooled witnesses (and, where the job was to
  // prove while they are stored, their begun temporaries, which mark it as a submit that never
  // returned): none is deleted. Deleting them made such a job, once a retry found it, fail on every
  // node as "cannot be read" (docs/HARDENING.md, finding 34). The housekeeping asks the store again
  // until it can say, and removes them if the job was not stored (unconfirmed_submits.hpp);
  // whatever is left at a stop goes with the next start's sweep of the spool
  // (local_job_source::take_unfinished, cluster_member::take_unfinished).
  log(log_level::warn, "engine: submit not confirmed by the job store, spooled witnesses kept: maybe job=" +
                           std::to_string(ins.id) + " error=\"" + ins.why_unknown.to_string() + "\"");
  if (const job_id dropped = unconfirmed_.add(rec, ins, begun); dropped != 0)
    log(log_level::warn, "engine: too many submits of unknown outcome kept: job=" + std::to_string(dropped) +
                             " no longer asked about; its files stay until the next start");
  housekeeper_.wake();
  const std::string retry =
      req.request_id.empty() ? "await job " + std::to_string(ins.id) + " to find out once the store answers"
                             : "submit it again under the same request id \"" + req.request_id + "\"";
  return status(errc::unavailable,
                "the job store did not confirm the submit (" + hide_store(ins.why_unknown).to_string() +
                    "): it may be stored as job " + std::to_string(ins.id) + " or not at all; " + retry);
}

void engine::withdraw(const std::shared_ptr<live_job>& j, const begun_files& files, status refusal) noexcept {
  const job_id id = j->rec.info.id;
  // The row goes first, while the begun files still mark it as a submit that did not complete:
  // killed before the remove, the next start removes it (recover()); a retry waiting on the
  // arrival hears of the failure only once the row it would be given is gone.
  const status removed = store_->remove(id);
  if (!removed)
    log(log_level::error, "engine: job=" + std::to_string(id) +
                              " not removed from the store (the next start removes it): " + removed.to_string());
  j->arrival->settle(false, std::move(refusal));
  j->cancel.request(cancel_reason::caller);
  memory_.host().wake_waiters();  // a job waiting for memory leaves now
  // Not on a worker (still queued, or handed back by a drain): nothing else ends it. On a worker,
  // its end finds the arrival failed and drops it (finish()).
  const bool queued = sched_.remove(id);
  {
    std::lock_guard lk(jobs_.mutex);
    auto it = jobs_.live.find(id);
    if (it != jobs_.live.end() && (queued || it->second->worker < 0)) jobs_.live.erase(it);
  }
  ahead_.drop(id);
  telemetry_.events.forget(id);  // its queued event (a worker that has it forgets what it adds: finish())
  jobs_.changed.notify_all();
  if (removed) {
    discard_spooled(j->rec);
    for (const auto& [k, f] : files) spool_.abandon(f);
  }
}

status engine::hide_spool(const status& s) const {
  return hide_path(hide_path(s, spool_.dir() + "/", ""), spool_.dir(), "the witness spool");
}

status engine::hide_store(const status& s) const {
  return opt_.store_path.empty() ? s : hide_path(s, opt_.store_path, "the job database");
}

}  // namespace cuzk::engine
