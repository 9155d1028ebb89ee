// SPDX-License-Identifier: MIT OR Apache-2.0
// The PostgreSQL job store's own behaviour, on a throwaway server (pg_test_cluster.hpp): what the
// shared contract (job_store_test.cpp) does not cover: two stores on one database, the schema's
// versions, an unreachable server, a lost connection, and a COMMIT whose reply is lost.
#include "engine/jobs/pg_job_store.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "engine/jobs/pg_schema.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<pg_job_store> open_store(const std::string& db) {
  auto s = pg_job_store::open(db);
  EXPECT_TRUE(s.is_ok()) << s.error().to_string();
  return s ? std::move(s).value() : nullptr;
}

job_record make_job(const std::string& request_id) {
  job_record r;
  r.info.circuit = "c";
  r.info.request_id = request_id;
  r.info.partitions = 2;
  r.info.submitted_at = from_unix_ms(1'700'000'000'000);
  r.witness_paths = {"/spool/w-1.wtns", "/srv/witnesses/x'\"y.wtns"};
  r.spooled = {true, false};
  r.witness_digests = {"sha256:abc", ""};
  return r;
}

TEST(pg_job_store, two_stores_on_one_database_see_the_same_jobs_and_ids_keep_growing) {
  FRESH_DATABASE_OR_SKIP(db, "shared");
  auto a = open_store(db);
  auto b = open_store(db);
  ASSERT_TRUE(a && b);
  // Quotes, a backslash and non-ASCII travel as parameters, never as SQL text.
  const std::string rid = "req-'; DROP TABLE jobs; --\\ é";
  const job_id first = a->insert(make_job(rid)).value().id;
  auto again = b->insert(make_job(rid));
  ASSERT_TRUE(again.is_ok()) << again.error().to_string();
  EXPECT_EQ(again->effect, insert_effect::request_id_taken);
  EXPECT_EQ(again->id, first);

  const auto seen = b->get(first).value().value();
  EXPECT_EQ(seen.info.request_id, rid);
  EXPECT_EQ(seen.witness_paths, make_job("").witness_paths);
  EXPECT_EQ(seen.spooled, (std::vector<bool>{true, false}));
  EXPECT_EQ(seen.witness_digests, (std::vector<std::string>{"sha256:abc", ""}));
  EXPECT_FALSE(seen.info.deadline.has_value());

  // The newest job purged: the next id is still larger (an identity column is never reused).
  job_result done = seen.info;
  done.state = job_state::done;
  done.finished_at = from_unix_ms(1'700'000'001'000);
  ASSERT_TRUE(b->finish(done).is_ok());
  EXPECT_EQ(a->purge_finished_before(from_unix_ms(1'700'000'002'000)).value(),
            (std::vector<std::string>{"/spool/w-1.wtns"}));
  a.reset();
  auto c = open_store(db);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->unfinished().value().empty());
  EXPECT_GT(c->insert(make_job("")).value().id, first);
}

TEST(pg_job_store, creates_the_schema_once_and_refuses_a_newer_one_unchanged) {
  FRESH_DATABASE_OR_SKIP(db, "schema");
  // Daemons starting together on a fresh database: each version applied once.
  std::vector<std::thread> starts;
  std::vector<status> outcomes(4);
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    starts.emplace_back([&, i] {
      auto s = pg_job_store::open(db);
      outcomes[i] = s ? status::ok() : s.error();
    });
  for (auto& t : starts) t.join();
  for (const auto& s : outcomes) EXPECT_TRUE(s.is_ok()) << s.to_string();

  auto c = pg_connection::open(db).value();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version());
  EXPECT_EQ(c->exec("count", "SELECT count(*) FROM schema_version").value().i64(0, 0),
            pg_schema_latest_version());

  const std::string newer = std::to_string(pg_schema_latest_version() + 1);
  ASSERT_TRUE(c->exec("newer", "INSERT INTO schema_version (version) VALUES ($1)", {newer}).is_ok());
  auto refused = pg_job_store::open(db);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().code(), errc::format_error);
  EXPECT_NE(refused.error().message().find("found " + newer), std::string::npos)
      << refused.error().to_string();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version() + 1);
}

