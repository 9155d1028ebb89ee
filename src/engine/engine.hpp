// SPDX-License-Identifier: MIT OR Apache-2.0
// The proving engine: the daemon's core, without networking.
//
// A request's path reads straight through:
//   submit()  validate (circuit known, each witness a .wtns for the key's curve with nVars values,
//             all < r) -> spool inline witnesses -> job store (durable) -> scheduler
//   dispatch  scheduler::next(), in priority order -> admit(): the proof's working set reserved
//             from the host memory budget (waiting there, in the same order, when it is full)
//   worker    key_manager::acquire (key resident and leased, on the worker's
//             device slot too with the GPU backend, its copy reserved in that device's memory
//             budget) -> per batch of partitions (one, unless the backend batches: a GPU key
//             streamed from host memory; the batch's witnesses reserved in the host budget):
//             the witnesses read on threads of their own (witness_stream.hpp; input JSON:
//             computed by the circuit's generator, input_witness.hpp) while the backend proves,
//             taking each as its read ends (a GPU worker reserves its device buffers in the
//             same budget before it allocates them), verify each -> result stored -> await()
//             returns
// with a cancel check at every phase boundary. A job's steps on a worker are job_run.hpp's. Where
// jobs come from, and where their lives are written, is the job_source (job_source.hpp): this
// daemon alone (local_job_source.hpp) or its part in a cluster (cluster_member.hpp); submit, await,
// cancel and the recovery at start call it where the two differ.
//
// Threads. Any thread may call the public methods (the service's RPC threads do). Each worker
// thread (options.workers with the CPU backend; the GPU backend's workers_per_device per device
// slot) loops over scheduler::next() and owns the job it runs; one housekeeping thread
// (housekeeper.hpp) purges results past their retention and stores the results the store refused
// before (a full disk: the job fails at once in memory, so await() returns, and is kept with its
// witnesses until the store takes that outcome). Locks, outermost first: registration
// (registration_m_), the engine's job table (jobs_.mutex, job_table.hpp), then the scheduler's,
// the key manager's, the store's; none is held while a key loads or a proof runs.
// RPC threads never touch a loaded key or a backend.
//
// What persists (in the job store): every job from the moment submit() returns, the start of each
// attempt (state loading_key and the attempt count; later phases are in memory only), its result
// until the retention passes; registered circuits. A restart (or a crash, kill -9)
// re-queues every job that had not ended, in its original order, and re-registers the circuits;
// a job whose end the store could not take before the stop is stored with the outcome the spool
// kept for it instead (jobs/parked_result.hpp). Timelines and metrics are in memory.
//
// drain() is for SIGTERM: submit() starts refusing, no new work is dispatched, running jobs finish
// within the grace period or are abandoned at their next phase boundary and go back to the queue
// in the store, so the next start proves them.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "engine/backends/prover_backend.hpp"
#include "engine/engine_options.hpp"
#include "engine/housekeeper.hpp"
#include "engine/job_table.hpp"
#include "engine/job_source.hpp"
#include "engine/live_job.hpp"
#include "engine/jobs/arriving_witnesses.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/job_store.hpp"
#include "engine/jobs/scheduler.hpp"
#include "engine/jobs/witness_dirs.hpp"
#include "engine/jobs/witness_spool.hpp"
#include "engine/keys/circuit_registry.hpp"
#include "engine/keys/key_manager.hpp"
#include "engine/memory/host_allocator.hpp"
#include "engine/memory/memory_budget.hpp"
#include "engine/memory/pinned_pool.hpp"
#include "engine/telemetry/device_telemetry.hpp"
#include "engine/telemetry/engine_telemetry.hpp"
#include "engine/telemetry/gpu_utilization.hpp"
#include "engine/telemetry/kernel_activity.hpp"
#include "engine/telemetry/metrics.hpp"
#include "engine/telemetry/timeline.hpp"
#include "engine/unconfirmed_submits.hpp"
#include "engine/witness_ahead.hpp"

