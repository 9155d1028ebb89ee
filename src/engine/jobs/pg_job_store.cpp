// SPDX-License-Identifier: MIT OR Apache-2.0
// The PostgreSQL job store (see pg_job_store.hpp). A job is read with its partitions in one
// statement (one snapshot: a job is never seen with half of a finish() applied); a job and its
// partitions are written in one transaction.
#include "engine/jobs/pg_job_store.hpp"

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/jobs/pg_job_result.hpp"
#include "engine/jobs/pg_schema.hpp"

namespace cuzk::engine {

namespace {

pg_param optional_ms(const std::optional<wall_time>& t) {
  return t ? pg_param(pg_text(to_unix_ms(*t))) : std::nullopt;
}

// The phase times as PostgreSQL prints a double precision[]: "{0.5,0,2.25}".
void seconds_from_array(const std::string& s, phase_times& t) {
  std::size_t k = 0;
  const char* p = s.c_str();
  if (*p == '{') ++p;
  while (*p && *p != '}' && k < t.seconds.size()) {
    char* end = nullptr;
    t.seconds[k++] = std::strtod(p, &end);
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
}

// The columns select_jobs() reads, in order; the last is the partitions as a JSON array.
constexpr const char* job_columns =
    "SELECT j.id, j.request_id, j.circuit, j.priority, j.state, j.partitions, j.attempts, j.submitted_ms, "
    "j.deadline_ms, j.finished_ms, j.error_code, j.error_message, j.deadline_missed, j.phase_seconds, "
    "j.ran_on, "
    "j.h2d_bytes, coalesce((SELECT json_agg(json_build_object('path', p.witness_path, 'spooled', p.spooled, "
    "'input_json', p.input_json, 'digest', p.witness_digest, 'proof', p.proof_json, 'public', p.public_json) "
    "ORDER BY p.idx) "
    "FROM job_partitions p WHERE p.job_id = j.id), '[]') FROM jobs j ";

job_record row_to_record(const pg_rows& r, int row) {
  job_record rec;
  job_result& i = rec.info;
  i.id = static_cast<job_id>(r.i64(row, 0));
  if (!r.is_null(row, 1)) i.request_id = r.text(row, 1);
  i.circuit = r.text(row, 2);
  i.prio = static_cast<priority>(r.i64(row, 3));
  i.state = static_cast<job_state>(r.i64(row, 4));
  i.partitions = static_cast<uint32_t>(r.i64(row, 5));
  i.attempts = static_cast<uint32_t>(r.i64(row, 6));
  i.submitted_at = from_unix_ms(r.i64(row, 7));
  if (!r.is_null(row, 8)) i.deadline = from_unix_ms(r.i64(row, 8));
  if (!r.is_null(row, 9)) i.finished_at = from_unix_ms(r.i64(row, 9));
  const auto code = static_cast<errc>(r.i64(row, 10));
  if (code != errc::ok) i.error = status(code, r.text(row, 11));
  i.deadline_missed = r.boolean(row, 12);
  seconds_from_array(r.text(row, 13), i.times);
  i.ran_on = r.text(row, 14);
  i.h2d_bytes = r.f64(row, 15);
  const auto parts = nlohmann::json::parse(r.text(row, 16), nullptr, false);
  if (parts.is_array())
    for (const auto& p : parts) {
      rec.witness_paths.push_back(p.value("path", ""));
      rec.spooled.push_back(p.value("spooled", false));
      rec.input_json.push_back(p.value("input_json", false));
      rec.witness_digests.push_back(p.value("digest", ""));
      if (p.contains("proof") && p["proof"].is_string() && p.contains("public") && p["public"].is_string())
        i.proofs.push_back({p["proof"].get<std::string>(), p["public"].get<std::string>()});
    }
  return rec;
}

}  // namespace

result<std::unique_ptr<pg_job_store>> pg_job_store::open(const std::string& conninfo) {
  auto c = pg_connection::open(conninfo);
  if (!c) return c.error();
  CUZK_TRY(pg_migrate(**c));
  return std::unique_ptr<pg_job_store>(new pg_job_store(std::move(c).value()));
}

result<std::vector<job_record>> pg_job_store::select_jobs(const char* what, const std::string& where,
                                                          const std::vector<pg_param>& params) {
  auto r = c_->exec(what, job_columns + where, params);
  if (!r) return r.error();
  std::vector<job_record> out;
  out.reserve(static_cast<std::size_t>(r->size()));
  for (int row = 0; row < r->size(); ++row) out.push_back(row_to_record(*r, row));
  return out;
}

result<insert_outcome> pg_job_store::insert(const job_record& rec) {
  std::unique_lock lk(m_);
  const job_result& i = rec.info;
  const pg_param request_id = i.request_id.empty() ? std::nullopt : pg_param(i.request_id);
  auto tx = pg_transaction::begin(*c_);
  if (!tx) return tx.error();
  // A request id already taken (also by a concurrent insert, which this one waits for) inserts
  // nothing; the job that holds it is returned. The wait is bounded: a submit whose COMMIT lost its
  // reply (look_for_lost_commit) may be answered "unknown" while its transaction is still in
  // progress on the server (a synchronous standby awaited), and the client's retry under the same
  // request id would wait on it for as long as it lasts, holding this store's lock. The bound also
  // covers this COMMIT's wait for the server-wide lock that orders the commits of transactions
  // that sent a notification (the announcement below), which such a stuck transaction holds too:
  // that COMMIT fails after the bound, rolled back, instead of waiting with it.
  if (auto bound = c_->exec("bound the insert's lock wait",
                            "SET LOCAL lock_timeout = '" + std::to_string(insert_lock_wait_ms) + "ms'");
      !bound)
    return bound.error();
  auto ins = c_->exec(
      "insert job",
      "INSERT INTO jobs (request_id, circuit, priority, state, partitions, submitted_ms, deadline_ms) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (request_id) DO NOTHING RETURNING id, txid_current()",
      {request_id, i.circuit, pg_text(int64_t(i.prio)), pg_text(int64_t(job_state::queued)),
       pg_text(int64_t(i.partitions)), pg_text(to_unix_ms(i.submitted_at)), optional_ms(i.deadline)});
  if (!ins) {
    // Most likely the request id's, held by an earlier submit still being stored; a table lock (a
    // newer node's migration) gives the same code.
    if (c_->last_sqlstate() == "55P03")
      return status(errc::unavailable,
                    c_->name() + ": insert job: waited " + std::to_string(insert_lock_wait_ms) + " ms for a lock (" +
                        (i.request_id.empty() ? std::string("the jobs table's")
                                              : "request id '" + i.request_id +
                                                    "', held by a submit still being stored, or the jobs table's") +
                        "); submit again later");
    return ins.error();
  }
  if (ins->size() == 0) {
    auto found = c_->exec("insert job", "SELECT id FROM jobs WHERE request_id = $1", {request_id});
    if (!found) return found.error();
    if (found->size() == 0)  // taken and purged between the two statements: never in one transaction
      return status(errc::internal, c_->name() + ": insert job: request id conflict without a job");
    return insert_outcome{static_cast<job_id>(found->i64(0, 0)), insert_effect::request_id_taken};
  }
  const std::string id = ins->text(0, 0);
  const std::string xid = ins->text(0, 1);  // this transaction's, for look_for_lost_commit()
  for (std::size_t k = 0; k < rec.witness_paths.size(); ++k) {
    const bool spooled = k < rec.spooled.size() && rec.spooled[k];
    const bool input_json = k < rec.input_json.size() && rec.input_json[k];
    const std::string digest = k < rec.witness_digests.size() ? rec.witness_digests[k] : "";
    auto p = c_->exec(
        "insert job partition",
        "INSERT INTO job_partitions (job_id, idx, witness_path, spooled, witness_digest, input_json) "
        "VALUES ($1, $2, $3, $4, $5, $6)",
        {id, pg_text(int64_t(k)), rec.witness_paths[k], pg_text(spooled), digest, pg_text(input_json)});
    if (!p) return p.error();
  }
  // Delivered with the commit, so a node that wakes on it finds the job's rows complete.
  auto n = c_->exec("announce the job", "SELECT pg_notify($1, $2)", {pg_job_queued_channel, id});
  if (!n) return n.error();
  const auto new_id = static_cast<job_id>(std::strtoull(id.c_str(), nullptr, 10));
  if (status committed = tx->commit(); !committed) {
    if (!c_->lost()) return committed;  // the server refused it: rolled back, nothing stored
    return look_for_lost_commit(lk, rec, new_id, xid, committed);
  }
  return insert_outcome{new_id, insert_effect::inserted};
}

result<bool> pg_job_store::row_is(const job_record& rec, job_id id) {
  const job_result& i = rec.info;
  const pg_param request_id = i.request_id.empty() ? std::nullopt : pg_param(i.request_id);
  const pg_param first_path = rec.witness_paths.empty() ? std::nullopt : pg_param(rec.witness_paths[0]);
  auto r = c_->exec("look for the job whose commit lost its reply",
                    "SELECT 1 FROM jobs j WHERE j.id = $1 AND j.circuit = $2 AND j.submitted_ms = $3 "
                    "AND j.partitions = $4 AND j.request_id IS NOT DISTINCT FROM $5 AND ($6::text IS NULL OR "
                    "EXISTS (SELECT 1 FROM job_partitions p WHERE p.job_id = j.id AND p.idx = 0 AND p.witness_path = $6))",
                    {pg_text(int64_t(id)), i.circuit, pg_text(to_unix_ms(i.submitted_at)), pg_text(int64_t(i.partitions)),
                     request_id, first_path});
  if (!r) return r.error();
  return r->size() == 1;
}

result<insert_outcome> pg_job_store::look_for_lost_commit(std::unique_lock<std::mutex>& lk, const job_record& rec,
                                                          job_id id, const std::string& xid, const status& lost) {
  // PostgreSQL keeps the fate of recent transactions, and txid_status() reads it for a client whose
  // connection broke while a COMMIT was under way (the manual's "Transaction ID and Snapshot
  // Information Functions"): committed, aborted, or still in progress. A look for the job's row
  // alone could not tell a commit that did not land from one the old session is still making
  // (its disk slow, or a synchronous standby's acknowledgement awaited, with the client's
  // connection cut): the row is not visible until it ends.
  //
  // Tried at once, then after 0.1, 0.2, 0.4, 0.8 and 1.6 s: about 3 s in all. The usual causes
  // are a session the server ended (an administrator, a failover's fence), which the first try
  // gets past on a new connection, and a restart of the server: `pg_ctl restart -m fast` of the
  // test server's configuration (pg_test_cluster.cpp) took 0.47-0.48 s on the 2-core development
  // machine (2026-12-07), so the window holds several such restarts. It is kept short because the
  // client's submit waits for it; past it the engine keeps the request's spooled witnesses and
  // asks the client to submit again (engine_submit.cpp, unconfirmed_submit). A try may itself wait
  // for a connection up to its connect_timeout (pg_connection::default_bounds: 10 s unless set
  // otherwise), so no try begins past 3.5 s: the look ends within the window and one
  // connection's wait. The lock is let go between tries, so the node's other statements go on
  // meanwhile (not during a try's own wait).
  //
  // "committed" is checked against the job's row: a transaction id's assignment is not written to
  // the server's log, so after a crash whose recovery lost this transaction the server may hand
  // the same id to a later one, and txid_status() then answers for that one. (The row's id may be
  // handed out again too: a sequence's advance is not flushed before the commit that uses it.) So
  // the row must be this record's own, by its circuit, submit time to the millisecond, request id,
  // partitions and first witness path; a row that is not means this transaction was lost.
  constexpr int tries = 6;
  const auto window_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(3500);
  auto pause = std::chrono::milliseconds(100);
  std::string last = "no answer";
  for (int t = 0; t < tries; ++t) {
    if (t > 0 && std::chrono::steady_clock::now() + pause > window_end) break;
    if (t > 0) {
      lk.unlock();
      std::this_thread::sleep_for(pause);
      pause *= 2;
      lk.lock();
    }
    std::string why;
    auto fate = fate_of(rec, id, xid, why);
    if (!fate) {
      last = fate.error().message();
      continue;
    }
    if (*fate == submit_fate::stored) return insert_outcome{id, insert_effect::inserted};
    if (*fate == submit_fate::not_stored)
      return status(errc::unavailable,
                    lost.message() + "; the job was not stored" + (why.empty() ? "" : " (" + why + ")"));
    last = why;
  }
  insert_outcome unknown{id, insert_effect::outcome_unknown,
                         status(errc::unavailable, lost.message() + "; whether job " + std::to_string(id) +
                                                       " was stored is unknown (" + last + ")")};
  unknown.pending = xid;
  return unknown;
}

result<submit_fate> pg_job_store::fate_of(const job_record& rec, job_id id, const std::string& xid,
                                          std::string& why) {
  auto r = c_->exec("look for the commit whose reply was lost", "SELECT txid_status($1::bigint)", {xid});
  // An id past every transaction the server has begun (SQLSTATE 22023, "is in the future"): its
  // history no longer holds that transaction, which a failover to a standby it had not reached, or
  // a crash that lost the end of the log, took with it; as for NULL below, its row tells.
  const bool unknown_to_server = !r && c_->last_sqlstate() == "22023";
  if (!r && !unknown_to_server) return r.error();
  // NULL: the transaction is older than the status the server keeps, so it ended long ago, and
  // whether it committed is its row's to tell.
  const bool forgotten = unknown_to_server || r->is_null(0, 0);
  const std::string fate = forgotten ? "" : r->text(0, 0);
  if (fate == "aborted") {
    why.clear();
    return submit_fate::not_stored;
  }
  if (!forgotten && fate != "committed") {
    why = "its transaction " + fate;  // in progress: the old session is still at it
    return submit_fate::unknown;
  }
  auto ours = row_is(rec, id);
  if (!ours) return ours.error().with_context("its row not read");
  if (*ours) return submit_fate::stored;
  why = unknown_to_server ? "its transaction is not in the server's history (lost to a failover or a crash), and the job's row is not its"
        : forgotten       ? "its transaction ended long ago, and the job's row is not its"
                          : "its transaction id now names another's";
  return submit_fate::not_stored;
}

result<submit_fate> pg_job_store::settle(const job_record& rec, const insert_outcome& unknown) {
  if (unknown.effect != insert_effect::outcome_unknown || unknown.pending.empty())
    return status(errc::invalid_argument, c_->name() + ": settle: not an insert whose outcome was unknown");
  std::lock_guard lk(m_);
  std::string why;
  return fate_of(rec, unknown.id, unknown.pending, why);
}

status pg_job_store::update_state(job_id id, job_state state, uint32_t attempts) {
  std::lock_guard lk(m_);
  auto r = c_->exec("update job state", "UPDATE jobs SET state = $1, attempts = $2 WHERE id = $3",
                    {pg_text(int64_t(state)), pg_text(int64_t(attempts)), pg_text(int64_t(id))});
  return r ? status::ok() : r.error();
}

status pg_job_store::finish(const job_result& i) {
  std::lock_guard lk(m_);
  auto tx = pg_transaction::begin(*c_);
  if (!tx) return tx.error();
  CUZK_TRY(pg_write_result(*c_, i));
  return tx->commit();
}

result<std::optional<job_record>> pg_job_store::get(job_id id) {
  std::lock_guard lk(m_);
  auto jobs = select_jobs("get job", "WHERE j.id = $1", {pg_text(int64_t(id))});
  if (!jobs) return jobs.error();
  if (jobs->empty()) return std::optional<job_record>();
  return std::optional<job_record>(std::move(jobs->front()));
}

result<std::optional<job_id>> pg_job_store::find_request(const std::string& request_id) {
  std::lock_guard lk(m_);
  auto r = c_->exec("find_request", "SELECT id FROM jobs WHERE request_id = $1", {request_id});
  if (!r) return r.error();
  if (r->size() == 0) return std::optional<job_id>();
  return std::optional<job_id>(static_cast<job_id>(r->i64(0, 0)));
}

result<std::vector<job_record>> pg_job_store::unfinished() {
  std::lock_guard lk(m_);
  return select_jobs("list unfinished jobs", "WHERE j.state NOT IN (5, 6, 7) ORDER BY j.id", {});
}

result<std::vector<std::string>> pg_job_store::purge_finished_before(wall_time cutoff) {
  std::lock_guard lk(m_);
  // The partitions go with their job (ON DELETE CASCADE); the join still sees them, since every
  // part of the statement reads the snapshot taken before the delete.
  auto r = c_->exec(
      "purge jobs",
      "WITH gone AS (DELETE FROM jobs WHERE finished_ms IS NOT NULL AND finished_ms < $1 RETURNING id) "
      "SELECT p.witness_path FROM job_partitions p JOIN gone ON p.job_id = gone.id "
      "WHERE p.spooled ORDER BY p.job_id, p.idx",
      {pg_text(to_unix_ms(cutoff))});
  if (!r) return r.error();
  std::vector<std::string> paths;
  for (int row = 0; row < r->size(); ++row) paths.push_back(r->text(row, 0));
  return paths;
}

status pg_job_store::put_circuit(const circuit_record& c) {
  std::lock_guard lk(m_);
  auto r = c_->exec("store circuit",
                    "INSERT INTO circuits (id, zkey_path, priority, wasm_path, key_digest) VALUES ($1, $2, $3, $4, $5) "
                    "ON CONFLICT (id) DO UPDATE SET zkey_path = EXCLUDED.zkey_path, "
                    "priority = EXCLUDED.priority, wasm_path = EXCLUDED.wasm_path, key_digest = EXCLUDED.key_digest",
                    {c.id, c.zkey_path, pg_text(int64_t(c.default_priority)), c.wasm_path, c.key_digest});
  return r ? status::ok() : r.error();
}

status pg_job_store::remove(job_id id) {
  std::lock_guard lk(m_);
  // Its partitions go with it (ON DELETE CASCADE).
  auto r = c_->exec("remove job", "DELETE FROM jobs WHERE id = $1", {pg_text(static_cast<int64_t>(id))});
  return r ? status::ok() : r.error();
}

status pg_job_store::remove_circuit(const std::string& id) {
  std::lock_guard lk(m_);
  auto r = c_->exec("remove circuit", "DELETE FROM circuits WHERE id = $1", {id});
  return r ? status::ok() : r.error();
}

result<std::vector<circuit_record>> pg_job_store::circuits() {
  std::lock_guard lk(m_);
  auto r = c_->exec("list circuits",
                    "SELECT id, zkey_path, priority, wasm_path, key_digest FROM circuits ORDER BY id COLLATE \"C\"");
  if (!r) return r.error();
  std::vector<circuit_record> out;
  for (int row = 0; row < r->size(); ++row)
    out.push_back({r->text(row, 0), r->text(row, 1), static_cast<priority>(r->i64(row, 2)), r->text(row, 3),
                   r->text(row, 4)});
  return out;
}

}  // namespace cuzk::engine