// A database a daemon of schema version 3 left (before circuits had a witness generator and
// partitions could be input JSON) is migrated in place: its circuit has no wasm and its partition is
// a .wtns, and both columns take the next registration's and submission's values.
TEST(pg_job_store, a_version_3_database_keeps_its_rows_and_gains_wasm_paths_and_input_json) {
  FRESH_DATABASE_OR_SKIP(db, "v3");
  job_id old = 0;
  {
    auto c = pg_connection::open(db).value();
    ASSERT_TRUE(pg_migrate(*c, 3).is_ok());
    ASSERT_TRUE(
        c->exec("circuit", "INSERT INTO circuits (id, zkey_path, priority) VALUES ('c', '/k/c.zkey', 2)")
            .is_ok());
    auto job = c->exec("job",
                       "INSERT INTO jobs (circuit, priority, state, partitions, submitted_ms) "
                       "VALUES ('c', 2, 0, 1, 1000) RETURNING id");
    ASSERT_TRUE(job.is_ok()) << job.error().to_string();
    old = static_cast<job_id>(job->i64(0, 0));
    ASSERT_TRUE(c->exec("partition",
                        "INSERT INTO job_partitions (job_id, idx, witness_path, spooled) VALUES ($1, 0, "
                        "'/w/a.wtns', false)",
                        {pg_text(int64_t(old))})
                    .is_ok());
  }
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto cs = s->circuits().value();
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].zkey_path, "/k/c.zkey");
  EXPECT_EQ(cs[0].wasm_path, "");
  EXPECT_EQ(cs[0].key_digest, "");  // docs/HARDENING.md, finding 21
  const auto un = s->unfinished().value();
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].info.id, old);
  EXPECT_EQ(un[0].witness_paths, (std::vector<std::string>{"/w/a.wtns"}));
  EXPECT_EQ(un[0].input_json, (std::vector<bool>{false}));

  ASSERT_TRUE(s->put_circuit({"c", "/k/c.zkey", priority::high, "/k/c.wasm", "fnv1a64:0123"}).is_ok());
  EXPECT_EQ(s->circuits().value()[0].wasm_path, "/k/c.wasm");
  EXPECT_EQ(s->circuits().value()[0].key_digest, "fnv1a64:0123");
  job_record r = make_job("");
  r.input_json = {true, false};
  const job_id next = s->insert(r).value().id;
  EXPECT_GT(next, old);
  EXPECT_EQ(s->get(next).value().value().input_json, (std::vector<bool>{true, false}));
  auto c = pg_connection::open(db).value();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version());
}

TEST(pg_job_store, an_unreachable_server_is_unavailable_and_the_password_is_not_repeated) {
  auto s = pg_job_store::open("host=/nonexistent-cuzk-dir user=cuzk password=hunter2 dbname=jobs");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.error().code(), errc::unavailable);
  EXPECT_NE(s.error().message().find("/nonexistent-cuzk-dir"), std::string::npos) << s.error().to_string();
  EXPECT_EQ(s.error().message().find("hunter2"), std::string::npos) << s.error().to_string();
}

// The server ends the store's session (a restart, an administrator, a network cut): the statement
// that meets the break fails, and the next one runs on a new connection.
TEST(pg_job_store, a_lost_connection_is_made_again_for_the_next_statement) {
  FRESH_DATABASE_OR_SKIP(db, "reconnect");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->put_circuit({"c", "/k/c.zkey", priority::normal, "", ""}).is_ok());
  auto admin = pg_connection::open(pg_test_cluster::shared()->admin_conninfo()).value();
  auto killed = admin->exec("terminate",
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE datname = $1 AND pid <> pg_backend_pid()",
                            {db.substr(db.rfind('=') + 1)});
  ASSERT_TRUE(killed.is_ok()) << killed.error().to_string();
  ASSERT_GE(killed->i64(0, 0), 1);
  (void)s->circuits();  // may meet the closed session
  auto after = s->circuits();
  ASSERT_TRUE(after.is_ok()) << after.error().to_string();
  EXPECT_EQ(after->size(), 1u);
}

// The database's name, from fresh_test_database's connection string ("... dbname=NAME").
std::string db_name(const std::string& db) { return db.substr(db.rfind('=') + 1); }