namespace cuzk::engine {

// How many witness files one batch, or one submit's checks, reads at once.
inline constexpr std::size_t parallel_witness_reads = 4;

struct worker_status {
  int index = 0;
  std::string device;  // the slot it proves on ("device:0"), or "cpu"
  bool busy = false;
  job_id job = 0;
  uint32_t partition = 0;
  job_state state = job_state::queued;
  double busy_seconds = 0;  // time spent inside jobs since start
  uint64_t jobs = 0;        // jobs run to an end
};

struct live_job_status {
  job_result info;  // without proofs
  std::vector<timeline_event> events;
  int worker = -1;
};

struct engine_snapshot {
  wall_time started_at{};
  double uptime_s = 0;
  bool accepting = true;
  std::string backend;
  // Queued and running, and ended ones whose outcome the store has not taken yet; in id order.
  std::vector<live_job_status> jobs;
  // The last recent_jobs_kept jobs that ended (proofs left out), newest first: what a person
  // looking at the status page wants to see after the store took them out of `jobs`.
  std::vector<job_result> recent_jobs;
  std::array<std::size_t, priority_count> queue_depth{};
  uint64_t routed_to_key_slot = 0;  // batches handed to the worker whose device slot held the key
  std::vector<worker_status> workers;
  witness_ahead_snapshot witnesses_ahead;  // input JSON witnesses computed ahead of the workers
  std::vector<key_entry_status> keys;
  std::array<key_tier_status, 4> tiers;
  std::vector<key_slot_status> device_tiers;  // the device tier per slot
  std::vector<device_activity> devices;       // the backend's work per slot
  std::vector<budget_snapshot> memory_budgets;  // the host's (proofs in flight, pinned pool)
  pinned_pool_snapshot pinned_pool;
  uint64_t rss_bytes = 0;  // the process's resident set
  device_telemetry telemetry;  // kernel busy per slot, NVML, peak RSS
  metrics_snapshot counters;
};

// What create() may be given instead of what the options describe (tests).
struct engine_parts {
  // Default: select_backend(options) with its device tier and hot allocator.
  std::unique_ptr<prover_backend> backend;
  std::shared_ptr<job_store> store;               // default: options.database, else store_path
  std::shared_ptr<host_allocator> hot_allocator;  // default: the backend's, else pageable_allocator
  // With a given backend: its device slots and uploader (backend->worker_slots() index them).
  device_tier devices;
  // Default: with device slots, an NVML monitor (gpu_utilization.hpp); without, none.
  std::unique_ptr<gpu_utilization_monitor> gpu_monitor;
};

// What register_circuit() does when the id is registered with another key.
enum class key_change : uint8_t { refuse, replace };
// Who names a key's paths: the operator (the config, the store's own record), whose paths are
// opened wherever they are; a client on the daemon's Unix socket, which only the daemon's own user
// and root can connect to (`local_owner`); or any other client (TCP `listen`). With key_dirs set,
// both kinds of client must name paths under it; with key_dirs empty, only `local_owner` may name
// paths, wherever they are (docs/HARDENING.md, finding 19).
enum class key_origin : uint8_t { operator_config, local_owner, client };

class engine {
 public:
  // Opens the store, re-registers its circuits, re-queues unfinished jobs, starts the workers.
  static result<std::unique_ptr<engine>> create(engine_options opt, engine_parts parts = {});
  // drain(0) and join.
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // Registers (or re-registers) a circuit: the zkey's header is read and checked now; the key is
  // loaded on first use or preload(). Registering the same id and key again (the same
  // key_summary::digest, i.e. the same verification key) is a no-op apart from the priority and
  // the path. Another key for a registered id is refused (already_exists) unless `change` is
  // replace, and replacing is refused (failed_precondition, with the count) while jobs of the id
  // are queued or running: they were checked against the old key and their proofs must verify
  // under it. Errors name the file (not a zkey, wrong protocol, unknown curve) or the id.
  // With `wasm_path` (circom's witness .wasm) the circuit also takes input JSON: the wasm is
  // compiled now (or found in the witness cache), before any lock is taken, and checked against the
  // key (input_witness.hpp); a registration without one leaves the circuit taking witnesses only.
  // A client's paths are confined by key_origin's rule: a confined path is registered only as a
  // regular file under key_dirs, every refusal, a missing file's too, is one failed_precondition
  // message naming key_dirs, and a file there that is not a zkey is named without any of its bytes
  // (docs/HARDENING.md, finding 19).
  status register_circuit(const std::string& id, const std::string& zkey_path,
                          priority default_priority = priority::normal,
                          key_change change = key_change::refuse, const std::string& wasm_path = {},
                          key_origin origin = key_origin::operator_config);
  // Refused (failed_precondition) while jobs of the circuit are queued or running.
  status unregister_circuit(const std::string& id);
  std::vector<circuit_info> list_circuits() const;

