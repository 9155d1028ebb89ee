// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's API side: recovery, registration, await, cancel, status, drain (see
// engine.hpp). create() is engine_create.cpp, submit() engine_submit.cpp, the worker side
// engine_worker.cpp.
#include "engine/engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "engine/jobs/input_witness.hpp"
#include "engine/jobs/request_checks.hpp"
#include "engine/jobs/witness.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::engine {

namespace {

std::string witness_cache_of(const engine_options& o) {
  return o.witness_cache_dir.empty() ? witness::default_witness_cache_dir() : o.witness_cache_dir;
}

uint64_t process_rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<uint64_t>(resident) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// The host budget as configured, or 80% of the physical memory.
uint64_t host_budget_bytes(const engine_options& o) {
  if (o.host_memory_budget != 0) return o.host_memory_budget;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const uint64_t physical = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
                                                  : uint64_t{16} << 30;
  return physical / 5 * 4;
}

}  // namespace

engine::engine(engine_options opt, engine_parts parts, witness_spool spool, witness_dirs dirs,
               witness_dirs key_dirs)
    : opt_(std::move(opt)),
      backend_(std::move(parts.backend)),
      store_(std::move(parts.store)),
      hot_alloc_(std::move(parts.hot_allocator)),
      spool_(std::move(spool)),
      client_paths_{std::move(dirs), std::move(key_dirs)},
      memory_(host_budget_bytes(opt_), parts.devices.memory_limits),
      keys_(opt_.budgets, *hot_alloc_, opt_.key_check, std::move(parts.devices), &memory_, opt_.key_copy_dir),
      sched_(opt_.scheduling),
      pinned_(hot_alloc_, memory_.host(), pinned_pool_options{[this](const pool_event& e) { on_pool_event(e); }}),
      telemetry_(keys_.slots().size(), std::move(parts.gpu_monitor)),
      ahead_(witness_ahead_options{witness_threads_for(opt_.witness_threads, worker_count(), backend_->worker_slots().empty(),
                                                       std::max(1u, std::thread::hardware_concurrency()))},
             memory_.host(), [this] { return queued_with_input_json(); },
             [this](live_job& j, uint32_t q, const std::function<bool()>& stop, calculation_room& room) {
               return witness_computed_ahead(j, q, stop, room);
             },
             [](const live_job& j) { return witness_memory_bytes(j.key); },
             [this](const live_job& j, uint32_t q, uint64_t witness, refusal& why) {
               return spare_calculation_room(*j.generator, input_json_size(j.rec.witness_paths[q]), memory_.host(),
                                             calculation_what(j, q) + ", computed ahead", &why, witness);
             }) {
  backend_->attach_memory(memory_);
  // A key of tens of GiB takes seconds to copy even on every core: the operator sees it move.
  keys_.set_load_progress([this](const std::string& id, const char* step, uint64_t done, uint64_t total, double seconds) {
    char line[160];
    if (done < total)
      std::snprintf(line, sizeof line, " done_gib=%.1f of_gib=%.1f percent=%u seconds=%.1f",
                    static_cast<double>(done) / (1u << 30), static_cast<double>(total) / (1u << 30),
                    static_cast<unsigned>(done * 100 / total), seconds);
    else
      std::snprintf(line, sizeof line, " gib=%.2f seconds=%.3f", static_cast<double>(total) / (1u << 30), seconds);
    log(log_level::info, std::string("engine: key ") + (done < total ? "loading" : "step done") + " circuit=" + id +
                             " step=\"" + step + "\"" + line);
  });
  sched_.set_admission([this](work_batch& b, const worker_ref& by) { admit(b, by); });
  // A worker with a device slot counts a key as resident when its slot has a copy; a CPU worker
  // when the host has it.
  sched_.set_resident_predicate(
      [this](const std::string& c, int slot) { return slot < 0 ? keys_.resident(c) : keys_.resident_on(c, slot); });
}

engine::~engine() { drain(std::chrono::milliseconds(0)); }

void engine::log(log_level lv, const std::string& line) const {
  if (opt_.log) opt_.log(lv, line);
}

