// SPDX-License-Identifier: MIT OR Apache-2.0
// The SQLite job store (see sqlite_job_store.hpp). Variable-size parts of a job (its timings, its
// proofs, its witness paths) are JSON text columns: they are written once and read back whole.
#include "engine/jobs/sqlite_job_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "engine/jobs/sqlite_wal_check.hpp"

namespace cuzk::engine {

namespace {

// 1: the first; 2: circuits.wasm_path (a circuit's witness generator); 3: circuits.key_digest (the
// key registered, checked at every load; '' in rows from before). An older database is upgraded in
// place at open (migrations), in one transaction, after it was checked as whole.
constexpr int schema_version = 3;

const char* const schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT UNIQUE,
  circuit TEXT NOT NULL,
  priority INTEGER NOT NULL,
  state INTEGER NOT NULL,
  partitions INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  submitted_ms INTEGER NOT NULL,
  deadline_ms INTEGER,
  finished_ms INTEGER,
  error_code INTEGER NOT NULL DEFAULT 0,
  error_message TEXT NOT NULL DEFAULT '',
  deadline_missed INTEGER NOT NULL DEFAULT 0,
  times_json TEXT NOT NULL DEFAULT '[]',
  proofs_json TEXT NOT NULL DEFAULT '[]',
  witnesses_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state);
CREATE INDEX IF NOT EXISTS jobs_by_finished ON jobs(finished_ms);
CREATE TABLE IF NOT EXISTS circuits (
  id TEXT PRIMARY KEY,
  zkey_path TEXT NOT NULL,
  priority INTEGER NOT NULL,
  wasm_path TEXT NOT NULL DEFAULT '',
  key_digest TEXT NOT NULL DEFAULT ''
);
)sql";

// migrations[v - 1] brings a database of version v to v + 1.
const char* const migrations[] = {
    "ALTER TABLE circuits ADD COLUMN wasm_path TEXT NOT NULL DEFAULT '';",
    "ALTER TABLE circuits ADD COLUMN key_digest TEXT NOT NULL DEFAULT '';",
};
static_assert(std::size(migrations) == schema_version - 1);

// A prepared statement, finalized on scope exit.
class stmt {
 public:
  stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~stmt() { sqlite3_finalize(s_); }
  stmt(const stmt&) = delete;
  stmt& operator=(const stmt&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_null(int i) { sqlite3_bind_null(s_, i); }
  int step() { return sqlite3_step(s_); }
  int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
  bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(s_, c);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(s_, c)))
             : std::string();
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

// The phase times with where the job ran: {"seconds": [...], "ran_on": "device:0", "h2d_bytes": N}.
// Rows written before ran_on existed hold the bare array, still read.
std::string times_to_json(const job_result& i) {
  return nlohmann::json{{"seconds", i.times.seconds}, {"ran_on", i.ran_on}, {"h2d_bytes", i.h2d_bytes}}.dump();
}

void times_from_json(const std::string& s, job_result& i) {
  const auto j = nlohmann::json::parse(s, nullptr, false);
  const auto& secs = j.is_object() && j.contains("seconds") ? j["seconds"] : j;
  if (secs.is_array())
    for (std::size_t k = 0; k < secs.size() && k < i.times.seconds.size(); ++k)
      if (secs[k].is_number()) i.times.seconds[k] = secs[k].get<double>();
  if (!j.is_object()) return;
  if (j.contains("ran_on") && j["ran_on"].is_string()) i.ran_on = j["ran_on"].get<std::string>();
  if (j.contains("h2d_bytes") && j["h2d_bytes"].is_number()) i.h2d_bytes = j["h2d_bytes"].get<double>();
}

std::string proofs_to_json(const std::vector<partition_proof>& p) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& x : p) j.push_back({{"proof", x.proof_json}, {"public", x.public_json}});
  return j.dump();
}