  // Queues a job; returns its id once it is durable. A request_id already used returns that job's
  // id (the circuit must match). Errors: unavailable (draining), not_found (unknown circuit),
  // already_exists (the request id names a job of another circuit), invalid_argument (no
  // partitions, a partition with neither or both of bytes and path, input JSON that is too large
  // or that circom's input rules refuse), failed_precondition (input JSON for a circuit registered
  // without a witness generator), a witness that is not a
  // .wtns, of another curve, of the wrong length or with a value >= r ("partition 2: ..."; the
  // witness reader's code), io_error (spooling it). Each refusal is counted by its reject_reason.
  result<job_id> submit(job_request req);
  // The job's result once it ends, or its current state when `timeout` passes first (0: wait for
  // the end). Error: not_found for an id never issued, or purged after the retention period.
  result<job_result> await(job_id id, std::chrono::milliseconds timeout);
  // The job now, without waiting.
  result<job_result> get(job_id id) { return await(id, std::chrono::milliseconds(-1)); }
  // A queued job is removed and ends cancelled now; a running one ends cancelled at its next phase
  // boundary (await() to see it); either way its result's error has the code `cancelled`. Errors:
  // not_found (unknown id), failed_precondition (the job already ended).
  status cancel(job_id id);

  // Moves a circuit's key up or down (key_manager::preload/evict say what each target means).
  // Errors: not_found (unknown circuit), resource_exhausted (the tier's budget cannot take the key),
  // failed_precondition (evicting a key in use), unsupported (the device tier without devices).
  // A preload to the device tier also makes one pinned staging buffer per worker proving the key
  // (the backend's memory_per_proof().pinned, from free room in the host budget): pinning costs
  // 0.06-0.3 s per GiB, which a job's first proof paid before (docs/gpu/proof.md, 'Pinned staging').
  status preload(const std::string& circuit, tier_target target = key_tier::hot);
  status evict(const std::string& circuit, tier_target target = key_tier::cold);
  // A tier as the API names it: "cold", "warm", "hot", "device" (every slot) or a slot's name.
  result<tier_target> parse_tier(const std::string& name) const { return keys_.parse_target(name); }

  engine_snapshot snapshot() const;
  // The most recent events of every job (a bounded ring), oldest first.
  std::vector<timeline_event> recent_events() const { return telemetry_.events.recent(); }
  // The same as a Chrome trace, with a lane per device slot for its kernel-lock intervals.
  std::string chrome_trace() const;

  // Stops accepting, stops dispatching, lets running jobs finish for up to `grace`, then abandons
  // them at their next phase boundary (they return to the queue in the store); joins the workers.
  // Idempotent.
  void drain(std::chrono::milliseconds grace);
  bool accepting() const noexcept { return accepting_.load(); }

 private:
  // A job's steps on a worker use the engine's state under its locks, as the worker loop does.
  friend class job_run;
  // The two job sources (job_source.hpp) queue, end and look up jobs in the engine's table.
  friend class local_job_source;
  friend class cluster_member;

  struct worker_slot {
    std::thread thread;
    int device_slot = -1;  // the device slot it proves on; -1: none
    bool busy = false;
    job_id job = 0;
    uint32_t partition = 0;
    double busy_seconds = 0;
    uint64_t jobs = 0;
  };

