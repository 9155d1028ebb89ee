// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared job store: jobs, their partitions and results, and registered circuits in PostgreSQL.
//
// Chosen by the daemon's `database` key (a libpq connection string) instead of the embedded SQLite
// file, so that the queue lives in a server that several daemons can reach (docs/cluster.md). The
// daemon creates the schema and applies its migrations when it opens the store (pg_schema.hpp).
//
// Durability is the server's: a statement returns once its transaction is committed, and with
// PostgreSQL's defaults (synchronous_commit = on, fsync = on) that commit is on the server's disk, so
// a job acknowledged by submit() survives the daemon and the server losing power, as with SQLite's
// synchronous=FULL.
//
// A COMMIT whose reply never came (the connection broke during it) may have landed. insert() asks
// the server what became of its transaction before it answers, and says so when it cannot tell
// (job_store.hpp, insert_effect::outcome_unknown), so that the engine keeps the witnesses a stored
// row may name (docs/HARDENING.md, finding 34).
//
// Witness bytes stay out of the database: a partition row holds the path of its .wtns (spooled by
// the daemon, or given by the client) and, for an inline one, its digest. At PoRep scale a witness
// is gigabytes; docs/cluster.md gives the reasons and what it asks of the spool's storage.
//
// Schema (pg_schema.cpp): jobs(id identity, request_id UNIQUE, circuit, priority, state, partitions,
// attempts, submitted_ms, deadline_ms, finished_ms, error_code, error_message, deadline_missed,
// phase_seconds double[], ran_on, h2d_bytes), job_partitions(job_id, idx, witness_path, spooled,
// witness_digest, proof_json, public_json), circuits(id, zkey_path, priority), schema_version; from
// version 2 the jobs' lease columns and nodes, from version 3 their cancel flag, which only
// pg_job_leases.hpp reads and writes; from version 4 circuits.wasm_path and job_partitions.input_json
// (what SQLite's schema version 2 added).
//
// Thread safety: any thread; one connection guarded by a mutex, as the SQLite store.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "engine/jobs/job_store.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

class pg_job_store final : public job_store {
 public:
  // Connects with `conninfo` and migrates the schema to this build's version. unavailable when the
  // server cannot be reached; format_error, with nothing changed, for a database a newer cuzk
  // migrated.
  static result<std::unique_ptr<pg_job_store>> open(const std::string& conninfo);
  // The longest insert() waits for another transaction that holds its request id (an insert of the
  // same id not yet committed): past it, unavailable. A concurrent submit's commit takes
  // milliseconds; what this bounds is one whose COMMIT is stuck on the server.
  static constexpr int insert_lock_wait_ms = 5000;

  result<insert_outcome> insert(const job_record& rec) override;
  result<submit_fate> settle(const job_record& rec, const insert_outcome& unknown) override;
  status update_state(job_id id, job_state state, uint32_t attempts) override;
  status finish(const job_result& info) override;
  result<std::optional<job_record>> get(job_id id) override;
  result<std::optional<job_id>> find_request(const std::string& request_id) override;
  result<std::vector<job_record>> unfinished() override;
  result<std::vector<std::string>> purge_finished_before(wall_time cutoff) override;
  status put_circuit(const circuit_record& c) override;
  status remove(job_id id) override;
  status remove_circuit(const std::string& id) override;
  result<std::vector<circuit_record>> circuits() override;

 private:
  explicit pg_job_store(std::unique_ptr<pg_connection> c) : c_(std::move(c)) {}
  // After insert()'s COMMIT lost its reply: whether its transaction `xid`, which wrote `rec` as job
  // `id`, committed, asked for a few seconds (inserted; an error: not stored; outcome_unknown: the
  // server stayed out of reach, or the transaction was still in progress). `lk` holds m_, and is
  // let go between tries.
  result<insert_outcome> look_for_lost_commit(std::unique_lock<std::mutex>& lk, const job_record& rec, job_id id,
                                              const std::string& xid, const status& lost);
  // One look at what became of transaction `xid`, which wrote `rec` as job `id`: stored (committed,
  // and the row is rec's), not stored (aborted, or committed and the row another's), or unknown
  // (still in progress); `why` says why where it is not stored or unknown. An error where the
  // server did not answer (unavailable while it is out of reach).
  result<submit_fate> fate_of(const job_record& rec, job_id id, const std::string& xid, std::string& why);
  // Whether job `id` is rec's own row (its circuit, submit time, request id, partitions and first
  // witness path), not another's that took the same id.
  result<bool> row_is(const job_record& rec, job_id id);
  result<std::vector<job_record>> select_jobs(const char* what, const std::string& where,
                                              const std::vector<pg_param>& params);

  std::mutex m_;
  std::unique_ptr<pg_connection> c_;
};

}  // namespace cuzk::engine
