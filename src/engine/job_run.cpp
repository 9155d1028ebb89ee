// SPDX-License-Identifier: MIT OR Apache-2.0
// A job's steps on a worker (see job_run.hpp).
#include "engine/job_run.hpp"

#include <algorithm>
#include <chrono>
#include <new>
#include <utility>

#include "engine/elapsed.hpp"
#include "engine/engine.hpp"
#include "engine/jobs/input_witness.hpp"
#include "engine/proof_check.hpp"
#include "engine/jobs/witness.hpp"

namespace cuzk::engine {

namespace {

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

}  // namespace

job_run::job_run(engine& e, int worker, std::shared_ptr<live_job> job, key_lease& lease, reservation& working_set,
                 calculation_share& calculations, bool later_calculations)
    : e_(e),
      worker_(worker),
      slot_(e.workers_[worker].device_slot),
      j_(std::move(job)),
      info_(j_->rec.info),
      lease_(lease),
      working_set_(working_set),
      calculations_(calculations),
      later_calculations_(later_calculations) {
  const auto& input_json = j_->rec.input_json;
  calculations_left_ = static_cast<uint32_t>(std::count(input_json.begin(), input_json.end(), true));
  if (calculations_left_ == 0 && !later_calculations_) calculations_.done();
}

void job_run::run() {
  if (begin() == step::ended || lease_key() == step::ended || prove_partitions() == step::ended) return;
  (void)finish_done();
}

std::string job_run::batch::name() const {
  return count == 1 ? "partition " + std::to_string(first)
                    : "partitions " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

job_run::step job_run::stop(cancel_reason r) {
  if (r == cancel_reason::shutdown)
    e_.requeue_in_store(j_);
  else
    e_.finish(j_, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
  return step::ended;
}

job_run::step job_run::stop_if_asked() {
  const cancel_reason r = j_->cancel.reason();
  return r == cancel_reason::none ? step::go_on : stop(r);
}

job_run::step job_run::fail_unless_stopped(status s) {
  if (stop_if_asked() == step::ended) return step::ended;
  return fail(std::move(s));
}

job_run::step job_run::fail(status s) {
  e_.finish(j_, job_state::failed, std::move(s));
  return step::ended;
}

job_run::step job_run::begin() {
  if (stop_if_asked() == step::ended) return step::ended;
  {
    std::lock_guard lk(e_.jobs_.mutex);
    info_.times[phase::queue_wait] = seconds_since(j_->enqueued);
    ++info_.attempts;
  }
  e_.event(*j_, event_kind::dispatched, 0, worker_);
  if (e_.opt_.fail_expired_jobs && info_.deadline && wall_clock::now() > *info_.deadline)
    return fail(status(errc::deadline_exceeded, "the deadline passed before the job started"));
  return step::go_on;
}

job_run::step job_run::lease_key() {
  e_.set_state(*j_, job_state::loading_key);
  if (!lease_) {
    double load_s = 0;
    auto l = e_.keys_.acquire(info_.circuit, &j_->cancel, &load_s, slot_, &working_set_);
    if (!l) return fail_unless_stopped(l.error().with_context("loading the key of circuit " + info_.circuit));
    lease_ = std::move(l).value();
    // A key share admit() reserved that the load did not use (another job loaded it first).
    const uint64_t proof_bytes = e_.backend_->memory_per_proof(j_->key).host;
    if (working_set_.bytes() > proof_bytes) working_set_.release(working_set_.bytes() - proof_bytes);
    if (load_s > 0.001)
      e_.log(log_level::info, "engine: key ready circuit=" + info_.circuit + " tier=" +
                                  key_tier_name(lease_.on_device() ? key_tier::device : lease_.key().tier()) +
                                  (lease_.on_device() ? " slot=" + std::to_string(lease_.slot()) : "") +
                                  " seconds=" + fmt_s(load_s));
    if (slot_ >= 0 && !lease_.on_device())
      e_.log(log_level::warn, "engine: circuit=" + info_.circuit + " worker=" + std::to_string(worker_) +
                                  " proving on the CPU: " + lease_.device_note().to_string());
    std::lock_guard lk(e_.jobs_.mutex);
    info_.times[phase::key_load] = load_s;  // later jobs of a batch reuse the lease: 0
  }
  e_.event(*j_, event_kind::key_ready, 0, worker_);
  call_.emplace(prove_call{lease_.key(), lease_.on_device(), slot_, worker_, info_.circuit, &e_.pinned_,
                           &working_set_});
  return step::go_on;
}

// Partitions are proven in batches of the size the backend asks for (1 unless batching saves
// work: a GPU key streamed from host memory), each batch's witnesses held at once. The next
// batch's witnesses are read on another thread while this one proves, when the host budget has
// room for them beside this batch's (taken without waiting), so that the device does not wait
// for the disk and the value checks between partitions.
job_run::step job_run::prove_partitions() {
  // Declared before the current batch so that, on an early return, the current batch's stream goes
  // first (its unstarted reads skipped) and the next one's, which waits for it, after.
  std::unique_ptr<batch> next;
  for (auto cur = plan_batch(0); cur; cur = std::move(next)) {
    if (stop_if_asked() == step::ended) return step::ended;
    if (cur->count > 1)
      e_.log(log_level::info, "engine: job=" + std::to_string(info_.id) + " " + cur->name() + " proven together");
    {
      std::lock_guard lk(e_.jobs_.mutex);
      e_.workers_[worker_].partition = cur->first;
    }
    e_.set_state(*j_, job_state::synthesizing);
    if (!cur->read) cur->read = read_witnesses(cur->first, cur->count, nullptr);
    // One partition's proof needs its witness first; a batch's backend waits for each in its turn.
    if (cur->count == 1)
      if (auto w = cur->read->wait(0); !w) return fail_unless_stopped(w.error());
    read_ahead(*cur, next);
    auto made = prove_batch(*cur);
    if (!made) return fail_unless_stopped(made.error());
    if (check_and_encode(*cur, *made) == step::ended) return step::ended;
  }
  return step::go_on;
}

std::unique_ptr<job_run::batch> job_run::plan_batch(uint32_t first) {
  auto b = std::make_unique<batch>();
  b->first = first;
  b->count = batch_size(first, b->extra);
  return b;
}

// How many of the job's partitions from `first` on to prove in one backend call: what the backend
// asks for, cut to what the host budget holds of their witnesses now (reserved into `held`).
uint32_t job_run::batch_size(uint32_t first, reservation& held) {
  const uint32_t remaining = info_.partitions - first;
  if (remaining < 2) return 1;
  const uint32_t asked = std::min(remaining, std::max(1u, e_.backend_->batch_partitions(*call_, remaining)));
  // The batch's witnesses beyond the first (admit() reserved one proof's working set) are held at
  // once: as many as the host budget has room for now, without pushing cached keys out; the rest
  // of the job goes in later batches.
  const uint64_t witness_bytes = witness_memory_bytes(j_->key);
  for (uint32_t b = asked; b > 1; --b) {
    const std::string purpose = "job " + std::to_string(info_.id) + ": the witnesses of a batch of " +
                                std::to_string(b) + " partitions";
    auto r = e_.memory_.host().acquire((b - 1) * witness_bytes,
                                       {&j_->cancel, std::chrono::milliseconds(0), purpose, false, nullptr});
    if (r) {
      held = std::move(r).value();
      return b;
    }
  }
  if (asked > 1)
    e_.log(log_level::info, "engine: job=" + std::to_string(info_.id) + " partitions proven one at a time: "
                                "no host memory now for a batch's witnesses (" + describe_bytes(witness_bytes) +
                                " each)");
  return 1;
}

// Partitions first .. first + count - 1, read on threads of their own, from now on or, reading
// ahead, once the batch before has all of its witnesses (`after`). Files are read one at a time
// in partition order, each on threads of its own (witness_dirs.cpp, read_whole), so that the first
// arrives first: four at once, each 2 GiB file of a 10 x 2^26 job took 0.45-0.59 s and the device
// waited 0.46 s for its first witness; one at a time each took 0.15-0.19 s, ahead of the device
// (docs/BENCHMARKS.md, 'Witness files read once and in order'). On a host short of free memory a
// lone read is slower (0.55-0.93 s) and four at once did better: not yet handled. Input JSON is computed parallel_witness_reads partitions at once (one
// calculation runs on one thread). The memory is the witnesses' own, which the batch reserved: a
// client's file from circom or snarkjs is proven where it was read (witness.hpp); one whose
// values lie elsewhere holds its bytes beside their copy while it is read, uncounted. The backend
// takes each witness when it is ready for it (witness_stream.hpp): a batch starts on its first
// partitions while the last are read. Input JSON is computed there too, as many partitions at once
// as files are read: calculations of one circuit run side by side (circom_wasm.hpp), each on one
// thread. After a failure, or once the job is stopping, later partitions are not read.
// Each read is timed where it runs, as the job's witness phase and a witness span in the
// timeline; a read the job's stop interrupted adds nothing (a requeued job starts its times anew).
std::unique_ptr<witness_stream> job_run::read_witnesses(uint32_t first, uint32_t count,
                                                        std::shared_ptr<reads_ended> after) {
  const job_record& rec = j_->rec;
  bool calculations = false;
  for (uint32_t q = first; q < first + count && q < rec.input_json.size(); ++q) calculations |= rec.input_json[q];
  // The submit's checks of these files, where it still runs, take this read's word for them
  // (arriving_witnesses.hpp); the claims the reads leave, failed or never begun, go back to it
  // with the read function, once the stream's reads have ended.
  struct claims_back {
    claims_back(std::shared_ptr<arriving_witnesses> a, uint32_t f, uint32_t c) : arrival(std::move(a)), first(f), count(c) {
      if (arrival) arrival->job_reads(first, count);
    }
    claims_back(const claims_back&) = delete;
    claims_back& operator=(const claims_back&) = delete;
    ~claims_back() {
      if (arrival) arrival->job_reads_over(first, count);
    }
    std::shared_ptr<arriving_witnesses> arrival;
    uint32_t first, count;
  };
  auto claims = std::make_shared<claims_back>(j_->arrival, first, count);
  return std::make_unique<witness_stream>(
      count, calculations ? std::min<std::size_t>(count, parallel_witness_reads) : 1,
      [this, first, claims](std::size_t i) -> result<any_witness> {
        (void)claims;  // held for its destructor
        const uint32_t q = first + static_cast<uint32_t>(i);
        if (j_->cancel.cancelled())
          return status(errc::cancelled, "partition " + std::to_string(q) + ": not read: the job is stopping");
        // Caught here, not only by the stream, so that the message names the partition (the stream
        // knows only its place in the batch).
        taken_witness w{status(errc::internal, "partition " + std::to_string(q) + ": not read")};
        try {
          w = witness_of(q);
        } catch (const std::bad_alloc&) {
          w.witness = status(errc::resource_exhausted, "partition " + std::to_string(q) +
                                                           ": out of memory reading its witness (nVars = " +
                                                           std::to_string(j_->key.n_vars) + ")");
        }
        if (!j_->cancel.cancelled()) {
          std::lock_guard lk(e_.jobs_.mutex);
          info_.times[phase::witness] += w.calc_seconds;
        }
        return std::move(w.witness);
      },
      nullptr, std::move(after));
}

// Partition q's witness, read or computed here (a span on this worker's row) or, for input JSON,
// taken from the witness threads that computed it ahead (its span is theirs), with how long its
// read or calculation took wherever it ran: the job's witness phase.
taken_witness job_run::witness_of(uint32_t q) {
  auto here = [&](auto&& get) -> result<any_witness> {
    e_.event(*j_, event_kind::witness_start, q, worker_);
    auto w = get();
    e_.event(*j_, event_kind::witness_end, q, worker_);
    return w;
  };
  const job_record& rec = j_->rec;
  if (q < rec.input_json.size() && rec.input_json[q]) {
    taken_witness t = e_.ahead_.take(*j_, q, [&] { return here([&] { return witness_from_input(q); }); });
    if (--calculations_left_ == 0 && !later_calculations_) calculations_.done();
    return t;
  }
  const auto t0 = steady_clock::now();
  taken_witness t{here([&] { return witness_from_file(q); })};
  t.calc_seconds = seconds_since(t0);
  return t;
}

// Partition q's witness from its file, checked against witness_dirs again (what a client's path
// names may have changed since the submit).
result<any_witness> job_run::witness_from_file(uint32_t q) {
  const job_record& rec = j_->rec;
  // Sent inline and its submit still storing it: the request's bytes, not the file being written.
  if (j_->arrival)
    if (auto held = j_->arrival->read(q, j_->key)) return std::move(*held);
  const bool spooled = q < rec.spooled.size() && rec.spooled[q];
  auto file = open_witness(rec.witness_paths[q], spooled ? witness_origin::spooled : witness_origin::client_path,
                           e_.client_paths_.witnesses, j_->key);
  auto w = file ? read_witness(std::move(file).value(), j_->key) : result<any_witness>(file.error());
  if (j_->arrival && !spooled) j_->arrival->job_read_ended(q, w.is_ok());
  if (!w) return w.error().with_context("partition " + std::to_string(q));
  return w;
}

// The circuit's generator runs here: a failed assert or a missing signal fails this job, with
// circom's message. Bounded: the job's cancel (and the drain's) stops it, and so does
// witness_time_limit_s. Its working memory comes from the batch's calculation share
// (calculation_room.hpp) and goes back to it when the calculation returns, whatever it returned.
result<any_witness> job_run::witness_from_input(uint32_t q) {
  const std::string& path = j_->rec.witness_paths[q];
  const std::string what = engine::calculation_what(*j_, q);
  calculation_room room;
  if (j_->generator) {
    auto r = calculations_.take(*j_->generator, input_json_size(path), j_->cancel, what);
    if (!r) return r.error().with_context("partition " + std::to_string(q));
    room = std::move(r).value();
  }
  // Given back however the calculation ends (an allocation that throws included): a share kept
  // lent would hold up the job's other partitions.
  struct give_back_at_exit {
    calculation_share& share;
    calculation_room& room;
    ~give_back_at_exit() { share.give_back(room); }
  } back{calculations_, room};
  return input_partition_witness(j_->generator, path, q, j_->key, e_.opt_.witness_time_limit,
                                 [cancel = j_->cancel] { return cancel.cancelled(); }, room, what);
}

// The next batch planned now, and its witnesses read while this one proves when the host budget
// has room for one more witness beside this batch's (taken without waiting).
void job_run::read_ahead(const batch& cur, std::unique_ptr<batch>& next) {
  if (cur.first + cur.count >= info_.partitions) return;
  next = plan_batch(cur.first + cur.count);
  auto room = e_.memory_.host().acquire(
      witness_memory_bytes(j_->key), {&j_->cancel, std::chrono::milliseconds(0),
                                  "job " + std::to_string(info_.id) + ": the next partitions' witnesses, read ahead",
                                  false, nullptr});
  if (!room) return;
  next->prefetch = std::move(room).value();
  next->read = read_witnesses(next->first, next->count, cur.read->ended());
}

result<std::vector<any_proof>> job_run::prove_batch(batch& b) {
  // The CPU backend synthesizes inside its prove call: the state says proving for the whole
  // call, and the timeline places synthesis's end where the backend's own timing puts it.
  e_.set_state(*j_, job_state::proving);
  witness_stream& witnesses = *b.read;
  const uint32_t p = b.first, end = b.first + b.count;
  prove_report report;
  const int64_t call_us = now_unix_us();
  // Synthesis starts with the prove call; the witness reads before it have spans of their own.
  for (uint32_t q = p; q < end; ++q) e_.event(*j_, event_kind::synth_start, q, worker_, call_us);
  result<std::vector<any_proof>> made = std::vector<any_proof>{};
  if (b.count == 1) {
    auto one = e_.backend_->prove(*call_, *witnesses.wait(0).value(), j_->cancel, report);
    if (one)
      made->push_back(std::move(one).value());
    else
      made = one.error();
  } else {
    made = e_.backend_->prove_batch(*call_, witnesses, j_->cancel, report);
    if (made && made->size() != b.count)
      made = status(errc::internal, "the batch gave " + std::to_string(made->size()) + " proofs for " +
                                        std::to_string(b.count) + " witnesses");
  }
  // A witness whose read failed ended the batch (the backend asks for them in order, so the
  // first it was handed is the first in partition order): the job fails with that read's error,
  // as it would have before the batch began; the backend's own words go to the log.
  const status read_failure = made ? status::ok() : witnesses.handed_out_failure();
  if (!read_failure)
    e_.log(log_level::warn, "engine: job=" + std::to_string(info_.id) + " " + b.name() + ": the " +
                                e_.backend_->name() + " prover stopped: " + made.error().to_string());
  e_.telemetry_.kernels.record(slot_, worker_, info_.id, p, on_wall_clock(report.phases.kernel_spans));
  const double synthesis_s = report.phases.witness + report.phases.synthesis;
  const int64_t synth_end_us = call_us + static_cast<int64_t>(synthesis_s * 1e6);
  for (uint32_t q = p; q < end; ++q) {
    e_.event(*j_, event_kind::synth_end, q, worker_, synth_end_us);
    e_.event(*j_, event_kind::prove_start, q, worker_, synth_end_us);
    e_.event(*j_, event_kind::prove_end, q, worker_);
  }
  {
    std::lock_guard lk(e_.jobs_.mutex);
    add_proof_times(info_, report);
  }
  if (!read_failure) return read_failure;
  if (!made) return made.error().with_context(b.name() + ": " + e_.backend_->name() + " prover");
  return made;
}

job_run::step job_run::check_and_encode(batch& b, const std::vector<any_proof>& made) {
  for (uint32_t q = 0; q < b.count; ++q) {
    auto read = b.read->wait(q);  // every read has ended: the backend took each witness
    if (!read) return fail_unless_stopped(read.error());
    const any_witness& w = **read;
    const any_proof& proof = made[q];
    const uint32_t partition = b.first + q;
    if (e_.opt_.verify_proofs) {
      if (stop_if_asked() == step::ended) return step::ended;
      e_.set_state(*j_, job_state::verifying);
      e_.event(*j_, event_kind::verify_start, partition, worker_);
      const auto tv = steady_clock::now();
      const status v = verify_partition(lease_.key(), w, proof);
      {
        std::lock_guard lk(e_.jobs_.mutex);
        info_.times[phase::verify] += seconds_since(tv);
      }
      e_.event(*j_, event_kind::verify_end, partition, worker_);
      if (!v) {
        // A witness computed from input JSON by a wasm that is not the key's circuit's proves
        // nothing that verifies: registration can check only what the wasm and the key both
        // state (the prime and the wire count: docs/witness.md, "What registration checks").
        const bool from_input =
            partition < j_->rec.input_json.size() && j_->rec.input_json[partition] && j_->generator;
        if (from_input)
          return fail(
              status(errc::failed_precondition,
                     "partition " + std::to_string(partition) + ": the proof did not verify (" + v.message() +
                         "): most likely the witness that " + j_->generator->source() +
                         " computed does not satisfy the key's constraints: is it the wasm of the key's "
                         "circuit? (register the circuit again with --replace and its own wasm)"));
        return fail(status(errc::internal, "partition " + std::to_string(partition) + ": the " +
                                               e_.backend_->name() + " prover's proof did not verify: " +
                                               v.message()));
      }
    }
    auto enc = encode_partition(lease_.key(), w, proof);
    if (!enc) return fail(enc.error());
    proofs_.push_back(std::move(enc).value());
    e_.telemetry_.counters.add(info_.circuit, metrics::counter::partition);
  }
  return step::go_on;
}

job_run::step job_run::finish_done() {
  if (stop_if_asked() == step::ended) return step::ended;
  {
    std::lock_guard lk(e_.jobs_.mutex);
    info_.proofs = std::move(proofs_);
  }
  e_.finish(j_, job_state::done, status::ok());
  return step::ended;
}

}  // namespace cuzk::engine
