// SPDX-License-Identifier: MIT OR Apache-2.0
// The embedded job store: one SQLite database file in WAL mode.
//
// WAL lets status readers run while a worker writes, and with synchronous=FULL a committed
// transaction survives power loss, not only a killed process: a job acknowledged by submit() is on
// disk. Writes are single-row statements of a few hundred bytes, a few per job phase, so the
// fsync per commit (~1 ms on an SSD) is noise next to a proof. Witnesses do not go into the
// database (they are megabytes to gigabytes); the rows hold the paths of files spooled beside it
// (witness_spool.hpp).
//
// Schema (version 2, in the user_version pragma; a version 1 database is upgraded at open):
//   jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT UNIQUE, circuit, priority, state,
//        partitions, attempts, submitted_ms, deadline_ms, finished_ms, error_code, error_message,
//        deadline_missed, times_json, proofs_json, witnesses_json)
//   circuits(id TEXT PRIMARY KEY, zkey_path, priority, wasm_path)
// AUTOINCREMENT keeps ids increasing even after the newest rows are purged, so FIFO order by id
// holds across restarts.
//
// The database file, its -wal and its mark (store_mark.hpp) are mode 0600: they hold witness paths,
// circuits and results. The connection runs in EXCLUSIVE locking mode, so there is no -shm file (no
// shared-memory index that a fault could turn into SIGBUS) and no other process reads the database
// while the daemon has it open.
//
// A database that needs its -wal and is found without it (missing, empty, cut at a frame's edge) is
// refused at open by the mark: the last job id and the count of ended jobs, written beside it with
// every commit that raises them; a database moved away to start afresh keeps ids going after the
// mark's. Errors of a fault that may pass (busy, full disk, read-only, I/O) are errc::unavailable.
//
// Thread safety: any thread; one connection guarded by a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/jobs/job_store.hpp"
#include "engine/jobs/store_mark.hpp"

struct sqlite3;

namespace cuzk::engine {

class sqlite_job_store final : public job_store {
 public:
  // Opens or creates the database at `path` (its directory must exist). io_error naming the path
  // and SQLite's message otherwise; format_error, with nothing changed, for a file that exists but
  // is not a whole job database of this schema version or an older one (upgraded in place once
  // checked): empty, another file, another schema, a
  // damaged page or a damaged write-ahead log (sqlite_wal_check.hpp). Only a missing file is a
  // fresh database.
  static result<std::unique_ptr<sqlite_job_store>> open(const std::string& path);
  ~sqlite_job_store() override;
  sqlite_job_store(const sqlite_job_store&) = delete;
  sqlite_job_store& operator=(const sqlite_job_store&) = delete;

  result<insert_outcome> insert(const job_record& rec) override;
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
  sqlite_job_store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  status exec(const char* sql);
  status error(const std::string& what) const;
  result<std::optional<job_id>> find_request_locked(const std::string& request_id);
  std::optional<job_state> state_locked(job_id id);
  // Around a change of job `id` to state `to` (nullopt: removed): the mark's `ended` lowered before
  // a change that ends no job and un-ends one, raised after one that ends it (`ends`).
  void before_change_locked(job_id id, std::optional<job_state> to, bool& ends);
  void after_change_locked(bool ends);

  std::mutex m_;
  sqlite3* db_;
  std::string path_;
  store_mark mark_;
  bool whole_ = false;  // open() found the files whole: closing may checkpoint the log
  bool had_wal_ = true;  // a -wal was there before open(): a refused open leaves the one SQLite made
};

}  // namespace cuzk::engine