// The pid of a session of `database` whose COMMIT waits on `wait_event` (pg_stat_activity), once
// one does; empty when none did within 10 s.
std::string commit_waiting_on(pg_connection& admin, const std::string& database,
                              const std::string& wait_event) {
  for (int i = 0; i < 1000; ++i) {
    auto r = admin.exec(
        "waiting commit",
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event = $2 AND query = 'COMMIT'",
        {database, wait_event});
    if (r && r->size() > 0) return r->text(0, 0);
    std::this_thread::sleep_for(10ms);
  }
  return {};
}

status end_session(pg_connection& admin, const std::string& pid, const char* how = "pg_terminate_backend") {
  auto r = admin.exec("end a session", std::string("SELECT ") + how + "($1)", {pid});
  return r ? status::ok() : r.error();
}

// A COMMIT of a new job waits, before it commits, for an advisory lock `admin` holds: a deferred
// constraint trigger on jobs takes it, and deferred triggers run at COMMIT. Ending the waiting
// session then cuts the COMMIT off before it lands.
void hold_commits_of_jobs(pg_connection& admin) {
  for (const char* sql :
       {"CREATE FUNCTION wait_for_the_test() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN PERFORM pg_advisory_xact_lock(34); RETURN NULL; END$$",
        "CREATE CONSTRAINT TRIGGER commit_waits AFTER INSERT ON jobs DEFERRABLE INITIALLY DEFERRED "
        "FOR EACH ROW EXECUTE FUNCTION wait_for_the_test()",
        "SELECT pg_advisory_lock(34)"}) {
    auto r = admin.exec("hold commits", sql);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  }
}

// A COMMIT of a new job sleeps, before it commits, in a deferred constraint trigger, until its
// session is ended. Unlike hold_commits_of_jobs, nothing another session holds lets it go: a
// server's stop ends the session holding a lock at the same moment as the one waiting for it, and
// the waiter could then take the lock and commit before it saw its own end.
void slow_commits_of_jobs(pg_connection& admin) {
  for (const char* sql :
       {"CREATE FUNCTION sleep_for_the_test() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN PERFORM pg_sleep(60); RETURN NULL; END$$",
        "CREATE CONSTRAINT TRIGGER commit_sleeps AFTER INSERT ON jobs DEFERRABLE INITIALLY DEFERRED "
        "FOR EACH ROW EXECUTE FUNCTION sleep_for_the_test()"}) {
    auto r = admin.exec("slow commits", sql);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  }
}

int64_t rows(pg_connection& c, const std::string& table) {
  auto r = c.exec("count", "SELECT count(*) FROM " + table);
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  return r ? r->i64(0, 0) : -1;
}

// docs/HARDENING.md, finding 34: the server ends the session while its COMMIT waits, before the
// commit is made. The reply never comes; the store asks on a new connection what became of the
// transaction, hears it aborted, and says it stored nothing, as an error (the engine then deletes
// the spooled witnesses).
TEST(pg_job_store, a_commit_cut_off_before_it_lands_is_an_error_that_stored_nothing) {
  FRESH_DATABASE_OR_SKIP(db, "cut_commit");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto admin = pg_connection::open(db).value();
  hold_commits_of_jobs(*admin);
  if (HasFatalFailure()) return;
  std::optional<result<insert_outcome>> ins;
  std::thread submit([&] { ins.emplace(s->insert(make_job("cut"))); });
  const std::string pid = commit_waiting_on(*admin, db_name(db), "advisory");
  const status ended = pid.empty() ? status::ok() : end_session(*admin, pid);
  (void)admin->exec("let go", "SELECT pg_advisory_unlock_all()");  // lets the insert end either way
  submit.join();
  ASSERT_FALSE(pid.empty()) << "the insert's COMMIT never waited for the test's lock";
  ASSERT_TRUE(ended.is_ok()) << ended.to_string();
  ASSERT_FALSE(ins->is_ok()) << "stored as job " << (*ins)->id;
  EXPECT_EQ(ins->error().code(), errc::unavailable) << ins->error().to_string();
  EXPECT_NE(ins->error().message().find("the job was not stored"), std::string::npos)
      << ins->error().to_string();
  EXPECT_EQ(rows(*admin, "jobs"), 0);
  EXPECT_EQ(rows(*admin, "job_partitions"), 0);
  EXPECT_FALSE(s->find_request("cut").value().has_value());
}

