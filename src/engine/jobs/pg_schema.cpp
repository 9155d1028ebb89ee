// SPDX-License-Identifier: MIT OR Apache-2.0
// The PostgreSQL schema's migrations (see pg_schema.hpp).
#include "engine/jobs/pg_schema.hpp"

#include <string>

namespace cuzk::engine {

namespace {

// The advisory lock key that serializes migrations: any fixed number the database's other users
// do not take ("cuzk" in ASCII).
constexpr const char* migration_lock = "SELECT pg_advisory_xact_lock(1668643435)";

// Version N is migrations[N - 1]. Append only.
//
// 1: jobs, one row per partition (its witness and, once done, its proof) and registered circuits.
//    A job's id is an identity column: increasing in submission order, never reused after a purge,
//    so FIFO by id holds across restarts. Witness bytes are not here, only their paths (docs/cluster.md
//    says why). States 5, 6, 7 are the terminal ones (job.hpp); the partial index keeps the
//    unfinished jobs, the few a daemon scans at start, cheap to find among the retained results.
const char* const migrations[] = {
    R"sql(
CREATE TABLE jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id text UNIQUE,
  circuit text NOT NULL,
  priority smallint NOT NULL,
  state smallint NOT NULL,
  partitions integer NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  submitted_ms bigint NOT NULL,
  deadline_ms bigint,
  finished_ms bigint,
  error_code integer NOT NULL DEFAULT 0,
  error_message text NOT NULL DEFAULT '',
  deadline_missed boolean NOT NULL DEFAULT false,
  phase_seconds double precision[] NOT NULL DEFAULT '{}',
  ran_on text NOT NULL DEFAULT '',
  h2d_bytes double precision NOT NULL DEFAULT 0
);
CREATE INDEX jobs_unfinished ON jobs (id) WHERE state NOT IN (5, 6, 7);
CREATE INDEX jobs_by_finished ON jobs (finished_ms) WHERE finished_ms IS NOT NULL;
CREATE TABLE job_partitions (
  job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  idx integer NOT NULL,
  witness_path text NOT NULL,
  spooled boolean NOT NULL,
  witness_digest text NOT NULL DEFAULT '',
  proof_json text,
  public_json text,
  PRIMARY KEY (job_id, idx)
);
CREATE TABLE circuits (
  id text PRIMARY KEY,
  zkey_path text NOT NULL,
  priority smallint NOT NULL
);
)sql",
    // 2: claims across daemons (pg_job_leases.hpp). A claimed job names the node that holds it, the
    //    lease's end by the server's clock, and a generation that every claim increments: the fencing
    //    token a result's commit must still match. The claim index is the claim's order (priority
    //    class first, then FIFO) over the unfinished jobs only. nodes: each daemon's last heartbeat.
    R"sql(
ALTER TABLE jobs
  ADD COLUMN lease_node text,
  ADD COLUMN lease_generation bigint NOT NULL DEFAULT 0,
  ADD COLUMN lease_expires_at timestamptz;
CREATE INDEX jobs_claim_order ON jobs (priority DESC, id) WHERE state NOT IN (5, 6, 7);
CREATE TABLE nodes (
  id text PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL
);
)sql",
    // 3: a cancel asked of a job another node holds (pg_job_leases::request_cancel); its holder reads
    //    the flag with its heartbeat.
    R"sql(
ALTER TABLE jobs ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
)sql",
    // 4: what SQLite's schema version 2 added: a circuit's witness generator (circom's .wasm; '' for
    //    none) and whether a partition's file is a circom input JSON, its witness computed when the
    //    job runs, rather than a .wtns. Rows from before hold neither: no wasm, a .wtns.
    R"sql(
ALTER TABLE circuits ADD COLUMN wasm_path text NOT NULL DEFAULT '';
ALTER TABLE job_partitions ADD COLUMN input_json boolean NOT NULL DEFAULT false;
)sql",
    // 5: what a node publishes for the cluster view (pg_cluster_view.hpp): its report (devices,
    //    resident keys, workers, version; a JSON document the node writes whole, so its fields can
    //    grow without a migration) and when it last wrote it, by the server's clock. Rows from
    //    before hold an empty report and no time: a node that heartbeats but does not report.
    R"sql(
ALTER TABLE nodes
  ADD COLUMN report jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN reported_at timestamptz;
)sql",
    // 6: what SQLite's schema version 3 added: the digest of a circuit's key as registered, which
    //    every load checks the file against ('' in rows from before: taken from the file at the
    //    next start).
    R"sql(
ALTER TABLE circuits ADD COLUMN key_digest text NOT NULL DEFAULT '';
)sql",
};

constexpr int migration_count = static_cast<int>(sizeof migrations / sizeof migrations[0]);

}  // namespace

int pg_schema_latest_version() noexcept { return migration_count; }

result<int> pg_schema_version(pg_connection& c) {
  auto exists = c.exec("read the schema version", "SELECT to_regclass('schema_version') IS NOT NULL");
  if (!exists) return exists.error();
  if (!exists->boolean(0, 0)) return 0;
  auto v = c.exec("read the schema version", "SELECT coalesce(max(version), 0) FROM schema_version");
  if (!v) return v.error();
  return static_cast<int>(v->i64(0, 0));
}

status pg_migrate(pg_connection& c, int target) {
  auto tx = pg_transaction::begin(c);
  if (!tx) return tx.error();
  {
    auto locked = c.exec("take the migration lock", migration_lock);
    if (!locked) return locked.error();
  }
  CUZK_TRY(c.exec_script("create schema_version",
                         "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                         "applied_at timestamptz NOT NULL DEFAULT now())"));
  auto found = pg_schema_version(c);
  if (!found) return found.error();
  if (*found > target)
    return status(errc::format_error, c.name() + ": job database schema version: expected at most " +
                                          std::to_string(target) + ", found " + std::to_string(*found) +
                                          " (a newer cuzk migrated it). Nothing was changed");
  for (int v = *found + 1; v <= target; ++v) {
    const std::string what = "migrate the job database to version " + std::to_string(v);
    CUZK_TRY(c.exec_script(what.c_str(), migrations[v - 1]));
    auto rec = c.exec(what.c_str(), "INSERT INTO schema_version (version) VALUES ($1)", {std::to_string(v)});
    if (!rec) return rec.error();
  }
  return tx->commit();
}

}  // namespace cuzk::engine