std::vector<partition_proof> proofs_from_json(const std::string& s) {
  std::vector<partition_proof> out;
  const auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& x : j)
    if (x.is_object() && x.contains("proof") && x.contains("public"))
      out.push_back({x["proof"].get<std::string>(), x["public"].get<std::string>()});
  return out;
}

std::string witnesses_to_json(const job_record& r) {
  nlohmann::json j = nlohmann::json::array();
  for (std::size_t i = 0; i < r.witness_paths.size(); ++i) {
    nlohmann::json w{{"path", r.witness_paths[i]}, {"spooled", i < r.spooled.size() && r.spooled[i]}};
    if (i < r.witness_digests.size() && !r.witness_digests[i].empty()) w["digest"] = r.witness_digests[i];
    if (i < r.input_json.size() && r.input_json[i]) w["input_json"] = true;
    j.push_back(std::move(w));
  }
  return j.dump();
}

void witnesses_from_json(const std::string& s, job_record& r) {
  const auto j = nlohmann::json::parse(s, nullptr, false);
  if (!j.is_array()) return;
  for (const auto& x : j) {
    if (!x.is_object() || !x.contains("path")) continue;
    r.witness_paths.push_back(x["path"].get<std::string>());
    r.spooled.push_back(x.value("spooled", false));
    r.input_json.push_back(x.value("input_json", false));
    r.witness_digests.push_back(
        x.contains("digest") && x["digest"].is_string() ? x["digest"].get<std::string>() : "");
  }
}

constexpr const char* select_columns =
    "SELECT id, request_id, circuit, priority, state, partitions, attempts, submitted_ms, deadline_ms, "
    "finished_ms, error_code, error_message, deadline_missed, times_json, proofs_json, witnesses_json FROM "
    "jobs ";

job_record row_to_record(const stmt& s) {
  job_record r;
  job_result& i = r.info;
  i.id = static_cast<job_id>(s.i64(0));
  i.request_id = s.text(1);
  i.circuit = s.text(2);
  i.prio = static_cast<priority>(s.i64(3));
  i.state = static_cast<job_state>(s.i64(4));
  i.partitions = static_cast<uint32_t>(s.i64(5));
  i.attempts = static_cast<uint32_t>(s.i64(6));
  i.submitted_at = from_unix_ms(s.i64(7));
  if (!s.is_null(8)) i.deadline = from_unix_ms(s.i64(8));
  if (!s.is_null(9)) i.finished_at = from_unix_ms(s.i64(9));
  const auto code = static_cast<errc>(s.i64(10));
  if (code != errc::ok) i.error = status(code, s.text(11));
  i.deadline_missed = s.i64(12) != 0;
  times_from_json(s.text(13), i);
  i.proofs = proofs_from_json(s.text(14));
  witnesses_from_json(s.text(15), r);
  return r;
}

// What must hold of the files at `path` before SQLite opens them. SQLite takes a zero-length file
// for an empty database and creates the schema in it, and drops a damaged log without a word, so
// either would start the daemon with no jobs, restart ids at 1 and sweep the spooled witnesses as
// orphans. A file that exists must therefore be an SQLite database; only a missing one is fresh.
// `existed` tells the caller which.
status check_before_open(const std::string& path, bool& existed) {
  auto refuse = [&](const std::string& why) {
    return status(errc::format_error, path + ": " + why +
                                          ". Nothing was changed; restore the file, or move it away to "
                                          "start with an empty job database");
  };
  struct stat st {};
  existed = ::stat(path.c_str(), &st) == 0;
  if (!existed) {
    struct stat w {};
    if (::stat((path + "-wal").c_str(), &w) == 0 && w.st_size > 0)
      return refuse("missing, but its write-ahead log " + path + "-wal exists");
    return status::ok();
  }
  if (!S_ISREG(st.st_mode)) return refuse("not a regular file");
  if (st.st_size == 0) return refuse("not a job database: expected an SQLite database, found an empty file");
  static constexpr char magic[16] = "SQLite format 3";  // with its terminating NUL, as in the file
  char head[16] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof head);
  if (in.gcount() != sizeof head || std::memcmp(head, magic, sizeof head) != 0)
    return refuse("not a job database: expected the SQLite header 'SQLite format 3', found other bytes");
  return check_sqlite_wal(path + "-wal");
}

}  // namespace