// While it lives, every commit waits for a synchronous standby that never comes. Such a commit is
// durable before it waits and is seen by others once the wait ends; a session ended while it
// waits goes on to commit and closes without a reply (PostgreSQL's syncrep.c, SyncRepWaitForLSN:
// "we can neither acknowledge the commit nor raise ERROR or FATAL"): a COMMIT that landed and
// lost its reply, made by the real server.
class commits_wait_for_a_standby {
 public:
  // `admin` is a superuser's connection to the test's database.
  explicit commits_wait_for_a_standby(pg_connection& admin) : admin_(admin) {
    auto probe_table = admin_.exec("probe table", "CREATE TABLE standby_probe (x int)");
    EXPECT_TRUE(probe_table.is_ok()) << probe_table.error().to_string();
    set("ALTER SYSTEM SET synchronous_standby_names = 'cuzk_test_no_such_standby'");
  }
  ~commits_wait_for_a_standby() { end(); }
  commits_wait_for_a_standby(const commits_wait_for_a_standby&) = delete;
  commits_wait_for_a_standby& operator=(const commits_wait_for_a_standby&) = delete;

  // Commits wait only once the checkpointer has read the setting, a moment after the reload:
  // a probe's commit tells. It writes a row, since only a commit that wrote to the log waits
  // (xact.c, RecordTransactionCommit). It is let go with pg_cancel_backend, which ends a wait with
  // the commit made.
  bool in_effect(const std::string& conninfo) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto probe = pg_connection::open(conninfo);
      if (!probe) return false;
      auto me = (*probe)->exec("pid", "SELECT pg_backend_pid()");
      if (!me) return false;
      const std::string pid = me->text(0, 0);
      std::atomic<bool> done{false};
      std::thread commit([&] {
        (void)(*probe)->exec("probe", "INSERT INTO standby_probe VALUES (1)");
        done = true;
      });
      bool waited = false;
      for (int i = 0; i < 1000 && !done && !waited; ++i) {
        auto r = admin_.exec(
            "probe waits", "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'", {pid});
        waited = r && r->size() > 0;
        if (!waited) std::this_thread::sleep_for(2ms);
      }
      if (!done) (void)end_session(admin_, pid, waited ? "pg_cancel_backend" : "pg_terminate_backend");
      commit.join();
      if (waited) return true;
    }
    return false;
  }
  // Commits stop waiting; those waiting are let go (with their commits made).
  void end() {
    if (!on_) return;
    on_ = false;
    set("ALTER SYSTEM RESET synchronous_standby_names");
  }

 private:
  void set(const char* sql) {
    auto r = admin_.exec("standby setting", sql);
    EXPECT_TRUE(r.is_ok()) << r.error().to_string();
    auto reload = admin_.exec("reload", "SELECT pg_reload_conf()");
    EXPECT_TRUE(reload.is_ok()) << reload.error().to_string();
  }
  pg_connection& admin_;
  bool on_ = true;
};

// make_job(request_id) inserted by `s` while every commit waits for a standby that never comes; once
// its COMMIT waits there (durable, not yet acknowledged) its session is ended, and the server
// commits and closes without a reply. `out` gets insert()'s answer and the ended session's pid.
struct landed_commit {
  std::optional<result<insert_outcome>> ins;
  std::string pid;
};
void insert_losing_a_landed_commits_reply(pg_job_store& s, pg_connection& admin, const std::string& db,
                                          const std::string& request_id, landed_commit& out) {
  status ended;
  {
    commits_wait_for_a_standby standby(admin);
    ASSERT_TRUE(standby.in_effect(db)) << "commits never waited for the standby";
    std::thread submit([&] { out.ins.emplace(s.insert(make_job(request_id))); });
    out.pid = commit_waiting_on(admin, db_name(db), "SyncRep");
    if (!out.pid.empty()) ended = end_session(admin, out.pid);
    standby.end();  // lets the insert end either way
    submit.join();
  }
  ASSERT_FALSE(out.pid.empty()) << "the insert's COMMIT never waited for the standby";
  ASSERT_TRUE(ended.is_ok()) << ended.to_string();
}

