// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's worker side: a worker takes a batch from the scheduler, leases the circuit's key
// once for the whole batch, and runs each job through its phases, checking the job's cancel token
// at every boundary (see engine.hpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "engine/jobs/proof_check.hpp"
#include "engine/jobs/input_witness.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/jobs/witness_stream.hpp"

namespace cuzk::engine {

namespace {

double seconds_since(steady_clock::time_point t0) {
  return std::chrono::duration<double>(steady_clock::now() - t0).count();
}

std::string fmt_s(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

// A partition's prover phases added to its job's (every partition's copies, NTTs and MSMs count):
// synthesis (with the witness staging before it) and the rest of the proof, then, for a proof that
// ran on a device, the parts a GPU backend times (phase in job.hpp: a CPU job reports none).
void add_proof_times(job_result& info, const prove_report& r) {
  const groth16::phase_timings& t = r.phases;
  info.times[phase::synthesis] += t.witness + t.synthesis;
  info.times[phase::prove] += t.after_synthesis();
  info.times[phase::reservation_wait] += r.device_memory_wait;
  // Partitions of one job run on one worker; a fallback to the CPU for one shows in all.
  const std::string where = r.ran_on.empty() ? "cpu" : r.ran_on;
  info.ran_on = info.ran_on.empty() || info.ran_on == where ? where : info.ran_on + "+" + where;
  if (where == "cpu") return;
  info.times[phase::h2d] += t.h2d;
  info.times[phase::ntt] += t.ntt;
  info.times[phase::msm_a] += t.msm_a;
  info.times[phase::msm_b1] += t.msm_b1;
  info.times[phase::msm_b2] += t.msm_b2;
  info.times[phase::msm_c] += t.msm_c;
  info.times[phase::msm_h] += t.msm_h;
  info.times[phase::assembly] += t.assembly;
  info.times[phase::gpu_wait] += t.lock_wait;
  info.times[phase::gpu_busy] += t.lock_held;
  info.h2d_bytes += t.h2d_bytes;
}

// A witness of the key as read into memory (nVars values): what a batch or a read-ahead holds
// beyond one proof's working set.
uint64_t witness_bytes_of(const key_summary& key) { return uint64_t{key.n_vars} * sizeof(bn254::fr::repr); }

// Why a job stops at a boundary, or nullopt to go on.
std::optional<cancel_reason> stop_reason(const cancel_token& c) {
  const auto r = c.reason();
  if (r == cancel_reason::none) return std::nullopt;
  return r;
}

}  // namespace

void engine::admit(work_batch& batch, const worker_ref& by) {
  // One reservation per batch: its worker proves the jobs one after another, all of one circuit,
  // so one proof's working set covers them, and with it the key's load when the key is not
  // resident (the worker's srs_manager::acquire takes that share out; the key then holds its own
  // reservation). Reserving both at once is what keeps the budget's line from deadlocking: a job
  // never waits in it while holding memory. It is taken for the first job that can run; jobs
  // refused before it leave the batch with their reason.
  for (auto it = batch.jobs.begin(); it != batch.jobs.end();) {
    std::shared_ptr<live_job> j;
    {
      std::lock_guard lk(m_);
      auto found = live_.find(it->id);
      if (found != live_.end() && !is_terminal(found->second->rec.info.state)) {
        j = found->second;
        j->worker = by.index;  // so that drain() stops its wait too
      }
    }
    if (!j) {  // ended meanwhile
      it = batch.jobs.erase(it);
      continue;
    }
    const uint64_t key_load = srs_.load_estimate(it->circuit);
    const uint64_t need = backend_->memory_per_proof(j->key).host + key_load;
    const std::string purpose = "job " + std::to_string(it->id) + " working set" +
                                (key_load != 0 ? " and its key's load" : "");
    refusal why = refusal::none;
    const auto t0 = steady_clock::now();
    auto r = memory_.host().acquire(need, {&j->cancel, std::nullopt, purpose, true, &why});
    const double waited = seconds_since(t0);
    if (r) {
      if (waited > 0.001)
        log(log_level::info, "engine: job=" + std::to_string(it->id) + " waited " + fmt_s(waited) +
                                 " s for host memory (" + describe_bytes(need) + ")");
      std::lock_guard lk(m_);
      j->working_set = std::move(r).value();
      j->rec.info.times[phase::reservation_wait] = waited;
      return;
    }
    {
      std::lock_guard lk(m_);
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

std::size_t engine::witness_reads_at_once(std::size_t files, uint64_t file_bytes, const cancel_token* cancel,
                                          const std::string& purpose, reservation& room) {
  const std::size_t want = std::min(files, parallel_witness_reads);
  if (want < 2) return 1;
  auto r = memory_.host().acquire((want - 1) * file_bytes, {cancel, std::chrono::milliseconds(0), purpose, false, nullptr});
  if (!r) return 1;
  room = std::move(r).value();
  return want;
}

uint32_t engine::batch_size(const live_job& j, const prove_call& call, uint32_t first, reservation& held) {
  const uint32_t remaining = j.rec.info.partitions - first;
  if (remaining < 2) return 1;
  const uint32_t asked = std::min(remaining, std::max(1u, backend_->batch_partitions(call, remaining)));
  // The batch's witnesses beyond the first (admit() reserved one proof's working set) are held at
  // once: as many as the host budget has room for now, without pushing cached keys out; the rest
  // of the job goes in later batches.
  const uint64_t witness_bytes = witness_bytes_of(j.key);
  for (uint32_t b = asked; b > 1; --b) {
    const std::string purpose = "job " + std::to_string(j.rec.info.id) + ": the witnesses of a batch of " +
                                std::to_string(b) + " partitions";
    auto r = memory_.host().acquire((b - 1) * witness_bytes,
                                    {&j.cancel, std::chrono::milliseconds(0), purpose, false, nullptr});
    if (r) {
      held = std::move(r).value();
      return b;
    }
  }
  if (asked > 1)
    log(log_level::info, "engine: job=" + std::to_string(j.rec.info.id) + " partitions proven one at a time: "
                             "no host memory now for a batch's witnesses (" + describe_bytes(witness_bytes) + " each)");
  return 1;
}

void engine::worker_loop(int index) {
  const worker_ref me{index, workers_[index].device_slot};  // the slot is fixed since start
  while (auto batch = sched_.next(me)) run_batch(index, *batch);
}

void engine::run_batch(int index, const work_batch& batch) {
  key_lease lease;
  reservation working_set;  // admit()'s, for the whole batch; returned when the batch ends
  for (const auto& qj : batch.jobs) {
    std::shared_ptr<live_job> j;
    {
      std::lock_guard lk(m_);
      auto it = live_.find(qj.id);
      // Ended meanwhile (cancelled between dispatch and here; an ended job whose outcome the
      // store has yet to take is still in live_).
      if (it == live_.end() || is_terminal(it->second->rec.info.state)) continue;
      j = it->second;
      if (it->second->working_set) working_set = std::move(it->second->working_set);
      j->worker = index;
      auto& w = workers_[index];
      w.busy = true;
      w.job = qj.id;
      w.partition = 0;
    }
    const auto t0 = steady_clock::now();
    run_job(index, j, lease, working_set);
    std::lock_guard lk(m_);
    auto& w = workers_[index];
    w.busy = false;
    w.job = 0;
    w.busy_seconds += seconds_since(t0);
    ++w.jobs;
    done_cv_.notify_all();  // drain() waits for idle workers
  }
}

void engine::run_job(int index, const std::shared_ptr<live_job>& j, key_lease& lease, reservation& working_set) {
  job_result& info = j->rec.info;
  auto stop = [&](cancel_reason r) {
    if (r == cancel_reason::shutdown)
      requeue_in_store(j);
    else
      finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
  };
  // A step that fails once a stop was requested ends as the stop says, not as a failure: a backend
  // that honours the token inside prove() returns an error when it abandons the proof, and so may a
  // witness read that a shutdown interrupts. The caller asked to stop; the error is only the echo.
  auto fail_unless_stopped = [&](status s) {
    if (auto r = stop_reason(j->cancel)) return stop(*r);
    finish(j, job_state::failed, std::move(s));
  };
  if (auto r = stop_reason(j->cancel)) return stop(*r);
  {
    std::lock_guard lk(m_);
    info.times[phase::queue_wait] = seconds_since(j->enqueued);
    ++info.attempts;
  }
  event(*j, event_kind::dispatched, 0, index);
  if (opt_.fail_expired_jobs && info.deadline && wall_clock::now() > *info.deadline)
    return finish(j, job_state::failed,
                  status(errc::deadline_exceeded, "the deadline passed before the job started"));

  set_state(*j, job_state::loading_key);
  const int slot = workers_[index].device_slot;  // fixed since start: read without the lock
  if (!lease) {
    double load_s = 0;
    auto l = srs_.acquire(info.circuit, &j->cancel, &load_s, slot, &working_set);
    if (!l) return fail_unless_stopped(l.error().with_context("loading the key of circuit " + info.circuit));
    lease = std::move(l).value();
    // A key share admit() reserved that the load did not use (another job loaded it first).
    const uint64_t proof_bytes = backend_->memory_per_proof(j->key).host;
    if (working_set.bytes() > proof_bytes) working_set.release(working_set.bytes() - proof_bytes);
    if (load_s > 0.001)
      log(log_level::info, "engine: key ready circuit=" + info.circuit + " tier=" +
                               key_tier_name(lease.on_device() ? key_tier::device : lease.key().tier()) +
                               (lease.on_device() ? " slot=" + std::to_string(lease.slot()) : "") +
                               " seconds=" + fmt_s(load_s));
    if (slot >= 0 && !lease.on_device())
      log(log_level::warn, "engine: circuit=" + info.circuit + " worker=" + std::to_string(index) +
                               " proving on the CPU: " + lease.device_note().to_string());
    std::lock_guard lk(m_);
    info.times[phase::key_load] = load_s;  // later jobs of a batch reuse the lease: 0
  }
  event(*j, event_kind::key_ready, 0, index);

  // Partitions are proven in batches of the size the backend asks for (1 unless batching saves
  // work: a GPU key streamed from host memory), each batch's witnesses held at once. The next
  // batch's witnesses are read on another thread while this one proves, when the host budget has
  // room for them beside this batch's (taken without waiting), so that the device does not wait
  // for the disk and the value checks between partitions.
  std::vector<partition_proof> proofs;
  const prove_call call{lease.key(), lease.on_device(), slot, index, info.circuit, &pinned_, &working_set};
  // Partition q's witness: from its input JSON (the circuit's generator runs here: a failed assert
  // or a missing signal fails this job, with circom's message) or from its file, checked against
  // witness_dirs again (what a client's path names may have changed since the submit).
  auto read_one = [this, j](uint32_t q) -> result<any_witness> {
    if (q < j->rec.input_json.size() && j->rec.input_json[q]) {
      // Bounded: the job's cancel (and the drain's) stops it, and so does witness_time_limit_s.
      witness::calculation_limits limits;
      limits.deadline = steady_clock::now() + opt_.witness_time_limit;
      limits.stop_polled = [cancel = j->cancel] { return cancel.cancelled(); };
      auto w = j->generator ? witness_from_input_json(*j->generator, j->rec.witness_paths[q], j->key, "input JSON", limits)
                            : result<any_witness>(status(errc::failed_precondition,
                                                         "input JSON: the circuit's witness generator is not loaded"));
      if (!w && w.error().code() == errc::deadline_exceeded)
        w = status(errc::deadline_exceeded, w.error().message() + " (witness_time_limit_s = " +
                                                std::to_string(opt_.witness_time_limit.count()) + ")");
      if (!w) return hide_path(w.error(), j->rec.witness_paths[q], "input JSON").with_context("partition " + std::to_string(q));
      return w;
    }
    // Sent inline and its submit still storing it: the request's bytes, not the file being written.
    if (j->arrival)
      if (auto held = j->arrival->read(q, j->key)) return std::move(*held);
    const bool spooled = q < j->rec.spooled.size() && j->rec.spooled[q];
    auto file = open_witness(j->rec.witness_paths[q],
                             spooled ? witness_origin::spooled : witness_origin::client_path, witness_dirs_, j->key);
    auto w = file ? read_witness(std::move(file).value(), j->key) : result<any_witness>(file.error());
    if (!w) return w.error().with_context("partition " + std::to_string(q));
    return w;
  };
  // Partitions first .. first + count - 1, read on threads of their own, parallel_witness_reads
  // files at once (one read is a copy and a check of up to GiBs, and a batch of ten read in turn
  // kept the device waiting for seconds), from now on or, reading ahead, once the batch before has
  // all of its witnesses (`after`). The memory is the witnesses' own, which the batch reserved: a
  // client's file from circom or snarkjs is proven where it was read (witness.hpp); one whose
  // values lie elsewhere holds its bytes beside their copy while it is read, uncounted. The backend takes each witness when it
  // is ready for it (witness_stream.hpp): a batch starts on its first partitions while the last are
  // read. Input JSON is computed there too, as many partitions at once as files are read: calculations
  // of one circuit run side by side (circom_wasm.hpp), each on one thread. After
  // a failure, or once the job is stopping, later partitions are not read.
  // Each read is timed where it runs, as the job's witness phase and a witness span in the
  // timeline; a read the job's stop interrupted adds nothing (a requeued job starts its times anew).
  auto read_group = [this, read_one, j, index](uint32_t first, uint32_t count, std::shared_ptr<reads_ended> after) {
    return std::make_unique<witness_stream>(
        count, std::min<std::size_t>(count, parallel_witness_reads),
        [this, read_one, first, j, index](std::size_t i) -> result<any_witness> {
          const uint32_t q = first + static_cast<uint32_t>(i);
          if (j->cancel.cancelled())
            return status(errc::cancelled, "partition " + std::to_string(q) + ": not read: the job is stopping");
          event(*j, event_kind::witness_start, q, index);
          const auto tw = steady_clock::now();
          auto w = read_one(q);
          const double witness_s = seconds_since(tw);
          event(*j, event_kind::witness_end, q, index);
          if (!j->cancel.cancelled()) {
            std::lock_guard lk(m_);
            j->rec.info.times[phase::witness] += witness_s;
          }
          return w;
        },
        nullptr, std::move(after));
  };
  struct group {
    uint32_t first = 0, count = 0;
    reservation extra;     // batch_size()'s: the batch's witnesses beyond one
    reservation prefetch;  // one more, while the group before still holds its own
    std::unique_ptr<witness_stream> read;  // last: its reads end before the reservations go
  };
  auto plan = [&](uint32_t first) {
    auto g = std::make_unique<group>();
    g->first = first;
    g->count = batch_size(*j, call, first, g->extra);
    return g;
  };
  const uint64_t witness_bytes = witness_bytes_of(j->key);
  // Declared before the current batch's group so that, on an early return, the current batch's
  // stream goes first (its unstarted reads skipped) and the next one's, which waits for it, after.
  std::unique_ptr<group> next;
  for (auto cur = plan(0); cur;) {
    if (auto r = stop_reason(j->cancel)) return stop(*r);
    const uint32_t p = cur->first, batch = cur->count;
    const std::string which = batch == 1 ? "partition " + std::to_string(p)
                                         : "partitions " + std::to_string(p) + "-" + std::to_string(p + batch - 1);
    if (batch > 1) log(log_level::info, "engine: job=" + std::to_string(info.id) + " " + which + " proven together");
    {
      std::lock_guard lk(m_);
      workers_[index].partition = p;
    }
    set_state(*j, job_state::synthesizing);
    if (!cur->read) cur->read = read_group(p, batch, nullptr);
    witness_stream& witnesses = *cur->read;
    // One partition's proof needs its witness first; a batch's backend waits for each in its turn.
    if (batch == 1)
      if (auto w = witnesses.wait(0); !w) return fail_unless_stopped(w.error());

    if (p + batch < info.partitions) {
      next = plan(p + batch);
      auto room = memory_.host().acquire(
          witness_bytes, {&j->cancel, std::chrono::milliseconds(0),
                          "job " + std::to_string(info.id) + ": the next partitions' witnesses, read ahead", false,
                          nullptr});
      if (room) {
        next->prefetch = std::move(room).value();
        next->read = read_group(next->first, next->count, witnesses.ended());
      }
    }

    // The CPU backend synthesizes inside its prove call: the state says proving for the whole
    // call, and the timeline places synthesis's end where the backend's own timing puts it.
    set_state(*j, job_state::proving);
    prove_report report;
    const int64_t call_us = now_unix_us();
    // Synthesis starts with the prove call; the witness reads before it have spans of their own.
    for (uint32_t q = p; q < p + batch; ++q) event(*j, event_kind::synth_start, q, index, call_us);
    result<std::vector<any_proof>> made = std::vector<any_proof>{};
    if (batch == 1) {
      auto one = backend_->prove(call, *witnesses.wait(0).value(), j->cancel, report);
      if (one)
        made->push_back(std::move(one).value());
      else
        made = one.error();
    } else {
      made = backend_->prove_batch(call, witnesses, j->cancel, report);
      if (made && made->size() != batch)
        made = status(errc::internal, "the batch gave " + std::to_string(made->size()) + " proofs for " +
                                          std::to_string(batch) + " witnesses");
    }
    // A witness whose read failed ended the batch (the backend asks for them in order, so the
    // first it was handed is the first in partition order): the job fails with that read's error,
    // as it would have before the batch began; the backend's own words go to the log.
    const status read_failure = made ? status::ok() : witnesses.handed_out_failure();
    if (!read_failure) {
      log(log_level::warn, "engine: job=" + std::to_string(info.id) + " " + which + ": the " + backend_->name() +
                               " prover stopped: " + made.error().to_string());
      made = read_failure;
    }
    kernels_.record(slot, index, info.id, p, on_wall_clock(report.phases.kernel_spans));
    const double synthesis_s = report.phases.witness + report.phases.synthesis;
    const int64_t synth_end_us = call_us + static_cast<int64_t>(synthesis_s * 1e6);
    for (uint32_t q = p; q < p + batch; ++q) {
      event(*j, event_kind::synth_end, q, index, synth_end_us);
      event(*j, event_kind::prove_start, q, index, synth_end_us);
      event(*j, event_kind::prove_end, q, index);
    }
    {
      std::lock_guard lk(m_);
      add_proof_times(info, report);
    }
    if (!read_failure) return fail_unless_stopped(read_failure);
    if (!made) return fail_unless_stopped(made.error().with_context(which + ": " + backend_->name() + " prover"));

    for (uint32_t q = 0; q < batch; ++q) {
      auto read = witnesses.wait(q);  // every read has ended: the backend took each witness
      if (!read) return fail_unless_stopped(read.error());
      const any_witness& w = **read;
      const any_proof& proof = (*made)[q];
      const std::string name = "partition " + std::to_string(p + q);
      if (opt_.verify_proofs) {
        if (auto r = stop_reason(j->cancel)) return stop(*r);
        set_state(*j, job_state::verifying);
        event(*j, event_kind::verify_start, p + q, index);
        const auto tv = steady_clock::now();
        const status v = verify_partition(lease.key(), w, proof);
        {
          std::lock_guard lk(m_);
          info.times[phase::verify] += seconds_since(tv);
        }
        event(*j, event_kind::verify_end, p + q, index);
        if (!v)
          return finish(j, job_state::failed,
                        status(errc::internal, name + ": the " + backend_->name() +
                                                   " prover's proof did not verify: " + v.message()));
      }
      auto enc = encode_partition(lease.key(), w, proof);
      if (!enc) return finish(j, job_state::failed, enc.error());
      proofs.push_back(std::move(enc).value());
      metrics_.add(info.circuit, metrics::counter::partition);
    }
    cur = std::move(next);
  }
  if (auto r = stop_reason(j->cancel)) return stop(*r);
  {
    std::lock_guard lk(m_);
    info.proofs = std::move(proofs);
  }
  finish(j, job_state::done, status::ok());
}

void engine::finish(const std::shared_ptr<live_job>& j, job_state end, status error) {
  // A job queued while its submit stored its witnesses ends only once they are stored; if they
  // could not be, the submit refused the job (withdraw()) and there is nothing to record.
  if (j->arrival && !j->arrival->wait_stored()) {
    {
      std::lock_guard lk(m_);
      live_.erase(j->rec.info.id);
    }
    timeline_.forget(j->rec.info.id);  // the events this worker added after the withdrawal
    done_cv_.notify_all();
    return;
  }
  // The outcome is built on a copy and reaches the live job only once the store has answered, so
  // no awaiter sees `done` for a job that then fails because its result could not be stored.
  job_result snapshot;
  {
    std::lock_guard lk(m_);
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
  const status st = commit_end(*j, snapshot);
  if (j->lease && st.code() == errc::failed_precondition) {
    // Another node took the job over (this node's lease ran out): its result is that node's to
    // commit, and its spooled witnesses are that node's to delete. Dropped here, nothing else.
    log(log_level::warn, "engine: job=" + std::to_string(snapshot.id) + " late result dropped: " + st.to_string());
    {
      std::lock_guard lk(m_);
      if (j->parked) --unstored_;
      j->parked.reset();
      live_.erase(snapshot.id);
    }
    wake_claimer();
    done_cv_.notify_all();
    return;
  }
  if (st.code() == errc::unavailable) {
    // The store is out of reach for now (a server restarting, a full disk): the outcome waits,
    // proofs and all, and the spooled witnesses stay, until the store takes it; a restart meanwhile
    // finds the job unfinished and proves it again. Failing the job here would throw a good proof
    // away and end the job for good over a fault that passes.
    bool first = false;
    {
      std::lock_guard lk(m_);
      first = !j->parked;
      if (first) ++unstored_;
      j->parked = std::move(snapshot);
      j->store_fault = st;
    }
    if (first)
      log(log_level::warn, "engine: job=" + std::to_string(j->rec.info.id) + " ended " + job_state_name(end) +
                               "; its result waits for the job store: " + st.to_string());
    wake_claimer();  // its worker is free, and the job no longer holds a claim's place
    // Onto the retry period now, not after a whole purge period; taking hk_m_ first means the
    // housekeeper is either waiting (and wakes) or has yet to read unstored_.
    { std::lock_guard lk(hk_m_); }
    hk_cv_.notify_all();
    done_cv_.notify_all();  // an await running out of time now says why
    return;
  }
  const bool stored = st.is_ok();
  if (!stored) {
    // A fault that will not pass by waiting (a damaged database, a constraint): the job fails and
    // says why. The caller must hear of it (an await that waited for the store would wait for
    // good), so the job fails in memory now and stays in live_ until housekeeping stores that
    // outcome (retry_unstored()). Its spooled witnesses stay too: until then the store still has
    // the job unfinished, and a restart proves it again from them. Its request id may be submitted
    // again (submit()).
    log(log_level::error,
        "engine: job=" + std::to_string(snapshot.id) + " result not stored: " + st.to_string());
    snapshot.error = status(errc::io_error, std::string(result_not_stored) + " (the job had ended " +
                                                job_state_name(end) + "): " + st.to_string() +
                                                "; submit it again under the same request id to prove it again");
    snapshot.state = job_state::failed;
    snapshot.proofs.clear();
  }
  publish_end(j, std::move(snapshot), stored);
}

void engine::publish_end(const std::shared_ptr<live_job>& j, job_result snapshot, bool stored) {
  const job_state end = snapshot.state;
  if (stored) discard_spooled(j->rec);
  event(*j,
        end == job_state::done        ? event_kind::done
        : end == job_state::cancelled ? event_kind::cancelled
                                      : event_kind::failed,
        0, j->worker);

  const std::string& c = snapshot.circuit;
  metrics_.add(c, end == job_state::done        ? metrics::counter::completed
                  : end == job_state::cancelled ? metrics::counter::cancelled
                                                : metrics::counter::failed);
  if (snapshot.deadline_missed) metrics_.add(c, metrics::counter::deadline_miss);
  // The GPU phases exist only for jobs a device proved; a CPU job's zeros would only blur them.
  const bool on_gpu = snapshot.h2d_bytes > 0;
  if (end == job_state::done)
    for (int p = 0; p < phase_count; ++p)
      if (on_gpu || !is_gpu_phase(static_cast<phase>(p)))
        metrics_.observe(c, static_cast<phase>(p), snapshot.times.seconds[p]);

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
    std::lock_guard lk(m_);
    if (j->parked) --unstored_;
    j->parked.reset();
    j->rec.info = snapshot;
    j->unstored = !stored;
    job_result ended = snapshot;
    ended.proofs.clear();  // the page wants times, not megabytes of proof JSON
    recent_jobs_.push_front(std::move(ended));
    if (recent_jobs_.size() > recent_jobs_kept) recent_jobs_.pop_back();
    if (stored)
      live_.erase(snapshot.id);
    else
      ++unstored_;
    // An await that found the job in the store before this node claimed it waits for the end's
    // announcement: this node knows first.
    if (stored && remote_waits_.count(snapshot.id)) remote_ended_.insert(snapshot.id);
  }
  wake_claimer();  // a claim's place is free
  if (!stored) {
    { std::lock_guard lk(hk_m_); }
    hk_cv_.notify_all();
  }
  done_cv_.notify_all();
}

bool engine::retry_unstored() {
  if (unstored_.load() == 0) return true;
  std::vector<std::shared_ptr<live_job>> pending;
  {
    std::lock_guard lk(m_);
    for (const auto& [id, j] : live_)
      if (j->unstored || j->parked) pending.push_back(j);
  }
  for (const auto& j : pending) {
    std::optional<job_result> parked;
    {
      std::lock_guard lk(m_);
      parked = j->parked;
    }
    if (parked) {
      // Tried as the first commit was; a fault that still passes keeps it parked.
      store_end(j, std::move(*parked));
      bool still;
      {
        std::lock_guard lk(m_);
        still = j->parked.has_value();
      }
      if (still) return false;  // still out of reach: the next round tries again
      continue;
    }
    job_result info;
    {
      std::lock_guard lk(m_);
      info = j->rec.info;
    }
    const status st = commit_end(*j, info);
    if (j->lease && st.code() == errc::failed_precondition) {  // taken over meanwhile: not ours
      log(log_level::warn, "engine: job=" + std::to_string(info.id) + " late result dropped: " + st.to_string());
      std::lock_guard lk(m_);
      j->unstored = false;
      live_.erase(info.id);
      --unstored_;
      continue;
    }
    if (!st) return false;  // still failing: the next round tries again
    {
      std::lock_guard lk(m_);
      j->unstored = false;
      live_.erase(info.id);
    }
    --unstored_;
    discard_spooled(j->rec);
    log(log_level::info, "engine: job result stored late id=" + std::to_string(info.id) +
                             " state=" + job_state_name(info.state));
  }
  done_cv_.notify_all();
  return true;
}

void engine::requeue_in_store(const std::shared_ptr<live_job>& j) {
  // A drain abandoned the job: it did not fail, so the attempt is not counted against it.
  uint32_t attempts;
  {
    std::lock_guard lk(m_);
    if (j->rec.info.attempts > 0) --j->rec.info.attempts;
    j->rec.info.state = job_state::queued;
    j->rec.info.times = {};
    j->rec.info.ran_on.clear();
    j->rec.info.h2d_bytes = 0;
    j->rec.info.proofs.clear();
    j->worker = -1;
    attempts = j->rec.info.attempts;
  }
  // In a cluster release_unstarted() gives it back to the queue (worker -1 now) when the drain ends.
  const status st = j->lease ? status::ok() : store_->update_state(j->rec.info.id, job_state::queued, attempts);
  if (!st)
    log(log_level::error,
        "engine: job=" + std::to_string(j->rec.info.id) + " not requeued: " + st.to_string());
  event(*j, event_kind::requeued, 0, j->worker);
  log(log_level::info, "engine: job requeued for the next start id=" + std::to_string(j->rec.info.id));
}

void engine::housekeeping_loop() {
  const auto period = std::clamp<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(opt_.result_retention) / 4,
      std::chrono::milliseconds(100), std::chrono::milliseconds(30000));
  // A result the store refused (finish()) is retried after 250 ms, then at twice the wait after
  // every refusal up to 8 s: a server that restarts in a second or two, or a disk given room, takes
  // it soon after, not a retention period later, and a store down for long is not hammered.
  constexpr auto first_retry = std::chrono::milliseconds(250), last_retry = std::chrono::milliseconds(8000);
  auto retry_period = first_retry;
  std::unique_lock lk(hk_m_);
  while (!hk_stop_) {
    hk_cv_.wait_for(lk, unstored_.load() > 0 ? std::min(period, retry_period) : period);
    if (hk_stop_) break;
    lk.unlock();
    retry_period = retry_unstored() ? first_retry : std::min(retry_period * 2, last_retry);
    auto paths = store_->purge_finished_before(wall_clock::now() - opt_.result_retention);
    if (paths)
      for (const auto& p : *paths) spool_.remove(p);
    lk.lock();
  }
}

}  // namespace cuzk::engine
