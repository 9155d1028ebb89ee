// SPDX-License-Identifier: MIT OR Apache-2.0
// Everything an engine is built from, with defaults. The service's config table maps its TOML keys
// onto these fields; the engine itself reads no files and no environment.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/backends/gpu_options.hpp"
#include "engine/jobs/scheduler.hpp"
#include "engine/keys/loaded_key.hpp"
#include "engine/keys/key_manager.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/key_vectors.hpp"
#include "groth16/synthesis_place.hpp"

namespace cuzk::engine {

enum class log_level { debug, info, warn, error };

// A daemon's part in a cluster on one PostgreSQL queue (docs/cluster.md).
struct cluster_options {
  // Unique among the daemons on the database; it holds this daemon's leases and names its spool
  // directory. Empty: the host's name and the process id.
  std::string node_name;
  // How long a claim lasts without a heartbeat; heartbeats come every third of it. A node that dies
  // loses its jobs to other nodes this long after its last heartbeat.
  std::chrono::milliseconds lease{30000};
  // How long a job may be passed over for one whose key this node holds resident; an older job is
  // claimed by any node in FIFO order.
  std::chrono::milliseconds key_preference{10000};
  // How often an idle node looks for claimable jobs without being woken: leases that ran out
  // announce nothing, and a notification may be lost with a connection.
  std::chrono::milliseconds poll{2000};
};

struct engine_options {
  // The SQLite job database; its directory must exist. Empty: jobs are kept in memory only and do
  // not survive a restart.
  std::string store_path;
  // A PostgreSQL connection string (pg_job_store.hpp). When set, the job store is that database and
  // store_path is not used.
  std::string database;
  // Where inline witnesses are spooled. Empty: store_path + ".spool" (or a directory under
  // /tmp when store_path is empty). With `database`, the root of the spools of every node: each
  // node spools into <spool_dir>/<node_name>, and another node reads those files when it takes a
  // job up, so the root must be storage every node mounts at the same path (docs/cluster.md).
  std::string spool_dir;
  // With `database`: how this daemon takes part in the cluster (cluster_member.hpp).
  cluster_options cluster;
  // Prover workers pulling from the scheduler, with the CPU backend (the GPU backend runs
  // gpu.workers_per_device per device slot instead).
  unsigned workers = 1;
  // Which prover the workers use (groth16/prover_choice.hpp): the CPU, the GPU (an error when no
  // CUDA device answers or the build has no GPU prover), or automatic: the GPU when a device
  // answers, else the CPU (and a log line says why).
  groth16::prover_kind backend = groth16::prover_kind::cpu;
  gpu_options gpu;
  tier_budgets budgets;
  // Host memory for proofs in flight: each job reserves its proof's working set (the backend's
  // memory_per_proof) before it starts, in dispatch order, and the pinned pool's buffers are held
  // in the same budget (memory_budget.hpp, pinned_pool.hpp). 0: 80% of the physical memory.
  uint64_t host_memory_budget = 0;
  scheduler_options scheduling;
  // Verify every proof before returning it.
  bool verify_proofs = true;
  // How long a finished job's result stays retrievable.
  std::chrono::seconds result_retention{24 * 3600};
  // The longest a witness from input JSON may compute (the circuit's wasm, natively) before its job
  // fails with deadline_exceeded: witness code that never ends for some input must not hold a
  // worker for good. Generous: the largest circom circuits take minutes.
  std::chrono::seconds witness_time_limit{600};
  // Threads that compute the input JSON witnesses of queued jobs ahead of the workers
  // (witness_ahead.hpp). -1: automatic, the cores the workers leave with the GPU backend (at least
  // one), one with the CPU backend, whose proofs use every core; 0: none, each worker computes its
  // job's witnesses when it takes the job.
  int witness_threads = -1;
  // A job interrupted this many times (the daemon died while proving it) fails instead of being
  // retried: a witness that crashes the prover must not crash it forever.
  uint32_t max_attempts = 3;
  // A queued job whose deadline has passed when a worker picks it fails (code deadline_exceeded)
  // instead of running (off: it runs and is reported as a miss).
  bool fail_expired_jobs = false;
  // Where keys are copied before they are mapped (loaded_key.hpp). A daemon sets it: it must own the
  // bytes it serves, since a mapped key that someone truncates kills the process with SIGBUS.
  // Empty: keys are mapped in place (a one-shot CLI run, whose user owns both file and process).
  std::string key_copy_dir;
  // Directories under which a client may name a witness by path (witness_dirs.hpp): its real path
  // must lie under one of them. Empty: every path is refused; inline witnesses still work.
  std::vector<std::string> witness_dirs;
  // Directories under which a client may register a key (zkey) or witness generator (wasm) by path,
  // by the same rule as witness_dirs. Empty: only the daemon's own user on its Unix socket registers
  // paths (anywhere), other clients are refused (key_origin in engine.hpp); keys the daemon's config
  // lists, and those restored from the store, are registered wherever they are.
  std::vector<std::string> key_dirs;
  // Where circuits' witness generators are compiled to and found again (wasm_compiler.hpp).
  // Empty: witness::default_witness_cache_dir().
  std::string witness_cache_dir;
  // How thoroughly a key's points are checked when it is loaded.
  point_check key_check = point_check::on_curve;
  // One line per event (job queued, job ended with its phase times, key loaded, recovery).
  // Unset: nothing is logged. Witnesses, r and s are never logged.
  std::function<void(log_level, const std::string&)> log;
};

}  // namespace cuzk::engine