// docs/HARDENING.md, finding 34: the COMMIT lands and its reply is lost. The store hears on a new
// connection that the transaction committed and answers the job stored, with its partitions;
// before, it answered an error, and the engine deleted the witnesses the stored row names.
TEST(pg_job_store, a_commit_that_landed_and_lost_its_reply_is_found_and_answered_stored) {
  FRESH_DATABASE_OR_SKIP(db, "lost_reply");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto admin = pg_connection::open(db).value();
  landed_commit lost;
  insert_losing_a_landed_commits_reply(*s, *admin, db, "landed", lost);
  if (HasFatalFailure()) return;
  const auto& ins = lost.ins;
  const std::string& pid = lost.pid;
  ASSERT_TRUE(ins->is_ok()) << ins->error().to_string();
  EXPECT_EQ((*ins)->effect, insert_effect::inserted);
  const auto stored = s->get((*ins)->id).value();
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->info.request_id, "landed");
  EXPECT_EQ(stored->witness_paths, make_job("").witness_paths);
  EXPECT_EQ(stored->spooled, (std::vector<bool>{true, false}));
  EXPECT_EQ(s->find_request("landed").value(), std::optional<job_id>((*ins)->id));
  // The session whose reply was lost is gone: the store answered from a new one.
  EXPECT_EQ(admin->exec("gone", "SELECT 1 FROM pg_stat_activity WHERE pid = $1", {pid}).value().size(), 0);
}

// docs/HARDENING.md, finding 34: "committed" is taken only with the request's own row. After a
// crash whose recovery lost the transaction, its id may name a later one, whose row is another
// request's. Here the row the transaction wrote is made not to match the record (a trigger renames
// its circuit as it is inserted), and its COMMIT lands and loses its reply: the store hears
// "committed", finds the job's row is not the request's, and answers not stored.
TEST(pg_job_store, a_commit_answered_committed_whose_row_is_not_the_requests_is_not_taken_as_stored) {
  FRESH_DATABASE_OR_SKIP(db, "not_ours");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto admin = pg_connection::open(db).value();
  for (const char* sql :
       {"CREATE FUNCTION rename_the_circuit() RETURNS trigger LANGUAGE plpgsql AS "
        "$$BEGIN NEW.circuit := 'another request''s circuit'; RETURN NEW; END$$",
        "CREATE TRIGGER not_ours BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION rename_the_circuit()"}) {
    auto r = admin->exec("rename circuits", sql);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  }
  landed_commit lost;
  insert_losing_a_landed_commits_reply(*s, *admin, db, "not ours", lost);
  if (HasFatalFailure()) return;
  const auto& ins = lost.ins;
  ASSERT_FALSE(ins->is_ok()) << "answered stored as job " << (*ins)->id;
  EXPECT_EQ(ins->error().code(), errc::unavailable) << ins->error().to_string();
  EXPECT_NE(ins->error().message().find("the job was not stored (its transaction id now names another's)"),
            std::string::npos)
      << ins->error().to_string();
  // The transaction did commit: its row is there, under the renamed circuit.
  auto renamed = admin->exec("renamed", "SELECT circuit FROM jobs WHERE request_id = 'not ours'");
  ASSERT_TRUE(renamed.is_ok()) << renamed.error().to_string();
  ASSERT_EQ(renamed->size(), 1);
  EXPECT_EQ(renamed->text(0, 0), "another request's circuit");
}