  engine(engine_options opt, engine_parts parts, witness_spool spool, witness_dirs dirs, witness_dirs key_dirs);
  status recover();
  // The key summary of a circuit the store holds, as it was registered: the file's sizes with the
  // digest stored then, so that a file overwritten since fails every load naming both digests
  // (docs/HARDENING.md, finding 21). A row from before digests were kept takes the file's, stored.
  result<key_summary> summary_as_registered(const circuit_record& c);
  void start_threads();
  void log(log_level lv, const std::string& line) const;
  void on_pool_event(const pool_event& e);
  void event(live_job& j, event_kind k, uint32_t partition, int worker, int64_t unix_us = 0);
  void set_state(live_job& j, job_state s);
  // One pinned staging buffer per worker on a slot that holds the circuit's key, made at preload.
  void prewarm_staging(const std::string& circuit);
  // check_partitions() (jobs/request_checks.hpp) with this engine's witness_dirs, its host budget's
  // room for parallel reads and the circuit's generator; `why` is the refusal's reason.
  // `paths`: false leaves the files named by path to check_paths_while_proving().
  status check_request(const job_request& req, const circuit_info& c, bool paths, reject_reason& why);
  // check_witness_paths_from_last() (jobs/request_checks.hpp) for a job already queued: one file at
  // a time, with no room taken from the host budget, which the job's own witnesses need now, and
  // none read that the job's own reads have passed (`arrival`).
  status check_paths_while_proving(const job_request& req, const key_summary& key, arriving_witnesses& arrival) const;
  // Each partition's witness into rec: a path as it is, inline bytes written to the spool, or only
  // begun there (witness_spool::begin; with their partitions' indexes) with `begun`, for the caller
  // to complete once the job is queued.
  status spool_inline(const job_request& req, job_record& rec, begun_files* begun);
  void discard_spooled(const job_record& rec);
  // A submit's files: rec's spooled witnesses and the ones only begun for it.
  void discard_submitted_files(const job_record& rec, const begun_files& begun);
  // Counts and logs a refused submit; returns `s`.
  status reject(reject_reason why, status s);
  // The log line of a job queued (`extra`: what the source adds, " cluster=1").
  void log_queued(const job_result& info, const std::string& extra) const;
  // not_found for a job neither in the table nor in the store.
  status unknown_job(job_id id) const;
  // A submit's new job, of circuit `c`, not yet stored.
  std::shared_ptr<live_job> new_job(const job_request& req, const circuit_info& c) const;
  // A submit under a request id the store knows as `existing`: that job's id for a retry of the same
  // request, 0 to prove it anew (it failed only because the store refused its result), else why not.
  result<job_id> same_request(const job_request& req, job_id existing);
  // The answer to a submit whose job the store may or may not have stored (insert_effect::
  // outcome_unknown): unavailable, asking for a retry under the same request id; its spooled
  // witnesses (and begun files) stay until the store can say (unconfirmed_).
  status unconfirmed_submit(const job_request& req, const job_record& rec, const insert_outcome& ins,
                            const begun_files& begun);
  // How `req` differs from the job stored under its request id ("of circuit x, not y"); empty: not.
  static std::string request_conflict(const job_request& req, const job_record& stored);
  // A submit that queued its job before its witnesses were stored and checked, and could not store
  // them or refused one (`refusal`, what the submit answers): the job is taken out of the store,
  // the queue (or dropped at its end) and the spool.
  void withdraw(const std::shared_ptr<live_job>& j, const begun_files& files,
                status refusal = status::ok()) noexcept;
  // `s` without the spool's paths: the client hears why, not where (docs/HARDENING.md, finding 15).
  status hide_spool(const status& s) const;
  // `s` with the SQLite job database's path (its errors begin with it) named "the job database".
  status hide_store(const status& s) const;