void engine::on_pool_event(const pool_event& e) {
  switch (e.kind) {
    case pool_event_kind::allocated:
      log(log_level::info, "engine: pinned buffer allocated circuit=" + e.circuit + " bytes=" + std::to_string(e.bytes) +
                               " seconds=" + std::to_string(e.seconds));
      break;
    case pool_event_kind::freed:
      log(log_level::info, "engine: pinned buffers freed buffers=" + std::to_string(e.buffers) +
                               " bytes=" + std::to_string(e.bytes));
      break;
    case pool_event_kind::fallback:
      log(log_level::warn, "engine: pinned pool could not serve circuit=" + e.circuit +
                               " bytes=" + std::to_string(e.bytes) + ": staging in pageable memory (" + e.reason + ")");
      break;
  }
}

void engine::event(live_job& j, event_kind k, uint32_t partition, int worker, int64_t unix_us) {
  const timeline_event e{j.rec.info.id, partition, k, worker, unix_us != 0 ? unix_us : now_unix_us()};
  {
    std::lock_guard lk(jobs_.mutex);
    j.events.push_back(e);
  }
  telemetry_.events.record(e);
}

void engine::set_state(live_job& j, job_state s) {
  uint32_t attempts;
  {
    std::lock_guard lk(jobs_.mutex);
    j.rec.info.state = s;
    attempts = j.rec.info.attempts;
  }
  // The store needs only the start of an attempt (to count it after a crash); the phases after it
  // are in memory. Each store write is an fsync'd commit: 2-3 ms on this machine, against ~45 ms
  // for a whole small proof, so writing every phase cost a quarter of the throughput.
  // A cluster's claim wrote the start already (job_source::record_start).
  if (s == job_state::loading_key) source_->record_start(j, attempts);
}

result<key_summary> engine::summary_as_registered(const circuit_record& c) {
  auto sum = read_key_summary(c.zkey_path);
  if (!sum) return sum;
  if (c.key_digest.empty()) {
    // A row stored before digests were kept: the file's key is taken as the one registered.
    circuit_record with = c;
    with.key_digest = sum->digest;
    if (const status st = store_->put_circuit(with); !st)
      log(log_level::warn, "engine: circuit=" + c.id + " key digest not stored: " + st.to_string());
  } else if (c.key_digest != sum->digest) {
    log(log_level::error, "engine: circuit=" + c.id + " zkey=" + c.zkey_path +
                              " changed since it was registered: digest " + c.key_digest + " registered, " +
                              sum->digest + " in the file now; its jobs fail until it is registered again "
                              "with --replace");
    sum->digest = c.key_digest;  // every load compares the file with this one, and fails
  }
  return sum;
}

status engine::recover() {
  // Circuits first, so that re-queued jobs find them.
  auto cs = store_->circuits();
  if (!cs) return cs.error();
  for (const auto& c : *cs) {
    auto sum = summary_as_registered(c);
    if (!sum) {
      log(log_level::error, "engine: circuit=" + c.id + " not restored: " + sum.error().to_string());
      continue;
    }
    circuit_info info{c.id, c.zkey_path, c.default_priority, *sum, {}, {}};
    if (!c.wasm_path.empty()) {
      // Found in the witness cache unless the wasm or the cache changed; a generator that no longer
      // loads leaves the circuit taking witnesses only, and its input JSON jobs fail saying so.
      auto gen = load_circuit_generator(c.wasm_path, *sum, witness_cache_of(opt_));
      if (gen) {
        info.wasm_path = c.wasm_path;
        info.generator = *gen;
      } else {
        log(log_level::error, "engine: circuit=" + c.id + " witness generator not restored: " + gen.error().to_string());
      }
    }
    circuits_.put(std::move(info));
    (void)keys_.add(c.id, c.zkey_path, *sum);
  }
  auto jobs = store_->unfinished();
  if (!jobs) return jobs.error();
  return source_->take_unfinished(std::move(*jobs));
}

std::size_t engine::worker_count() const {
  const std::size_t slots = backend_->worker_slots().size();
  return slots == 0 ? opt_.workers : slots;
}

void engine::enqueue(queued_job qj) {
  sched_.push(std::move(qj));
  ahead_.wake();
}

std::vector<std::shared_ptr<live_job>> engine::queued_with_input_json() const {
  const std::vector<queued_job> order = sched_.queued();
  std::vector<std::shared_ptr<live_job>> jobs;
  std::lock_guard lk(jobs_.mutex);
  for (const auto& qj : order) {
    auto it = jobs_.live.find(qj.id);
    // A circuit without its generator fails such partitions on the worker, saying why.
    if (it == jobs_.live.end() || is_terminal(it->second->rec.info.state) || !it->second->generator) continue;
    const auto& input_json = it->second->rec.input_json;
    if (std::find(input_json.begin(), input_json.end(), true) != input_json.end()) jobs.push_back(it->second);
  }
  return jobs;
}