namespace {

// Whether a failed statement may pass when tried again later: another connection holds the lock
// (BUSY, LOCKED), the disk is full (FULL), the file or its file system went read-only (READONLY),
// an I/O call failed (IOERR: EIO, ENOSPC on a write, a file system remounted) or a file could not
// be opened (CANTOPEN), or memory ran out. What stays wrong whatever the wait (CORRUPT, NOTADB, a
// constraint, a schema the statement does not fit) is permanent.
errc classify(int rc) {
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_NOMEM:
    case SQLITE_PROTOCOL:
      return errc::unavailable;
    default:
      return errc::io_error;
  }
}

}  // namespace

status sqlite_job_store::error(const std::string& what) const {
  return status(classify(sqlite3_extended_errcode(db_)), path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

status sqlite_job_store::exec(const char* sql) {
  char* msg = nullptr;
  if (const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &msg); rc != SQLITE_OK) {
    status s(classify(rc), path_ + ": " + (msg ? msg : "sqlite error"));
    sqlite3_free(msg);
    return s;
  }
  return status::ok();
}

namespace {

// Opens `path` (which must exist unless `create`) as a connection.
result<sqlite3*> connect(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    status s(errc::io_error,
             path + ": cannot open the job database: " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_close(db);
    return s;
  }
  sqlite3_busy_timeout(db, 5000);
  // No shared-memory index: in EXCLUSIVE locking mode, set before the first read, SQLite keeps the
  // WAL's index in the heap instead of mapping <db>-shm. A mapped -shm that was truncated or could
  // not be grown (a full disk, a file made unwritable) killed the daemon with SIGBUS (docs/HARDENING.md,
  // finding 20); the heap index turns such faults into errors of the statement. The cost is that no
  // other process may read the database while the daemon has it open, which the data_dir lock
  // already rules out.
  // No checkpoint when this connection closes until open() has found the files whole: a refused
  // database is left exactly as it was, its -wal included (sqlite_job_store::~sqlite_job_store
  // turns it back on).
  char* msg = nullptr;
  if (sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE", nullptr, nullptr, &msg) != SQLITE_OK ||
      sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr) != SQLITE_OK) {
    status s(errc::io_error, path + ": cannot set up the job database connection: " +
                                 (msg ? msg : sqlite3_errmsg(db)));
    sqlite3_free(msg);
    sqlite3_close(db);
    return s;
  }
  return db;
}

// A fresh database: built under a temporary name and renamed into place once the schema is
// committed, so that `path` never exists half-made (an empty file left by a crash here would be
// refused at the next start, see check_before_open). Leftovers of an interrupted creation are
// removed first: no job was ever stored in them.
status create_fresh(const std::string& path, int64_t first_id_after) {
  const std::string tmp = path + ".new";
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((tmp + suffix).c_str());
  // Made here with mode 0600 (the jobs' witness paths, circuits and results are the daemon's user's
  // business); SQLite gives the -wal and -shm files it creates the database file's mode.
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return status(errc::io_error, tmp + ": cannot create the job database: " + std::strerror(errno));
  ::close(fd);
  auto db = connect(tmp, true);
  if (!db) return db.error();
  // Ids continue after the last one the mark recorded (a database moved away to start afresh):
  // an id a client was once given never names another job.
  const std::string seed = first_id_after > 0 ? "INSERT INTO sqlite_sequence (name, seq) VALUES ('jobs', " +
                                                    std::to_string(first_id_after) + "); "
                                              : std::string();
  const std::string sql = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; BEGIN; ") +
                          schema_sql + seed + "PRAGMA user_version=" + std::to_string(schema_version) +
                          "; COMMIT;";
  char* msg = nullptr;
  const int rc = sqlite3_exec(*db, sql.c_str(), nullptr, nullptr, &msg);
  status s =
      rc == SQLITE_OK
          ? status::ok()
          : status(errc::io_error, tmp + ": creating the job database: " + (msg ? msg : sqlite3_errstr(rc)));
  sqlite3_free(msg);
  // The last connection: the log is checkpointed into the file and removed.
  sqlite3_db_config(*db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  sqlite3_close(*db);
  if (s && ::rename(tmp.c_str(), path.c_str()) != 0)
    s = status(errc::io_error, path + ": cannot rename " + tmp + " over it: " + std::strerror(errno));
  if (!s) ::unlink(tmp.c_str());
  return s;
}

}  // namespace

result<std::unique_ptr<sqlite_job_store>> sqlite_job_store::open(const std::string& path) {
  bool existed = false;
  CUZK_TRY(check_before_open(path, existed));
  auto mark = store_mark::read(path + ".mark");
  if (!mark) return mark.error();
  if (!existed) CUZK_TRY(create_fresh(path, mark->last_id));
  // A database made before the mode was 0600 is brought to it, with its -wal and -shm, before it is
  // opened (SQLite then makes new ones with the same mode).
  for (const char* suffix : {"", "-wal", "-shm"}) ::chmod((path + suffix).c_str(), 0600);
  const bool had_wal = ::access((path + "-wal").c_str(), F_OK) == 0;
  auto db = connect(path, false);
  if (!db) return db.error();
  std::unique_ptr<sqlite_job_store> store(new sqlite_job_store(*db, path));
  store->had_wal_ = had_wal;
  // Read before anything is written: the database must be ours and whole.
  int64_t found = 0;
  {
    stmt v(*db, "PRAGMA user_version");
    if (!v.ok() || v.step() != SQLITE_ROW) return store->error("reading the schema version");
    found = v.i64(0);
    if (found < 1 || found > schema_version)
      return status(errc::format_error, path + ": job database schema version: expected " +
                                            std::to_string(schema_version) + ", found " +
                                            std::to_string(found) +
                                            (found == 0 ? " (an SQLite file without the job tables)" : "") +
                                            ". Nothing was changed");
  }
  {
    stmt t(*db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('jobs', 'circuits')");
    if (!t.ok() || t.step() != SQLITE_ROW) return store->error("reading the schema");
    if (t.i64(0) != 2)
      return status(errc::format_error,
                    path + ": job database schema: expected the tables jobs and circuits, found " +
                        std::to_string(t.i64(0)) + " of them. Nothing was changed");
    stmt q(*db, "PRAGMA quick_check");
    if (!q.ok() || q.step() != SQLITE_ROW) return store->error("checking the database");
    if (q.text(0) != "ok")
      return status(errc::format_error, path + ": damaged job database (SQLite quick_check: " + q.text(0) +
                                            "). Nothing was changed");
  }
  {
    // What SQLite cannot tell: a log cut at a frame's edge, emptied or deleted reads as a whole
    // database of fewer jobs (docs/HARDENING.md, finding 18). The mark, written after every commit
    // that raised these counts, says how far the database had come.
    stmt q(*db, "SELECT (SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'jobs'), "
                "(SELECT count(*) FROM jobs WHERE state IN (5, 6, 7))");
    if (!q.ok() || q.step() != SQLITE_ROW) return store->error("reading the last job id");
    store->mark_.last_id = q.i64(0);
    store->mark_.ended = q.i64(1);
    if (existed && (store->mark_.last_id < mark->last_id || store->mark_.ended < mark->ended))
      return status(errc::format_error,
                    path + ": the job database holds jobs up to id " + std::to_string(store->mark_.last_id) +
                        " with " + std::to_string(store->mark_.ended) + " ended, but " + path +
                        ".mark recorded id " + std::to_string(mark->last_id) + " with " +
                        std::to_string(mark->ended) + " ended as committed: its write-ahead log " + path +
                        "-wal is missing, empty or cut short. Nothing was changed; restore " + path +
                        "-wal, or move " + path + " and " + path +
                        "-wal away to start with an empty job database (ids then continue after " +
                        std::to_string(mark->last_id) + "), or move " + path +
                        ".mark away to accept the database as it is");
    if (!existed) store->mark_.ended = 0;
    CUZK_TRY(store->mark_.open(path + ".mark"));
    store->mark_.write();
  }
  store->whole_ = true;
  CUZK_TRY(store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"));
  if (found < schema_version) {
    std::string sql = "BEGIN; ";
    for (int64_t v = found; v < schema_version; ++v) sql += migrations[v - 1];
    sql += " PRAGMA user_version=" + std::to_string(schema_version) + "; COMMIT;";
    if (status s = store->exec(sql.c_str()); !s) {
      (void)store->exec("ROLLBACK;");
      return s.with_context("upgrading the job database from schema version " + std::to_string(found));
    }
  }
  return store;
}

sqlite_job_store::~sqlite_job_store() {
  // Whole and ours: the log is folded into the database as the connection closes.
  if (whole_) sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  sqlite3_close(db_);
  // Refused: SQLite opened an empty log for the reads that refused the files, where there was none
  // (a log deleted), and keeps it without the checkpoint; removed, so the files stay as they were.
  struct stat st {};
  const std::string wal = path_ + "-wal";
  if (!whole_ && !had_wal_ && ::stat(wal.c_str(), &st) == 0 && st.st_size == 0) ::unlink(wal.c_str());
}

std::optional<job_state> sqlite_job_store::state_locked(job_id id) {
  stmt s(db_, "SELECT state FROM jobs WHERE id = ?");
  if (!s.ok()) return std::nullopt;
  s.bind(1, static_cast<int64_t>(id));
  if (s.step() != SQLITE_ROW) return std::nullopt;
  return static_cast<job_state>(s.i64(0));
}

void sqlite_job_store::before_change_locked(job_id id, std::optional<job_state> to, bool& ends) {
  // The mark may lag the database, never lead it: a count the change lowers is written before the
  // change (a crash between leaves the mark below), one it raises after (after_change_locked).
  const auto from = state_locked(id);
  const bool was = from && is_terminal(*from), will = to && is_terminal(*to);
  ends = !was && will && from;
  if (was && !will) {
    --mark_.ended;
    mark_.write();
  }
}

void sqlite_job_store::after_change_locked(bool ends) {
  if (!ends) return;
  ++mark_.ended;
  mark_.write();
}

result<std::optional<job_id>> sqlite_job_store::find_request_locked(const std::string& request_id) {
  stmt s(db_, "SELECT id FROM jobs WHERE request_id = ?");
  if (!s.ok()) return error("find_request");
  s.bind(1, request_id);
  const int rc = s.step();
  if (rc == SQLITE_ROW) return std::optional<job_id>(static_cast<job_id>(s.i64(0)));
  if (rc == SQLITE_DONE) return std::optional<job_id>();
  return error("find_request");
}

result<insert_outcome> sqlite_job_store::insert(const job_record& rec) {
  std::lock_guard lk(m_);
  const job_result& i = rec.info;
  if (!i.request_id.empty()) {
    auto found = find_request_locked(i.request_id);
    if (!found) return found.error();
    if (*found) return insert_outcome{**found, insert_effect::request_id_taken};
  }
  stmt s(db_,
         "INSERT INTO jobs (request_id, circuit, priority, state, partitions, attempts, submitted_ms, "
         "deadline_ms, "
         "witnesses_json) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)");
  if (!s.ok()) return error("insert job");
  if (i.request_id.empty())
    s.bind_null(1);
  else
    s.bind(1, i.request_id);
  s.bind(2, i.circuit);
  s.bind(3, static_cast<int64_t>(i.prio));
  s.bind(4, static_cast<int64_t>(job_state::queued));
  s.bind(5, static_cast<int64_t>(i.partitions));
  s.bind(6, to_unix_ms(i.submitted_at));
  if (i.deadline)
    s.bind(7, to_unix_ms(*i.deadline));
  else
    s.bind_null(7);
  s.bind(8, witnesses_to_json(rec));
  // One statement in its own transaction, committed in this process: when it fails, SQLite has
  // rolled it back, so the outcome is known (no insert_effect::outcome_unknown, job_store.hpp). One
  // edge is not covered: an fsync that fails after the commit's frame reached the write-ahead log,
  // and a crash before the next write, may let recovery apply the frame of an insert answered as
  // failed; its row then names spooled files the engine deleted, and the job fails saying so.
  if (s.step() != SQLITE_DONE) return error("insert job");
  const auto id = sqlite3_last_insert_rowid(db_);
  mark_.last_id = std::max<int64_t>(mark_.last_id, id);
  mark_.write();
  return insert_outcome{static_cast<job_id>(id), insert_effect::inserted};
}

status sqlite_job_store::update_state(job_id id, job_state state, uint32_t attempts) {
  std::lock_guard lk(m_);
  bool ends = false;
  before_change_locked(id, state, ends);
  stmt s(db_, "UPDATE jobs SET state = ?, attempts = ? WHERE id = ?");
  if (!s.ok()) return error("update job state");
  s.bind(1, static_cast<int64_t>(state));
  s.bind(2, static_cast<int64_t>(attempts));
  s.bind(3, static_cast<int64_t>(id));
  if (s.step() != SQLITE_DONE) return error("update job state");
  after_change_locked(ends);
  return status::ok();
}

status sqlite_job_store::finish(const job_result& i) {
  std::lock_guard lk(m_);
  bool ends = false;
  before_change_locked(i.id, i.state, ends);
  stmt s(db_,
         "UPDATE jobs SET state = ?, attempts = ?, finished_ms = ?, error_code = ?, error_message = ?, "
         "deadline_missed = ?, times_json = ?, proofs_json = ? WHERE id = ?");
  if (!s.ok()) return error("finish job");
  s.bind(1, static_cast<int64_t>(i.state));
  s.bind(2, static_cast<int64_t>(i.attempts));
  if (i.finished_at)
    s.bind(3, to_unix_ms(*i.finished_at));
  else
    s.bind_null(3);
  s.bind(4, static_cast<int64_t>(i.error.code()));
  s.bind(5, i.error.message());
  s.bind(6, i.deadline_missed ? 1 : 0);
  s.bind(7, times_to_json(i));
  s.bind(8, proofs_to_json(i.proofs));
  s.bind(9, static_cast<int64_t>(i.id));
  if (s.step() != SQLITE_DONE) return error("finish job");
  after_change_locked(ends);
  return status::ok();
}

result<std::optional<job_record>> sqlite_job_store::get(job_id id) {
  std::lock_guard lk(m_);
  stmt s(db_, (std::string(select_columns) + "WHERE id = ?").c_str());
  if (!s.ok()) return error("get job");
  s.bind(1, static_cast<int64_t>(id));
  const int rc = s.step();
  if (rc == SQLITE_ROW) return std::optional<job_record>(row_to_record(s));
  if (rc == SQLITE_DONE) return std::optional<job_record>();
  return error("get job");
}

result<std::optional<job_id>> sqlite_job_store::find_request(const std::string& request_id) {
  std::lock_guard lk(m_);
  return find_request_locked(request_id);
}

result<std::vector<job_record>> sqlite_job_store::unfinished() {
  std::lock_guard lk(m_);
  stmt s(db_, (std::string(select_columns) + "WHERE state NOT IN (?, ?, ?) ORDER BY id").c_str());
  if (!s.ok()) return error("list unfinished jobs");
  s.bind(1, static_cast<int64_t>(job_state::done));
  s.bind(2, static_cast<int64_t>(job_state::failed));
  s.bind(3, static_cast<int64_t>(job_state::cancelled));
  std::vector<job_record> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(row_to_record(s));
  if (rc != SQLITE_DONE) return error("list unfinished jobs");
  return out;
}

result<std::vector<std::string>> sqlite_job_store::purge_finished_before(wall_time cutoff) {
  std::lock_guard lk(m_);
  std::vector<std::string> paths;
  {
    stmt s(db_, "SELECT witnesses_json FROM jobs WHERE finished_ms IS NOT NULL AND finished_ms < ?");
    if (!s.ok()) return error("purge jobs");
    s.bind(1, to_unix_ms(cutoff));
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
      job_record r;
      witnesses_from_json(s.text(0), r);
      for (std::size_t k = 0; k < r.witness_paths.size(); ++k)
        if (r.spooled[k]) paths.push_back(r.witness_paths[k]);
    }
    if (rc != SQLITE_DONE) return error("purge jobs");
  }
  {
    // Lowered in the mark before the rows go (before_change_locked says why).
    stmt n(db_, "SELECT count(*) FROM jobs WHERE finished_ms IS NOT NULL AND finished_ms < ? AND state IN (5, 6, 7)");
    if (!n.ok()) return error("purge jobs");
    n.bind(1, to_unix_ms(cutoff));
    if (n.step() != SQLITE_ROW) return error("purge jobs");
    if (n.i64(0) > 0) {
      mark_.ended -= n.i64(0);
      mark_.write();
    }
  }
  stmt d(db_, "DELETE FROM jobs WHERE finished_ms IS NOT NULL AND finished_ms < ?");
  if (!d.ok()) return error("purge jobs");
  d.bind(1, to_unix_ms(cutoff));
  if (d.step() != SQLITE_DONE) return error("purge jobs");
  return paths;
}

status sqlite_job_store::put_circuit(const circuit_record& c) {
  std::lock_guard lk(m_);
  stmt s(db_,
         "INSERT OR REPLACE INTO circuits (id, zkey_path, priority, wasm_path, key_digest) VALUES (?, ?, ?, ?, ?)");
  if (!s.ok()) return error("store circuit");
  s.bind(1, c.id);
  s.bind(2, c.zkey_path);
  s.bind(3, static_cast<int64_t>(c.default_priority));
  s.bind(4, c.wasm_path);
  s.bind(5, c.key_digest);
  if (s.step() != SQLITE_DONE) return error("store circuit");
  return status::ok();
}

status sqlite_job_store::remove(job_id id) {
  std::lock_guard lk(m_);
  bool ends = false;
  before_change_locked(id, std::nullopt, ends);
  stmt s(db_, "DELETE FROM jobs WHERE id = ?");
  if (!s.ok()) return error("remove job");
  s.bind(1, static_cast<int64_t>(id));
  if (s.step() != SQLITE_DONE) return error("remove job");
  return status::ok();
}

status sqlite_job_store::remove_circuit(const std::string& id) {
  std::lock_guard lk(m_);
  stmt s(db_, "DELETE FROM circuits WHERE id = ?");
  if (!s.ok()) return error("remove circuit");
  s.bind(1, id);
  if (s.step() != SQLITE_DONE) return error("remove circuit");
  return status::ok();
}

result<std::vector<circuit_record>> sqlite_job_store::circuits() {
  std::lock_guard lk(m_);
  stmt s(db_, "SELECT id, zkey_path, priority, wasm_path, key_digest FROM circuits ORDER BY id");
  if (!s.ok()) return error("list circuits");
  std::vector<circuit_record> out;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    out.push_back({s.text(0), s.text(1), static_cast<priority>(s.i64(2)), s.text(3), s.text(4)});
  if (rc != SQLITE_DONE) return error("list circuits");
  return out;
}

}  // namespace cuzk::engine