// docs/HARDENING.md, finding 34: the COMMIT's session ends and the server stays down while the
// store asks what became of it (about 3 s, pg_job_store.cpp): the store cannot tell, and says so as
// outcome_unknown rather than as an error. Here the commit had not landed; one that had would be
// answered the same.
TEST(pg_job_store, a_lost_commit_reply_while_the_server_stays_down_is_an_unknown_outcome) {
  FRESH_DATABASE_OR_SKIP(db, "down");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  pg_test_cluster* cluster = pg_test_cluster::shared();
  std::optional<result<insert_outcome>> ins;
  std::string pid;
  status stopped(errc::internal, "not stopped");
  {
    auto admin = pg_connection::open(db).value();
    slow_commits_of_jobs(*admin);
    if (HasFatalFailure()) return;
    std::thread submit([&] { ins.emplace(s->insert(make_job("down"))); });
    pid = commit_waiting_on(*admin, db_name(db), "PgSleep");
    if (!pid.empty()) stopped = cluster->stop();  // ends every session, the insert's among them
    if (!stopped && !pid.empty()) (void)end_session(*admin, pid);
    submit.join();
  }
  const status started = stopped ? cluster->start() : status::ok();
  ASSERT_FALSE(pid.empty()) << "the insert's COMMIT never waited for the test's lock";
  ASSERT_TRUE(stopped.is_ok()) << stopped.to_string();
  ASSERT_TRUE(started.is_ok()) << started.to_string();
  ASSERT_TRUE(ins->is_ok()) << ins->error().to_string();
  EXPECT_EQ((*ins)->effect, insert_effect::outcome_unknown);
  EXPECT_EQ((*ins)->why_unknown.code(), errc::unavailable);
  EXPECT_NE((*ins)->why_unknown.message().find("was stored is unknown"), std::string::npos)
      << (*ins)->why_unknown.to_string();
  EXPECT_GT((*ins)->id, 0u);
  auto admin = pg_connection::open(db).value();
  EXPECT_EQ(rows(*admin, "jobs"), 0);
  // Asked again once the server is back: it aborted, so nothing was stored.
  ASSERT_FALSE((*ins)->pending.empty());
  auto fate = s->settle(make_job("down"), **ins);
  ASSERT_TRUE(fate.is_ok()) << fate.error().to_string();
  EXPECT_EQ(*fate, submit_fate::not_stored);
}

// settle() on each fate a transaction can have: still open (unknown), committed with the record's
// own row (stored), committed with another's row (not stored), rolled back (not stored); and a
// question about an insert whose outcome was known is refused.
TEST(pg_job_store, settle_tells_each_fate_of_a_transaction) {
  FRESH_DATABASE_OR_SKIP(db, "settle");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto other = pg_connection::open(db).value();
  const job_record rec = make_job("settle");
  // The rows the store's insert writes, by another session: its job id and transaction id.
  auto write = [&](const job_record& r) -> insert_outcome {
    auto ins = other->exec("write a job",
                           "INSERT INTO jobs (request_id, circuit, priority, state, partitions, submitted_ms) "
                           "VALUES ($1, $2, 0, 0, $3, $4) RETURNING id, txid_current()",
                           {r.info.request_id, r.info.circuit, pg_text(int64_t(r.info.partitions)),
                            pg_text(to_unix_ms(r.info.submitted_at))});
    EXPECT_TRUE(ins.is_ok()) << ins.error().to_string();
    if (!ins) return {};
    auto part = other->exec("write its first partition",
                            "INSERT INTO job_partitions (job_id, idx, witness_path, spooled, witness_digest, "
                            "input_json) VALUES ($1, 0, $2, true, '', false)",
                            {ins->text(0, 0), r.witness_paths[0]});
    EXPECT_TRUE(part.is_ok()) << part.error().to_string();
    insert_outcome out{static_cast<job_id>(ins->i64(0, 0)), insert_effect::outcome_unknown,
                       status(errc::unavailable, "lost")};
    out.pending = ins->text(0, 1);
    return out;
  };
  {
    auto tx = pg_transaction::begin(*other);
    ASSERT_TRUE(tx.is_ok()) << tx.error().to_string();
    const insert_outcome open = write(rec);
    EXPECT_EQ(s->settle(rec, open).value(), submit_fate::unknown);
    ASSERT_TRUE(tx->commit().is_ok());
    EXPECT_EQ(s->settle(rec, open).value(), submit_fate::stored);
    job_record another = rec;
    another.info.circuit = "another";
    EXPECT_EQ(s->settle(another, open).value(), submit_fate::not_stored);
  }
  insert_outcome rolled_back;
  {
    auto tx = pg_transaction::begin(*other);
    ASSERT_TRUE(tx.is_ok()) << tx.error().to_string();
    rolled_back = write(make_job("settle-2"));
  }  // ROLLBACK as tx goes
  EXPECT_EQ(s->settle(make_job("settle-2"), rolled_back).value(), submit_fate::not_stored);
  EXPECT_EQ(rows(*other, "jobs"), 1);
  // A transaction id past every one the server has begun (the server lost it: a failover, a crash
  // that lost the log's end) is an error to txid_status(); the row tells: the record's own row
  // (a case only a reused id could make) is stored, no row is not stored.
  const int64_t now = other->exec("the next transaction id", "SELECT txid_current()", {})->i64(0, 0);
  insert_outcome lost_by_server{1, insert_effect::outcome_unknown, status(errc::unavailable, "lost")};
  lost_by_server.pending = std::to_string(now + 1000000);
  EXPECT_EQ(s->settle(make_job("settle-3"), lost_by_server).value(), submit_fate::not_stored);
  {
    auto tx = pg_transaction::begin(*other);
    ASSERT_TRUE(tx.is_ok()) << tx.error().to_string();
    const job_record rec4 = make_job("settle-4");
    insert_outcome its_row = write(rec4);
    ASSERT_TRUE(tx->commit().is_ok());
    its_row.pending = std::to_string(now + 1000000);
    EXPECT_EQ(s->settle(rec4, its_row).value(), submit_fate::stored);
  }
  insert_outcome known{1, insert_effect::inserted, status::ok()};
  known.pending = "1";
  EXPECT_EQ(s->settle(rec, known).error().code(), errc::invalid_argument);
}