std::string engine::calculation_what(const live_job& j, uint32_t q) {
  return "job " + std::to_string(j.rec.info.id) + " partition " + std::to_string(q) + " of circuit " + j.rec.info.circuit;
}

result<any_witness> engine::witness_computed_ahead(live_job& j, uint32_t q, const std::function<bool()>& stop,
                                                   calculation_room& room) {
  event(j, event_kind::witness_start, q, -1);
  auto w = input_partition_witness(j.generator, j.rec.witness_paths[q], q, j.key, opt_.witness_time_limit, stop, room,
                                   calculation_what(j, q) + ", computed ahead");
  event(j, event_kind::witness_end, q, -1);
  return w;
}

void engine::start_threads() {
  const std::vector<int> slots = backend_->worker_slots();
  workers_.resize(worker_count());
  for (std::size_t i = 0; i < slots.size(); ++i) workers_[i].device_slot = slots[i];
  for (std::size_t i = 0; i < workers_.size(); ++i)
    workers_[i].thread = std::thread([this, i] { worker_loop(static_cast<int>(i)); });
  // A round every quarter of the retention, at least every 30 s and at most every 100 ms.
  const auto period = std::clamp<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(opt_.result_retention) / 4,
      std::chrono::milliseconds(100), std::chrono::milliseconds(30000));
  housekeeper_.start(
      period, [this] { return jobs_.unstored.load() > 0 || unconfirmed_.pending(); },
      [this] { return housekeeping_round(); });
  ahead_.start();
  source_->start();
}

status engine::register_circuit(const std::string& id, const std::string& zkey_path,
                                priority default_priority, key_change change, const std::string& wasm_path,
                                key_origin origin) {
  CUZK_TRY(circuit_registry::check_id(id));
  CUZK_TRY(check_path_text("circuit " + id + ": zkey path", zkey_path));
  CUZK_TRY(check_path_text("circuit " + id + ": wasm path", wasm_path));
  // A path a client names is opened with the daemon's rights. The daemon's own user (on its Unix
  // socket) could open it anyway, so without key_dirs its paths go anywhere; every other client's,
  // and everyone's once key_dirs is set, only under key_dirs, refused in one message whether the
  // file is missing, elsewhere or not a regular file, so that a refusal tells nothing about what
  // exists (docs/HARDENING.md, finding 19).
  const bool confined = origin == key_origin::client || (origin == key_origin::local_owner && !client_paths_.keys.empty());
  if (confined) {
    for (const auto& [what, path] : {std::pair<const char*, const std::string&>{"zkey", zkey_path},
                                     std::pair<const char*, const std::string&>{"wasm", wasm_path}}) {
      if (path.empty()) continue;
      const std::string quoted = "circuit " + id + ": " + what + " path \"" + path + "\"";
      if (client_paths_.keys.empty())
        return status(errc::failed_precondition,
                      quoted + ": refused: key_dirs is empty in the daemon's config, so it registers a path "
                               "only from its own user on its Unix socket; set key_dirs to the folders of the "
                               "keys, or register over the socket as the daemon's user");
      if (!client_paths_.keys.allows_file(path))
        return status(errc::failed_precondition,
                      quoted + ": refused: the daemon registers a path sent over its API only when it names a "
                               "readable regular file under one of its key_dirs");
    }
  }
  auto sum = read_key_summary(zkey_path);
  if (!sum && confined) {
    // Under key_dirs, but not a key: said without quoting any of the file's bytes.
    log(log_level::warn, "engine: circuit " + id + " not registered: " + sum.error().to_string());
    return status(sum.error().code() == errc::unsupported ? errc::unsupported : errc::format_error,
                  "circuit " + id + ": zkey path \"" + zkey_path +
                      "\": not a Groth16 zkey of a supported curve (the daemon's log says why)");
  }
  if (!sum) return sum.error().with_context("circuit " + id);
  // Compiled outside the registration lock: the first compile of a large circuit takes a minute,
  // and submits of other circuits must not wait for it.
  generator_ptr generator;
  if (!wasm_path.empty()) {
    auto gen = load_circuit_generator(wasm_path, *sum, witness_cache_of(opt_));
    if (!gen) return gen.error().with_context("circuit " + id);
    generator = *gen;
  }
  std::unique_lock reg(registration_m_);
  const auto old = circuits_.find(id);
  // The same key again (a restart's config re-registering what the store restored, or a copy of
  // the file elsewhere) keeps the resident key and its users; only the priority and the path the
  // key is loaded from next may change.
  const bool same_key = old && old->key.digest == sum->digest;
  if (old && !same_key) {
    if (change != key_change::replace)
      return status(errc::already_exists, "circuit " + id + ": already registered with another key (" +
                                              old->zkey_path + ", " + old->key.digest + "; this one is " +
                                              zkey_path + ", " + sum->digest +
                                              "); ask to replace it to re-point the id");
    std::size_t n;
    {
      std::lock_guard lk(jobs_.mutex);
      n = jobs_.count_of_locked(id);
    }
    if (n > 0)
      return status(errc::failed_precondition, "circuit " + id + ": cannot replace its key while " +
                                                   std::to_string(n) +
                                                   " job(s) of it are queued or running; they were checked "
                                                   "against the current key");
  }
  if (!same_key || old->zkey_path != zkey_path) CUZK_TRY(keys_.add(id, zkey_path, *sum));
  if (status put = store_->put_circuit({id, zkey_path, default_priority, wasm_path, sum->digest}); !put)
    return hide_store(put);
  circuits_.put({id, zkey_path, default_priority, *sum, wasm_path, generator});
  if (old && !same_key)
    log(log_level::warn, "engine: circuit key replaced id=" + id + " old_zkey=" + old->zkey_path +
                             " old_digest=" + old->key.digest + " zkey=" + zkey_path +
                             " digest=" + sum->digest);
  log(log_level::info, "engine: circuit registered id=" + id + " zkey=" + zkey_path + " curve=" +
                           formats::curve_name(sum->curve) + " nVars=" + std::to_string(sum->n_vars) +
                           " domain=" + std::to_string(sum->domain_size) +
                           " bytes=" + std::to_string(sum->file_bytes) + " digest=" + sum->digest +
                           (wasm_path.empty() ? "" : " wasm=" + wasm_path));
  return status::ok();
}

