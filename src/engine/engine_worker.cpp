// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's worker side: admission, the worker loop, and a job's end. A worker takes a batch
// from the scheduler and runs each of its jobs through the steps of job_run.hpp, which lease the
// circuit's key once for the whole batch and check the job's cancel token at every boundary; a job
// ends through finish() here (see engine.hpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "engine/elapsed.hpp"
#include "engine/engine.hpp"
#include "engine/job_run.hpp"
#include "engine/jobs/parked_result.hpp"

namespace cuzk::engine {

void engine::admit(work_batch& batch, const worker_ref& by) {
  // One reservation per batch: its worker proves the jobs one after another, all of one circuit,
  // so one proof's working set covers them, and with it the key's load when the key is not
  // resident (the worker's key_manager::acquire takes that share out; the key then holds its own
  // reservation). Reserving both at once is what keeps the budget's line from deadlocking: a job
  // never waits in it while holding memory. It is taken for the first job that can run; jobs
  // refused before it leave the batch with their reason.
  for (auto it = batch.jobs.begin(); it != batch.jobs.end();) {
    std::shared_ptr<live_job> j;
    {
      std::lock_guard lk(jobs_.mutex);
      auto found = jobs_.live.find(it->id);
      if (found != jobs_.live.end() && !is_terminal(found->second->rec.info.state)) {
        j = found->second;
        j->worker = by.index;  // so that drain() stops its wait too
      }
    }
    if (!j) {  // ended meanwhile
      it = batch.jobs.erase(it);
      continue;
    }
    const uint64_t key_load = keys_.load_estimate(it->circuit);
    // A batch with input JSON reserves one witness calculation's memory with the rest, so that its
    // worker never waits for memory while it holds some (jobs/calculation_room.hpp).
    const uint64_t calculation = calculation_share_for(batch, *j);
    const uint64_t need = backend_->memory_per_proof(j->key).host + key_load + calculation;
    const std::string purpose = "job " + std::to_string(it->id) + " working set" +
                                (key_load != 0 ? " and its key's load" : "") +
                                (calculation != 0 ? ", with " + describe_bytes(calculation) +
                                                        " for a witness calculation of circuit " + it->circuit
                                                  : "");
    // A key resident now is counted as no load, so this admission's own eviction rounds leave it
    // resident: moved out for the working set, it would load again with room the job never asked
    // for, while the job holds that working set (docs/HARDENING.md, finding 33). Unless the budget
    // cannot hold both: then nothing could ever make room beside it, and the key goes as before
    // (its load then waits for room no longer than its limit and fails the job saying so).
    std::optional<key_manager::spared_key> spared;
    if (key_load == 0 && need <= memory_.host().limit() && keys_.host_held(it->circuit) <= memory_.host().limit() - need)
      spared.emplace(keys_, it->circuit);
    refusal why = refusal::none;
    const auto t0 = steady_clock::now();
    auto r = memory_.host().acquire(need, {&j->cancel, std::nullopt, purpose, true, &why});
    const double waited = seconds_since(t0);
    if (r) {
      if (waited > 0.001)
        log(log_level::info, "engine: job=" + std::to_string(it->id) + " waited " + fmt_s(waited) +
                                 " s for host memory (" + describe_bytes(need) + ")");
      std::lock_guard lk(jobs_.mutex);
      j->working_set = std::move(r).value();
      j->calculation_share = j->working_set.split(calculation);
      j->rec.info.times[phase::reservation_wait] = waited;
      return;
    }
    {
      std::lock_guard lk(jobs_.mutex);
      j->worker = -1;
    }
    it = batch.jobs.erase(it);
    if (why == refusal::cancelled && j->cancel.reason() == cancel_reason::shutdown)
      requeue_in_store(j);
    else if (why == refusal::cancelled)
      finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
    else
      finish(j, job_state::failed, r.error().with_context("admission"));
  }
}

uint64_t engine::calculation_share_for(const work_batch& batch, const live_job& first) {
  if (!first.generator) return 0;
  // The largest input among the batch's input JSON partitions: the share holds any of them.
  std::vector<std::string> inputs;
  {
    std::lock_guard lk(jobs_.mutex);
    for (const auto& qj : batch.jobs) {
      auto it = jobs_.live.find(qj.id);
      if (it == jobs_.live.end()) continue;
      const job_record& rec = it->second->rec;
      for (std::size_t q = 0; q < rec.input_json.size() && q < rec.witness_paths.size(); ++q)
        if (rec.input_json[q]) inputs.push_back(rec.witness_paths[q]);
    }
  }
  if (inputs.empty()) return 0;
  uint64_t largest = 0;
  for (const auto& path : inputs) largest = std::max(largest, input_json_size(path));
  return calculation_estimate(*first.generator, largest).calculation;
}

std::size_t engine::witness_reads_at_once(std::size_t files, uint64_t file_bytes, const cancel_token* cancel,
                                          const std::string& purpose, reservation& room) {
  const std::size_t want = std::min(files, parallel_witness_reads);
  if (want < 2) return 1;
  auto r = memory_.host().acquire((want - 1) * file_bytes, {cancel, std::chrono::milliseconds(0), purpose, false, nullptr});
  if (!r) return 1;
  room = std::move(r).value();
  return want;
}

void engine::worker_loop(int index) {
  const worker_ref me{index, workers_[index].device_slot};  // the slot is fixed since start
  while (auto batch = sched_.next(me)) run_batch(index, *batch);
}

void engine::run_batch(int index, const work_batch& batch) {
  key_lease lease;
  reservation working_set;  // admit()'s, for the whole batch; returned when the batch ends
  calculation_share calculations(memory_.host());  // admit()'s too, returned once no calculation is left
  // Whether a job of the batch from i on has input JSON (fixed since its submit).
  auto input_json_from = [&](std::size_t i) {
    std::lock_guard lk(jobs_.mutex);
    for (; i < batch.jobs.size(); ++i) {
      auto it = jobs_.live.find(batch.jobs[i].id);
      if (it == jobs_.live.end()) continue;
      const auto& in = it->second->rec.input_json;
      if (std::find(in.begin(), in.end(), true) != in.end()) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < batch.jobs.size(); ++i) {
    const auto& qj = batch.jobs[i];
    std::shared_ptr<live_job> j;
    {
      std::lock_guard lk(jobs_.mutex);
      auto it = jobs_.live.find(qj.id);
      // Ended meanwhile (cancelled between dispatch and here; an ended job whose outcome the
      // store has yet to take is still in jobs_.live).
      if (it == jobs_.live.end() || is_terminal(it->second->rec.info.state)) continue;
      j = it->second;
      if (it->second->working_set) working_set = std::move(it->second->working_set);
      calculations.add(std::move(it->second->calculation_share));
      j->worker = index;
      auto& w = workers_[index];
      w.busy = true;
      w.job = qj.id;
      w.partition = 0;
    }
    const auto t0 = steady_clock::now();
    job_run(*this, index, j, lease, working_set, calculations, input_json_from(i + 1)).run();
    std::lock_guard lk(jobs_.mutex);
    auto& w = workers_[index];
    w.busy = false;
    w.job = 0;
    w.busy_seconds += seconds_since(t0);
    ++w.jobs;
    jobs_.changed.notify_all();  // drain() waits for idle workers
  }
}

void engine::finish(const std::shared_ptr<live_job>& j, job_state end, status error) {
  ahead_.drop(j->rec.info.id);  // a witness computed ahead that its job never took
  // A job queued while its submit stored or checked its witnesses ends only once the submit has
  // settled; if they could not be stored or were refused, the submit refused the job (withdraw())
  // and there is nothing to record.
  if (j->arrival && !j->arrival->wait_accepted()) {
    {
      std::lock_guard lk(jobs_.mutex);
      jobs_.live.erase(j->rec.info.id);
    }
    telemetry_.events.forget(j->rec.info.id);  // the events this worker added after the withdrawal
    jobs_.changed.notify_all();
    return;
  }
  // The outcome is built on a copy and reaches the live job only once the store has answered, so
  // no awaiter sees `done` for a job that then fails because its result could not be stored.
  job_result snapshot;
  {
    std::lock_guard lk(jobs_.mutex);
    snapshot = j->rec.info;
  }
  snapshot.state = end;
  snapshot.error = std::move(error);
  snapshot.finished_at = wall_clock::now();
  double sum = 0;
  for (int p = 0; p < static_cast<int>(phase::total); ++p) sum += snapshot.times.seconds[p];
  snapshot.times[phase::total] =
      std::max(sum, std::chrono::duration<double>(steady_clock::now() - j->enqueued).count());
  snapshot.deadline_missed = snapshot.deadline && *snapshot.finished_at > *snapshot.deadline;
  if (end != job_state::done) snapshot.proofs.clear();
  store_end(j, std::move(snapshot));
}

void engine::store_end(const std::shared_ptr<live_job>& j, job_result snapshot) {
  const job_state end = snapshot.state;
  const status st = source_->commit_end(*j, snapshot);
  if (j->lease && st.code() == errc::failed_precondition) {
    // Another node took the job over (this node's lease ran out): its result is that node's to
    // commit, and its spooled witnesses are that node's to delete. Dropped here, with the file of
    // the outcome if it was parked.
    log(log_level::warn, "engine: job=" + std::to_string(snapshot.id) + " late result dropped: " + st.to_string());
    spool_.remove_result(snapshot.id);
    {
      std::lock_guard lk(jobs_.mutex);
      if (j->parked) --jobs_.unstored;
      j->parked.reset();
      jobs_.live.erase(snapshot.id);
    }
    source_->capacity_freed();
    jobs_.changed.notify_all();
    return;
  }
  if (st.code() == errc::unavailable) {
    // The store is out of reach for now (a server restarting, a full disk): the outcome waits,
    // proofs and all, and the spooled witnesses stay, until the store takes it. Failing the job
    // here would throw a good proof away and end the job for good over a fault that passes. The
    // outcome is also written to the spool (parked_result.hpp), so that a stop of the daemon
    // meanwhile costs no proof: the next start stores it from there. Where that write fails too
    // (the spool on the disk that is full), the outcome waits in memory only, and a restart proves
    // the job again from its witnesses.
    bool first = false;
    {
      std::lock_guard lk(jobs_.mutex);
      first = !j->parked;
      if (first) ++jobs_.unstored;
      j->parked = snapshot;
      j->store_fault = st;
    }
    if (first) {
      const std::string bytes = encode_parked_result({std::move(snapshot), j->key.digest});
      const status kept = spool_.put_result(
          j->rec.info.id, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
      log(log_level::warn,
          "engine: job=" + std::to_string(j->rec.info.id) + " ended " + job_state_name(end) +
              "; its result waits for the job store: " + st.to_string() +
              (kept.is_ok() ? "; kept in the spool for a restart"
                            : "; held in memory only (a restart proves it again): " + kept.to_string()));
    }
    source_->capacity_freed();  // its worker is free, and the job no longer holds a claim's place
    housekeeper_.wake();  // onto the retry period now, not after a whole purge period
    jobs_.changed.notify_all();  // an await running out of time now says why
    return;
  }
  const bool stored = st.is_ok();
  if (!stored) {
    // A fault that will not pass by waiting (a damaged database, a constraint): the job fails and
    // says why. The caller must hear of it (an await that waited for the store would wait for
    // good), so the job fails in memory now and stays in jobs_.live until housekeeping stores that
    // outcome (retry_unstored()). Its spooled witnesses stay too: until then the store still has
    // the job unfinished, and a restart proves it again from them. Its request id may be submitted
    // again (submit()).
    log(log_level::error,
        "engine: job=" + std::to_string(snapshot.id) + " result not stored: " + st.to_string());
    snapshot.error = status(errc::io_error, std::string(result_not_stored) + " (the job had ended " +
                                                job_state_name(end) + "): " + hide_store(st).to_string() +
                                                "; submit it again under the same request id to prove it again");
    snapshot.state = job_state::failed;
    snapshot.proofs.clear();
  }
  publish_end(j, std::move(snapshot), stored);
}

void engine::publish_end(const std::shared_ptr<live_job>& j, job_result snapshot, bool stored) {
  const job_state end = snapshot.state;
  if (stored) {
    discard_spooled(j->rec);
    spool_.remove_result(snapshot.id);
  }
  event(*j,
        end == job_state::done        ? event_kind::done
        : end == job_state::cancelled ? event_kind::cancelled
                                      : event_kind::failed,
        0, j->worker);

  const std::string& c = snapshot.circuit;
  telemetry_.counters.add(c, end == job_state::done        ? metrics::counter::completed
                  : end == job_state::cancelled ? metrics::counter::cancelled
                                                : metrics::counter::failed);
  if (snapshot.deadline_missed) telemetry_.counters.add(c, metrics::counter::deadline_miss);
  // The GPU phases exist only for jobs a device proved; a CPU job's zeros would only blur them.
  const bool on_gpu = snapshot.h2d_bytes > 0;
  if (end == job_state::done)
    for (int p = 0; p < phase_count; ++p)
      if (on_gpu || !is_gpu_phase(static_cast<phase>(p)))
        telemetry_.counters.observe(c, static_cast<phase>(p), snapshot.times.seconds[p]);

  std::string line = "engine: job ended id=" + std::to_string(snapshot.id) + " circuit=" + c +
                     " state=" + job_state_name(end) + " attempts=" + std::to_string(snapshot.attempts);
  if (!snapshot.ran_on.empty()) line += " ran_on=" + snapshot.ran_on;
  for (int p = 0; p < phase_count; ++p)
    if (on_gpu || !is_gpu_phase(static_cast<phase>(p)))
      line += std::string(" ") + phase_name(static_cast<phase>(p)) + "_s=" + fmt_s(snapshot.times.seconds[p]);
  if (on_gpu && snapshot.times[phase::h2d] > 0) {
    char gbs[32];
    std::snprintf(gbs, sizeof gbs, "%.1f", snapshot.h2d_bytes / snapshot.times[phase::h2d] / 1e9);
    line += std::string(" h2d_gb_per_s=") + gbs;
  }
  if (snapshot.deadline_missed) line += " deadline_missed=1";
  if (!snapshot.error.is_ok()) line += " error=\"" + snapshot.error.to_string() + "\"";
  log(end == job_state::failed ? log_level::warn : log_level::info, line);

  // Published last, so that an awaiter who sees the end sees its counts and log line too.
  {
    std::lock_guard lk(jobs_.mutex);
    if (j->parked) --jobs_.unstored;
    j->parked.reset();
    j->rec.info = snapshot;
    j->unstored = !stored;
    job_result ended = snapshot;
    ended.proofs.clear();  // the page wants times, not megabytes of proof JSON
    jobs_.remember_ended_locked(std::move(ended));
    if (stored)
      jobs_.live.erase(snapshot.id);
    else
      ++jobs_.unstored;
    if (stored) source_->ended_locked(snapshot.id);
  }
  source_->capacity_freed();  // a claim's place is free
  if (!stored) housekeeper_.wake();
  jobs_.changed.notify_all();
}

bool engine::retry_unstored() {
  if (jobs_.unstored.load() == 0) return true;
  std::vector<std::shared_ptr<live_job>> pending;
  {
    std::lock_guard lk(jobs_.mutex);
    for (const auto& [id, j] : jobs_.live)
      if (j->unstored || j->parked) pending.push_back(j);
  }
  for (const auto& j : pending) {
    std::optional<job_result> parked;
    {
      std::lock_guard lk(jobs_.mutex);
      parked = j->parked;
    }
    if (parked) {
      // Tried as the first commit was; a fault that still passes keeps it parked.
      store_end(j, std::move(*parked));
      bool still;
      {
        std::lock_guard lk(jobs_.mutex);
        still = j->parked.has_value();
      }
      if (still) return false;  // still out of reach: the next round tries again
      continue;
    }
    job_result info;
    {
      std::lock_guard lk(jobs_.mutex);
      info = j->rec.info;
    }
    const status st = source_->commit_end(*j, info);
    if (j->lease && st.code() == errc::failed_precondition) {  // taken over meanwhile: not ours
      log(log_level::warn, "engine: job=" + std::to_string(info.id) + " late result dropped: " + st.to_string());
      spool_.remove_result(info.id);
      std::lock_guard lk(jobs_.mutex);
      j->unstored = false;
      jobs_.live.erase(info.id);
      --jobs_.unstored;
      continue;
    }
    if (!st) return false;  // still failing: the next round tries again
    {
      std::lock_guard lk(jobs_.mutex);
      j->unstored = false;
      jobs_.live.erase(info.id);
    }
    --jobs_.unstored;
    discard_spooled(j->rec);
    spool_.remove_result(info.id);
    log(log_level::info, "engine: job result stored late id=" + std::to_string(info.id) +
                             " state=" + job_state_name(info.state));
  }
  jobs_.changed.notify_all();
  return true;
}

void engine::requeue_in_store(const std::shared_ptr<live_job>& j) {
  ahead_.drop(j->rec.info.id);
  // A drain abandoned the job: it did not fail, so the attempt is not counted against it.
  uint32_t attempts;
  {
    std::lock_guard lk(jobs_.mutex);
    if (j->rec.info.attempts > 0) --j->rec.info.attempts;
    j->rec.info.state = job_state::queued;
    j->rec.info.times = {};
    j->rec.info.ran_on.clear();
    j->rec.info.h2d_bytes = 0;
    j->rec.info.proofs.clear();
    j->worker = -1;
    attempts = j->rec.info.attempts;
  }
  const status st = source_->record_requeue(*j, attempts);
  if (!st)
    log(log_level::error,
        "engine: job=" + std::to_string(j->rec.info.id) + " not requeued: " + st.to_string());
  event(*j, event_kind::requeued, 0, j->worker);
  log(log_level::info, "engine: job requeued for the next start id=" + std::to_string(j->rec.info.id));
}

bool engine::housekeeping_round() {
  const bool stored = retry_unstored();
  const bool settled =
      !unconfirmed_.pending() ||
      unconfirmed_.settle(
          *store_, [this](const job_record& rec, const begun_files& begun) { discard_submitted_files(rec, begun); },
          [this](const std::string& line) { log(log_level::info, line); });
  auto paths = store_->purge_finished_before(wall_clock::now() - opt_.result_retention);
  if (paths)
    for (const auto& p : *paths) spool_.remove(p);
  return stored && settled;
}

}  // namespace cuzk::engine