  // Worker side (engine_worker.cpp; a job's own steps are job_run.cpp).
  // The scheduler's admission step: reserves the batch's working set, drops refused jobs.
  void admit(work_batch& batch, const worker_ref& by);
  // One witness calculation's memory for the batch's input JSON partitions (their largest input),
  // reserved by admit() with the working set; 0 where the batch has none or `first` no generator.
  uint64_t calculation_share_for(const work_batch& batch, const live_job& first);
  void worker_loop(int index);
  // Each job of the batch through its steps (job_run.hpp), one after another.
  void run_batch(int index, const work_batch& batch);
  // How many of `files` witness files of up to `file_bytes` each a submit's checks may read at
  // once: parallel_witness_reads where the host budget has room now for the files beyond the one
  // a read always holds (taken without waiting or evicting, into `room`), one otherwise. (A
  // worker's reads need no room of their own: the files are the batch's witnesses, which it has
  // reserved, proven where they were read.)
  std::size_t witness_reads_at_once(std::size_t files, uint64_t file_bytes, const cancel_token* cancel,
                                    const std::string& purpose, reservation& room);
  void finish(const std::shared_ptr<live_job>& j, job_state end, status error);
  // Commits `ended` (a terminal outcome of j) and publishes it; parks it when the store is out of
  // reach (live_job::parked). For finish() and retry_unstored().
  void store_end(const std::shared_ptr<live_job>& j, job_result ended);
  // Makes `ended` j's visible outcome: metrics, the log line, awaiters woken, and j out of the job
  // table when `stored` (else it stays, failed, for retry_unstored()).
  void publish_end(const std::shared_ptr<live_job>& j, job_result ended, bool stored);
  void requeue_in_store(const std::shared_ptr<live_job>& j);
  // Queues a job for the workers, and tells the witness threads.
  void enqueue(queued_job qj);
  // The queued jobs with input JSON partitions, in dispatch order (for ahead_).
  std::vector<std::shared_ptr<live_job>> queued_with_input_json() const;
  // Partition q of a queued job, on a witness thread: a span on the timeline's queue row.
  result<any_witness> witness_computed_ahead(live_job& j, uint32_t q, const std::function<bool()>& stop,
                                             calculation_room& room);
  // "job 7 partition 0 of circuit matrix": a calculation's memory in the budget's messages.
  static std::string calculation_what(const live_job& j, uint32_t q);
  // The prover workers: one per device slot with the GPU backend, options.workers with the CPU's.
  std::size_t worker_count() const;
  // Stores the outcomes the store refused before, oldest first, until one is refused again; each
  // stored one leaves the job table and its spooled witnesses are deleted. Housekeeping and drain()
  // call it; false while the store still refuses.
  bool retry_unstored();
  // housekeeper_'s round: retry_unstored(), the submits of unknown outcome asked about again
  // (unconfirmed_), then the results past their retention purged; false while either waits.
  bool housekeeping_round();
  // drain()'s work, run once (drained_).
  void run_drain(std::chrono::milliseconds grace);

  const engine_options opt_;
  std::unique_ptr<prover_backend> backend_;
  std::shared_ptr<job_store> store_;
  std::shared_ptr<host_allocator> hot_alloc_;
  witness_spool spool_;
  // Where a client may name files by path (witness_dirs.hpp): witnesses it sends by path, and the
  // keys and wasm it registers.
  struct path_rules {
    witness_dirs witnesses;
    witness_dirs keys;
  };
  const path_rules client_paths_;
  circuit_registry circuits_;
  memory_budgets memory_;  // before keys_ and pinned_, which hold reservations of it
  key_manager keys_;
  scheduler sched_;
  pinned_pool pinned_;
  engine_telemetry telemetry_;  // after keys_: a kernel lane per device slot

  // Registration against submission: submit() holds it shared from finding the circuit until its
  // job is in the job table, register_circuit() and unregister_circuit() exclusively, so a key is
  // never replaced between a job's check against it and the job's entry in the count of its users.
  // Outermost of the engine's locks.
  std::shared_mutex registration_m_;
  job_table jobs_;
  std::vector<worker_slot> workers_;  // their status fields under jobs_.mutex
  std::atomic<bool> accepting_{true};
  // drain() runs once; a second call waits for the first to end.
  std::once_flag drained_;
  // Submits the store could not confirm, whose files wait for its answer (housekeeping_round);
  // before housekeeper_, whose thread settles them.
  unconfirmed_submits unconfirmed_;
  housekeeper housekeeper_;
  // Input JSON witnesses of queued jobs, computed ahead of the workers; after the job table and the
  // scheduler, which its threads read, so that it stops first.
  witness_ahead ahead_;

  // Where jobs come from and where their lives are written: this daemon alone, or its part in a
  // cluster (job_source.hpp).
  std::unique_ptr<job_source> source_;
};

}  // namespace cuzk::engine