status engine::unregister_circuit(const std::string& id) {
  std::unique_lock reg(registration_m_);
  {
    std::lock_guard lk(jobs_.mutex);
    job_id first = 0;
    if (jobs_.count_of_locked(id, &first) > 0)
      return status(errc::failed_precondition,
                    "circuit " + id + ": job " + std::to_string(first) + " still uses it");
  }
  CUZK_TRY(keys_.remove(id));
  CUZK_TRY(store_->remove_circuit(id));
  circuits_.erase(id);
  return status::ok();
}

std::vector<circuit_info> engine::list_circuits() const { return circuits_.list(); }

void engine::log_queued(const job_result& info, const std::string& extra) const {
  log(log_level::info, "engine: job queued id=" + std::to_string(info.id) + " circuit=" + info.circuit +
                           " priority=" + priority_name(info.prio) + " partitions=" + std::to_string(info.partitions) +
                           extra + (info.request_id.empty() ? "" : " request_id=" + info.request_id));
}

status engine::unknown_job(job_id id) const {
  return status(errc::not_found, "job " + std::to_string(id) +
                                     ": unknown (never submitted, or purged after the retention of " +
                                     std::to_string(opt_.result_retention.count()) + " s)");
}

result<job_result> engine::await(job_id id, std::chrono::milliseconds timeout) {
  const auto until = steady_clock::now() + timeout;
  {
    std::unique_lock lk(jobs_.mutex);
    for (;;) {
      auto it = jobs_.live.find(id);
      if (it == jobs_.live.end()) break;
      // After a drain nothing will run a job that is not on a worker: report it as it stands. An
      // ended job still here is one whose outcome the store has yet to take (finish()).
      const bool stalled = !accepting_ && it->second->worker < 0;
      const bool timed_out = timeout.count() < 0 || (timeout.count() > 0 && steady_clock::now() >= until);
      if (timed_out && it->second->parked && timeout.count() > 0) {
        // Ended, but its result waits for the store: not an answer a client may take as final. A
        // look without a wait (get()) sees the job as it stands, in its last running state.
        // The store's refusal names its database file (sqlite_job_store.cpp), which is no more the
        // client's business than the spool's paths are (docs/HARDENING.md, finding 15).
        const live_job& j = *it->second;
        return status(errc::unavailable, "job " + std::to_string(id) + ": ended " +
                                             job_state_name(j.parked->state) + ", and its result waits for the job store (" +
                                             hide_store(j.store_fault).to_string() +
                                             "); the daemon keeps trying to store it: await again");
      }
      if (stalled || is_terminal(it->second->rec.info.state) || timed_out) {
        job_result r = it->second->rec.info;
        return r;
      }
      if (timeout.count() == 0)
        jobs_.changed.wait(lk);
      else
        jobs_.changed.wait_until(lk, until);
    }
  }
  // Ended and stored, never issued, or (in a cluster) held by another node or queued in the database.
  const auto left = timeout.count() <= 0 ? timeout
                                         : std::max(std::chrono::milliseconds(1),
                                                    std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        until - steady_clock::now()));
  return source_->await_absent(id, left);
}