// A submit whose request id another transaction holds (an insert of the same id not yet committed:
// a COMMIT stuck on the server, answered "unknown" to its client, who submits again) waits only
// insert_lock_wait_ms for it, and is then unavailable: the store's lock, which every statement of
// the node takes, is not held for as long as that transaction lasts.
TEST(pg_job_store, a_request_id_held_by_a_transaction_still_open_is_waited_for_a_bounded_time) {
  FRESH_DATABASE_OR_SKIP(db, "held_id");
  auto s = open_store(db);
  ASSERT_TRUE(s);
  auto holder = pg_connection::open(db).value();
  std::optional<pg_transaction> held;
  {
    auto tx = pg_transaction::begin(*holder);
    ASSERT_TRUE(tx.is_ok()) << tx.error().to_string();
    held.emplace(std::move(tx).value());
  }
  auto taken = holder->exec("hold the request id",
                            "INSERT INTO jobs (request_id, circuit, priority, state, partitions, submitted_ms) "
                            "VALUES ('held', 'c', 0, 0, 1, 0)");
  ASSERT_TRUE(taken.is_ok()) << taken.error().to_string();

  std::atomic<bool> done{false};
  std::optional<result<insert_outcome>> ins;
  const auto t0 = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration took{};
  std::thread submit([&] {
    ins.emplace(s->insert(make_job("held")));
    took = std::chrono::steady_clock::now() - t0;
    done = true;
  });
  // The holder ends either way, so an insert that waits for it returns (and the test fails).
  const auto limit = std::chrono::milliseconds(pg_job_store::insert_lock_wait_ms) + 15s;
  while (!done && std::chrono::steady_clock::now() - t0 < limit) std::this_thread::sleep_for(20ms);
  const bool returned_while_held = done.load();
  held.reset();  // rolled back: the id is free again
  submit.join();
  ASSERT_TRUE(returned_while_held) << "the insert waited for the holder's transaction to end";
  EXPECT_LT(took, std::chrono::milliseconds(pg_job_store::insert_lock_wait_ms) + 5s);
  ASSERT_FALSE(ins->is_ok()) << "stored as job " << (*ins)->id;
  EXPECT_EQ(ins->error().code(), errc::unavailable) << ins->error().to_string();
  EXPECT_NE(ins->error().message().find("for a lock (request id 'held', held by a submit still being stored"),
            std::string::npos)
      << ins->error().to_string();

  // Once the holder rolled back, the same submit is stored.
  auto again = s->insert(make_job("held"));
  ASSERT_TRUE(again.is_ok()) << again.error().to_string();
  EXPECT_EQ(again->effect, insert_effect::inserted);
}

}  // namespace
}  // namespace cuzk::engine