status engine::cancel(job_id id) {
  std::shared_ptr<live_job> j;
  {
    std::lock_guard lk(jobs_.mutex);
    auto it = jobs_.live.find(id);
    if (it != jobs_.live.end()) {
      if (is_terminal(it->second->rec.info.state))
        return status(errc::failed_precondition, "job " + std::to_string(id) + ": already " +
                                                     job_state_name(it->second->rec.info.state));
      if (it->second->parked)
        return status(errc::failed_precondition, "job " + std::to_string(id) + ": already " +
                                                     job_state_name(it->second->parked->state) +
                                                     " (its result waits for the job store)");
      j = it->second;
    }
  }
  // Ended, unknown, or (in a cluster) held elsewhere: its holder sees the cancel at its next heartbeat.
  if (!j) return source_->cancel_absent(id);
  j->cancel.request(cancel_reason::caller);
  memory_.host().wake_waiters();  // a job waiting for memory leaves now
  // Still queued: it never reaches a worker. Otherwise the worker ends it at its next boundary.
  if (sched_.remove(id)) finish(j, job_state::cancelled, status(errc::cancelled, "cancelled by the caller"));
  return status::ok();
}

status engine::preload(const std::string& circuit, tier_target target) {
  CUZK_TRY(circuit_registry::check_id(circuit));  // before the id is quoted (submit says why)
  if (!circuits_.find(circuit)) return status(errc::not_found, "circuit \"" + circuit + "\": not registered");
  const auto t0 = steady_clock::now();
  // A device preload of a large key takes minutes (its steps are logged as they end): its start too.
  log(log_level::info, "engine: key preload begins circuit=" + circuit + " tier=" + key_tier_name(target.tier) +
                           (target.tier != key_tier::device ? std::string()
                            : target.slot < 0           ? std::string(" slot=all")
                                                        : " slot=" + std::to_string(target.slot)));
  CUZK_TRY(keys_.preload(circuit, target));
  std::string tier;
  for (const auto& k : keys_.entries())
    if (k.circuit == circuit) tier = k.tier_name;
  log(log_level::info,
      "engine: key preloaded circuit=" + circuit + " tier=" + tier +
          " seconds=" + std::to_string(std::chrono::duration<double>(steady_clock::now() - t0).count()));
  if (target.tier == key_tier::device) prewarm_staging(circuit);
  return status::ok();
}

void engine::prewarm_staging(const std::string& circuit) {
  const auto c = circuits_.find(circuit);
  if (!c) return;
  const uint64_t bytes = backend_->memory_per_proof(c->key).pinned;
  if (bytes == 0) return;  // the backend stages nothing in pinned buffers
  // Every worker on a slot that holds the key now, not only the preloaded one's: the pool counts
  // idle buffers whichever slot they were made for, and those workers prove at the same time.
  uint32_t workers = 0;
  for (int s : backend_->worker_slots()) workers += (s >= 0 && keys_.resident_on(circuit, s)) ? 1 : 0;
  if (workers == 0) return;
  const auto t0 = steady_clock::now();
  pinned_.set_capacity_hint(circuit, bytes);
  const status s = pinned_.prewarm(circuit, workers);
  const std::string secs = std::to_string(std::chrono::duration<double>(steady_clock::now() - t0).count());
  // Not an error for the preload: a job's first proof allocates what is missing, as it did before.
  if (!s)
    log(log_level::warn, "engine: pinned staging not made at preload circuit=" + circuit +
                             " buffers=" + std::to_string(workers) + " bytes=" + std::to_string(bytes) +
                             " error=\"" + s.to_string() + "\"");
  else
    log(log_level::info, "engine: pinned staging ready circuit=" + circuit +
                             " buffers=" + std::to_string(workers) + " bytes=" + std::to_string(bytes) +
                             " seconds=" + secs);
}

status engine::evict(const std::string& circuit, tier_target target) {
  CUZK_TRY(circuit_registry::check_id(circuit));  // before the id is quoted (submit says why)
  if (!circuits_.find(circuit)) return status(errc::not_found, "circuit \"" + circuit + "\": not registered");
  return keys_.evict(circuit, target);
}

engine_snapshot engine::snapshot() const {
  engine_snapshot s;
  s.started_at = telemetry_.started_at;
  s.uptime_s = std::chrono::duration<double>(wall_clock::now() - telemetry_.started_at).count();
  s.accepting = accepting_;
  s.backend = backend_->name();
  s.device_tiers = keys_.slots();
  s.devices = backend_->activity();
  s.memory_budgets = memory_.snapshot();
  s.pinned_pool = pinned_.snapshot();
  {
    std::lock_guard lk(jobs_.mutex);
    for (const auto& [id, j] : jobs_.live) {
      live_job_status ls;
      ls.info = j->rec.info;
      ls.events = j->events;
      ls.worker = j->worker;
      s.jobs.push_back(std::move(ls));
    }
    s.recent_jobs.assign(jobs_.recent.begin(), jobs_.recent.end());
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      const auto& w = workers_[i];
      worker_status ws;
      ws.index = static_cast<int>(i);
      ws.device = w.device_slot < 0 ? "cpu" : s.device_tiers.at(w.device_slot).name;
      ws.busy = w.busy;
      ws.job = w.job;
      ws.partition = w.partition;
      auto it = jobs_.live.find(w.job);
      if (w.busy && it != jobs_.live.end()) ws.state = it->second->rec.info.state;
      ws.busy_seconds = w.busy_seconds;
      ws.jobs = w.jobs;
      s.workers.push_back(ws);
    }
  }
  s.witnesses_ahead = ahead_.snapshot();
  s.queue_depth = sched_.depth();
  s.routed_to_key_slot = sched_.handoffs();
  s.keys = keys_.entries();
  s.tiers = keys_.tiers();
  s.rss_bytes = process_rss_bytes();
  s.telemetry = telemetry_.devices(s.devices);
  s.counters = telemetry_.counters.snapshot();
  return s;
}

std::string engine::chrome_trace() const {
  const auto ev = telemetry_.events.recent();
  const auto kernels = telemetry_.kernels.recent();
  const auto slots = keys_.slots();
  const auto activity = backend_->activity();
  std::vector<std::string> lanes;
  for (std::size_t k = 0; k < slots.size(); ++k)
    lanes.push_back(slots[k].name + (k < activity.size() && !activity[k].description.empty()
                                         ? " (" + activity[k].description + ")"
                                         : ""));
  return chrome_trace_json(ev, kernels, lanes);
}

void engine::drain(std::chrono::milliseconds grace) {
  std::call_once(drained_, [&] { run_drain(grace); });
}

void engine::run_drain(std::chrono::milliseconds grace) {
  accepting_ = false;
  // No new claims from here; what this node claimed and has not started goes back to the queue.
  source_->stop_taking();
  sched_.close();
  ahead_.stop();  // queued jobs wait for the next start; their witnesses are computed then
  source_->release_unstarted();
  // Let running jobs end on their own for up to `grace`.
  {
    std::unique_lock lk(jobs_.mutex);
    const auto until = steady_clock::now() + grace;
    jobs_.changed.wait_until(lk, until, [&] {
      for (const auto& w : workers_)
        if (w.busy) return false;
      return true;
    });
    for (auto& [id, j] : jobs_.live)
      if (j->worker >= 0) j->cancel.request(cancel_reason::shutdown);
  }
  memory_.host().wake_waiters();  // a job waiting for memory (worker set by admit()) leaves now
  for (auto& w : workers_)
    if (w.thread.joinable()) w.thread.join();
  housekeeper_.stop();
  retry_unstored();  // a last try; what is still refused is proved again after the restart
  source_->release_unstarted();  // those a drain abandoned, and any a worker had not reached
  source_->stop();  // the heartbeat last but one: running jobs kept their leases until here
  jobs_.changed.notify_all();  // awaiters of jobs that will not run now
  std::size_t queued = 0;
  {
    std::lock_guard lk(jobs_.mutex);
    queued = jobs_.live.size();
  }
  log(log_level::info, "engine: drained; jobs_left_queued=" + std::to_string(queued));
}

}  // namespace cuzk::engine
