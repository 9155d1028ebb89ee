// SPDX-License-Identifier: MIT OR Apache-2.0
// Every job store against one contract (typed: in memory, SQLite, PostgreSQL on a throwaway server),
// and the SQLite store across a reopen (pg_job_store_test.cpp has PostgreSQL's own).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <vector>

#include "engine/jobs/memory_job_store.hpp"
#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "engine/jobs/sqlite_job_store.hpp"

namespace cuzk::engine {
namespace {

std::string temp_dir(const std::string& name) {
  auto d =
      std::filesystem::temp_directory_path() / ("cuzk-engine-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

struct memory_maker {
  static std::shared_ptr<job_store> make(const std::string&) { return std::make_shared<memory_job_store>(); }
};
struct sqlite_maker {
  static std::shared_ptr<job_store> make(const std::string& name) {
    auto s = sqlite_job_store::open(temp_dir(name) + "/jobs.db");
    EXPECT_TRUE(s.is_ok()) << s.error().to_string();
    return std::shared_ptr<job_store>(std::move(s).value());
  }
};

// A fresh database on the process's test server; nullptr (the test skips) without server binaries.
struct postgres_maker {
  static std::shared_ptr<job_store> make(const std::string& name) {
    pg_test_cluster* cluster = pg_test_cluster::shared();
    if (!cluster) return nullptr;
    auto db = cluster->fresh_database(name);
    EXPECT_TRUE(db.is_ok()) << db.error().to_string();
    if (!db) return nullptr;
    auto s = pg_job_store::open(*db);
    EXPECT_TRUE(s.is_ok()) << s.error().to_string();
    if (!s) return nullptr;
    return std::shared_ptr<job_store>(std::move(s).value());
  }
};

job_record make_job(const std::string& circuit, const std::string& request_id = {}) {
  job_record r;
  r.info.circuit = circuit;
  r.info.request_id = request_id;
  r.info.prio = priority::high;
  r.info.partitions = 2;
  r.info.submitted_at = from_unix_ms(1'700'000'000'000);
  r.info.deadline = from_unix_ms(1'700'000'060'000);
  r.witness_paths = {"/spool/a.json", "/data/b.wtns"};
  r.spooled = {true, false};
  r.input_json = {true, false};  // the first partition is spooled input JSON
  return r;
}

// Times persist as Unix milliseconds (a client's deadline_unix_ms, the store's columns), any int64_t;
// a wall_time holds about +-292 years of nanoseconds. Converting a value past that range used to
// overflow (undefined behaviour, found by fuzz/submit_request_fuzz.cpp with this deadline) and gave a
// time in the past; it saturates now.
TEST(unix_ms, values_past_the_clock_range_saturate) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const int64_t hi = duration_cast<milliseconds>(wall_time::duration::max()).count();
  const int64_t lo = duration_cast<milliseconds>(wall_time::duration::min()).count();
  for (const int64_t ms : {int64_t{4'400'782'320'724'952}, std::numeric_limits<int64_t>::max(), hi + 1})
    EXPECT_EQ(to_unix_ms(from_unix_ms(ms)), hi) << ms;
  for (const int64_t ms : {std::numeric_limits<int64_t>::min(), lo - 1})
    EXPECT_EQ(to_unix_ms(from_unix_ms(ms)), lo) << ms;
  for (const int64_t ms : {lo, int64_t{-1}, int64_t{0}, int64_t{1'700'000'000'000}, hi})
    EXPECT_EQ(to_unix_ms(from_unix_ms(ms)), ms) << ms;
  EXPECT_GT(from_unix_ms(4'400'782'320'724'952), from_unix_ms(1'700'000'000'000));
}

template <class M>
class job_store_contract : public ::testing::Test {};
using makers = ::testing::Types<memory_maker, sqlite_maker, postgres_maker>;
TYPED_TEST_SUITE(job_store_contract, makers);

TYPED_TEST(job_store_contract, insert_get_and_idempotent_request_ids) {
  auto s = TypeParam::make("contract1");
  if (!s) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  auto a = s->insert(make_job("c1", "req-1"));
  ASSERT_TRUE(a.is_ok()) << a.error().to_string();
  EXPECT_EQ(a->effect, insert_effect::inserted);
  auto b = s->insert(make_job("c1"));
  ASSERT_TRUE(b.is_ok());
  EXPECT_GT(b->id, a->id);
  auto again = s->insert(make_job("c1", "req-1"));
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again->effect, insert_effect::request_id_taken);
  EXPECT_EQ(again->id, a->id);
  EXPECT_EQ(*s->find_request("req-1").value(), a->id);
  EXPECT_FALSE(s->find_request("nope").value().has_value());

  auto g = s->get(a->id);
  ASSERT_TRUE(g.is_ok() && g->has_value());
  const job_record& r = **g;
  EXPECT_EQ(r.info.circuit, "c1");
  EXPECT_EQ(r.info.prio, priority::high);
  EXPECT_EQ(r.info.state, job_state::queued);
  EXPECT_EQ(r.info.partitions, 2u);
  EXPECT_EQ(to_unix_ms(r.info.submitted_at), 1'700'000'000'000);
  EXPECT_EQ(to_unix_ms(*r.info.deadline), 1'700'000'060'000);
  EXPECT_EQ(r.witness_paths, (std::vector<std::string>{"/spool/a.json", "/data/b.wtns"}));
  EXPECT_EQ(r.spooled, (std::vector<bool>{true, false}));
  EXPECT_EQ(r.input_json, (std::vector<bool>{true, false}));
  EXPECT_FALSE(s->get(9999).value().has_value());
}

TYPED_TEST(job_store_contract, states_results_unfinished_and_purge) {
  auto s = TypeParam::make("contract2");
  if (!s) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  const job_id a = s->insert(make_job("c")).value().id;
  const job_id b = s->insert(make_job("c")).value().id;
  const job_id c = s->insert(make_job("c")).value().id;
  ASSERT_TRUE(s->update_state(b, job_state::proving, 1).is_ok());

  job_result done = s->get(a).value()->info;
  done.state = job_state::done;
  done.attempts = 1;
  done.finished_at = from_unix_ms(1'700'000'100'000);
  done.times[phase::prove] = 1.5;
  done.times[phase::total] = 2.25;
  done.times[phase::msm_h] = 0.125;  // a GPU detail phase, after total
  done.times[phase::witness] = 0.375;  // the last phase: every one is stored
  done.ran_on = "device:0";
  done.h2d_bytes = 100663296;
  done.proofs = {{"{\"pi_a\":1}", "[\"7\"]"}, {"{\"pi_a\":2}", "[\"8\"]"}};
  done.deadline_missed = true;
  ASSERT_TRUE(s->finish(done).is_ok());

  job_result failed = s->get(c).value()->info;
  failed.state = job_state::failed;
  failed.error = status(errc::format_error, "partition 1: bad");
  failed.finished_at = from_unix_ms(1'700'000'200'000);
  ASSERT_TRUE(s->finish(failed).is_ok());

  const auto r = s->get(a).value().value().info;
  EXPECT_EQ(r.state, job_state::done);
  EXPECT_DOUBLE_EQ(r.times[phase::prove], 1.5);
  EXPECT_DOUBLE_EQ(r.times[phase::total], 2.25);
  EXPECT_DOUBLE_EQ(r.times[phase::msm_h], 0.125);
  EXPECT_DOUBLE_EQ(r.times[phase::witness], 0.375);
  EXPECT_EQ(r.ran_on, "device:0");
  EXPECT_DOUBLE_EQ(r.h2d_bytes, 100663296);
  ASSERT_EQ(r.proofs.size(), 2u);
  EXPECT_EQ(r.proofs[1].public_json, "[\"8\"]");
  EXPECT_TRUE(r.deadline_missed);
  const auto f = s->get(c).value().value().info;
  EXPECT_EQ(f.error.code(), errc::format_error);
  EXPECT_EQ(f.error.message(), "partition 1: bad");

  auto un = s->unfinished().value();
  ASSERT_EQ(un.size(), 1u);
  EXPECT_EQ(un[0].info.id, b);
  EXPECT_EQ(un[0].info.state, job_state::proving);
  EXPECT_EQ(un[0].info.attempts, 1u);

  auto purged = s->purge_finished_before(from_unix_ms(1'700'000'150'000)).value();
  EXPECT_EQ(purged, (std::vector<std::string>{"/spool/a.json"}));
  EXPECT_FALSE(s->get(a).value().has_value());
  EXPECT_TRUE(s->get(c).value().has_value());
}

TYPED_TEST(job_store_contract, remove_deletes_one_job_frees_its_request_id_and_never_reuses_its_id) {
  auto s = TypeParam::make("contract_remove");
  if (!s) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  const job_id a = s->insert(make_job("c", "r1")).value().id;
  const job_id b = s->insert(make_job("c", "r2")).value().id;
  ASSERT_TRUE(s->remove(b).is_ok());
  EXPECT_FALSE(s->get(b).value().has_value());
  EXPECT_TRUE(s->get(a).value().has_value());
  EXPECT_FALSE(s->find_request("r2").value().has_value());
  EXPECT_EQ(s->unfinished().value().size(), 1u);
  EXPECT_TRUE(s->remove(b).is_ok());  // already gone
  const auto again = s->insert(make_job("c", "r2")).value();
  EXPECT_EQ(again.effect, insert_effect::inserted);
  EXPECT_GT(again.id, b);
}

TYPED_TEST(job_store_contract, circuits) {
  auto s = TypeParam::make("contract3");
  if (!s) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  ASSERT_TRUE(s->put_circuit({"b", "/k/b.zkey", priority::low, "", ""}).is_ok());
  ASSERT_TRUE(s->put_circuit({"a", "/k/a.zkey", priority::critical, "", "fnv1a64:1"}).is_ok());
  ASSERT_TRUE(s->put_circuit({"a", "/k/a2.zkey", priority::high, "/k/a.wasm", "fnv1a64:2"}).is_ok());
  auto cs = s->circuits().value();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].id, "a");
  EXPECT_EQ(cs[0].zkey_path, "/k/a2.zkey");
  EXPECT_EQ(cs[0].default_priority, priority::high);
  EXPECT_EQ(cs[0].wasm_path, "/k/a.wasm");
  EXPECT_EQ(cs[1].wasm_path, "");
  EXPECT_EQ(cs[0].key_digest, "fnv1a64:2");  // docs/HARDENING.md, finding 21
  EXPECT_EQ(cs[1].key_digest, "");
  ASSERT_TRUE(s->remove_circuit("a").is_ok());
  EXPECT_EQ(s->circuits().value().size(), 1u);
}

TEST(sqlite_job_store, survives_reopen) {
  const std::string db = temp_dir("reopen") + "/jobs.db";
  job_id a, b;
  {
    auto s = sqlite_job_store::open(db).value();
    a = s->insert(make_job("c", "r1")).value().id;
    b = s->insert(make_job("c")).value().id;
    ASSERT_TRUE(s->update_state(b, job_state::synthesizing, 1).is_ok());
    ASSERT_TRUE(s->put_circuit({"c", "/k/c.zkey", priority::normal, "", ""}).is_ok());
  }
  auto s = sqlite_job_store::open(db).value();
  auto un = s->unfinished().value();
  ASSERT_EQ(un.size(), 2u);
  EXPECT_EQ(un[0].info.id, a);
  EXPECT_EQ(un[1].info.state, job_state::synthesizing);
  EXPECT_EQ(*s->find_request("r1").value(), a);
  EXPECT_EQ(s->circuits().value().size(), 1u);
  // Ids keep growing after a reopen.
  EXPECT_GT(s->insert(make_job("c")).value().id, b);
}

// A database of schema version 1 (before circuits had a witness generator or a key digest) is
// upgraded in place: its jobs and circuits are kept, and the new columns are there for the next
// registration (the digest: docs/HARDENING.md, finding 21).
TEST(sqlite_job_store, upgrades_a_version_1_database) {
  const std::string db = temp_dir("v1") + "/jobs.db";
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    const char* v1 = R"sql(
      CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT UNIQUE, circuit TEXT NOT NULL,
        priority INTEGER NOT NULL, state INTEGER NOT NULL, partitions INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, submitted_ms INTEGER NOT NULL, deadline_ms INTEGER,
        finished_ms INTEGER, error_code INTEGER NOT NULL DEFAULT 0, error_message TEXT NOT NULL DEFAULT '',
        deadline_missed INTEGER NOT NULL DEFAULT 0, times_json TEXT NOT NULL DEFAULT '[]',
        proofs_json TEXT NOT NULL DEFAULT '[]', witnesses_json TEXT NOT NULL);
      CREATE TABLE circuits (id TEXT PRIMARY KEY, zkey_path TEXT NOT NULL, priority INTEGER NOT NULL);
      INSERT INTO circuits VALUES ('c', '/k/c.zkey', 2);
      INSERT INTO jobs (request_id, circuit, priority, state, partitions, submitted_ms, witnesses_json)
        VALUES ('r1', 'c', 1, 0, 1, 1000, '[{"path":"/w/a.wtns","spooled":false}]');
      PRAGMA user_version=1;)sql";
    ASSERT_EQ(sqlite3_exec(raw, v1, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  {
    auto s = sqlite_job_store::open(db);
    ASSERT_TRUE(s) << s.error().to_string();
    auto cs = (*s)->circuits().value();
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].zkey_path, "/k/c.zkey");
    EXPECT_EQ(cs[0].default_priority, priority::high);
    EXPECT_EQ(cs[0].wasm_path, "");
    EXPECT_EQ(cs[0].key_digest, "");
    auto un = (*s)->unfinished().value();
    ASSERT_EQ(un.size(), 1u);
    EXPECT_EQ(un[0].witness_paths[0], "/w/a.wtns");
    EXPECT_FALSE(un[0].input_json[0]);
    ASSERT_TRUE((*s)->put_circuit({"c", "/k/c.zkey", priority::high, "/k/c.wasm", "fnv1a64:0123"}).is_ok());
  }
  {
    auto s = sqlite_job_store::open(db).value();  // now of the current version
    EXPECT_EQ(s->circuits().value()[0].wasm_path, "/k/c.wasm");
    EXPECT_EQ(s->circuits().value()[0].key_digest, "fnv1a64:0123");
  }  // closed: the store holds the database exclusively while open
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* v = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &v, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(v), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(v, 0), 3);
  sqlite3_finalize(v);
  sqlite3_close(raw);
}

// A result stored before the times carried where the job ran (a bare array of the six phases).
TEST(sqlite_job_store, reads_times_stored_as_a_bare_array) {
  const std::string db = temp_dir("oldtimes") + "/jobs.db";
  job_id a;
  {
    auto s = sqlite_job_store::open(db).value();
    a = s->insert(make_job("c")).value().id;
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  const std::string sql = "UPDATE jobs SET state = 5, times_json = '[0.5,0,1,2,0.25,3.75]' WHERE id = " +
                          std::to_string(a);
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto s = sqlite_job_store::open(db).value();
  const auto r = s->get(a).value().value().info;
  EXPECT_DOUBLE_EQ(r.times[phase::queue_wait], 0.5);
  EXPECT_DOUBLE_EQ(r.times[phase::total], 3.75);
  EXPECT_DOUBLE_EQ(r.times[phase::msm_h], 0);
  EXPECT_EQ(r.ran_on, "");
}

// A result stored before the witness phase existed: the 17 phases up to reservation_wait, the
// witness's time then folded into synthesis. It reads as it was, with no witness time.
TEST(sqlite_job_store, reads_times_stored_before_the_witness_phase) {
  const std::string db = temp_dir("prewitness") + "/jobs.db";
  job_id a;
  {
    auto s = sqlite_job_store::open(db).value();
    a = s->insert(make_job("c")).value().id;
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  const std::string sql =
      "UPDATE jobs SET state = 5, times_json = '{\"seconds\": "
      "[0.5,0,1.25,2,0.25,4.5,0,0,0,0,0,0,0,0,0,0,0.125], "
      "\"ran_on\": \"cpu\", \"h2d_bytes\": 0}' WHERE id = " +
      std::to_string(a);
  EXPECT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto s = sqlite_job_store::open(db).value();
  const auto r = s->get(a).value().value().info;
  EXPECT_DOUBLE_EQ(r.times[phase::synthesis], 1.25);
  EXPECT_DOUBLE_EQ(r.times[phase::total], 4.5);
  EXPECT_DOUBLE_EQ(r.times[phase::reservation_wait], 0.125);
  EXPECT_DOUBLE_EQ(r.times[phase::witness], 0);
  EXPECT_EQ(r.ran_on, "cpu");
}

TEST(sqlite_job_store, refuses_what_is_not_a_database) {
  const std::string dir = temp_dir("notdb");
  {
    std::FILE* f = std::fopen((dir + "/x.db").c_str(), "w");
    std::fputs("this is not an SQLite database, just some text long enough to have a header page", f);
    std::fclose(f);
  }
  auto s = sqlite_job_store::open(dir + "/x.db");
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message().find("x.db"), std::string::npos) << s.error().to_string();
  EXPECT_FALSE(sqlite_job_store::open(dir + "/missing/dir/jobs.db").is_ok());
}

// docs/HARDENING.md, finding 7: a store that exists but cannot be read whole is refused, and left
// as it was; only a missing file is a fresh database.
TEST(sqlite_job_store, refuses_an_empty_file_and_leaves_it) {
  const std::string db = temp_dir("empty") + "/jobs.db";
  { std::ofstream f(db); }
  auto s = sqlite_job_store::open(db);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message().find("empty file"), std::string::npos) << s.error().to_string();
  EXPECT_EQ(std::filesystem::file_size(db), 0u);
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
}

TEST(sqlite_job_store, refuses_a_damaged_or_truncated_log_that_holds_committed_jobs) {
  const std::string dir = temp_dir("wal");
  const std::string live = dir + "/live.db", db = dir + "/jobs.db";
  auto s = sqlite_job_store::open(live).value();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->insert(make_job("c")).is_ok());
  // The files as a killed daemon leaves them: the jobs are in the log only.
  auto snapshot = [&] {
    for (const char* suffix : {"", "-wal"})
      std::filesystem::copy_file(live + suffix, db + suffix,
                                 std::filesystem::copy_options::overwrite_existing);
    std::filesystem::remove(db + "-shm");
  };
  snapshot();
  ASSERT_GT(std::filesystem::file_size(db + "-wal"), 0u);
  {
    auto whole = sqlite_job_store::open(db);
    ASSERT_TRUE(whole.is_ok()) << whole.error().to_string();
    EXPECT_EQ(whole.value()->unfinished().value().size(), 3u);
  }
  auto expect_refused = [&](const std::string& what) {
    const auto size = std::filesystem::file_size(db + "-wal");
    auto r = sqlite_job_store::open(db);
    ASSERT_FALSE(r.is_ok()) << what;
    EXPECT_NE(r.error().message().find("jobs.db-wal"), std::string::npos) << r.error().to_string();
    EXPECT_EQ(std::filesystem::file_size(db + "-wal"), size) << what;  // nothing changed
  };
  snapshot();
  std::filesystem::resize_file(db + "-wal", 16);
  expect_refused("a log cut inside its header");
  snapshot();
  {
    // A byte of the first frame's page (offset 32 + 24): later commits follow it.
    std::fstream f(db + "-wal", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(32 + 24 + 100);
    char c = 0;
    f.get(c);
    f.seekp(32 + 24 + 100);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  expect_refused("a damaged first frame");
}

// docs/HARDENING.md, finding 15: the database and its -wal and -shm are 0600, also one made before
// with 0644.
TEST(sqlite_job_store, files_are_mode_0600) {
  const std::string db = temp_dir("modes") + "/jobs.db";
  auto mode = [](const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  };
  {
    auto s = sqlite_job_store::open(db).value();
    ASSERT_TRUE(s->insert(make_job("c")).is_ok());
    for (const char* suffix : {"", "-wal", ".mark"}) EXPECT_EQ(mode(db + suffix), 0600u) << suffix;
  }
  ASSERT_EQ(::chmod(db.c_str(), 0644), 0);
  auto s = sqlite_job_store::open(db).value();
  ASSERT_TRUE(s->insert(make_job("c")).is_ok());
  for (const char* suffix : {"", "-wal", ".mark"}) EXPECT_EQ(mode(db + suffix), 0600u) << suffix;
  EXPECT_FALSE(std::filesystem::exists(db + "-shm"));  // no shared-memory index (finding 20)
}

// docs/HARDENING.md, finding 20: a -shm file truncated (or not grown: a full disk) under a running
// store was a mapped page past its file's end, and the next statement died of SIGBUS. The store
// keeps its WAL index in its own memory: the statements go on. In a child process, so that the
// signal, without the fix, is that process's death rather than the test run's.
TEST(sqlite_job_store, a_fault_on_the_shm_file_does_not_kill_the_process) {
  const std::string db = temp_dir("shm") + "/jobs.db";
  EXPECT_EXIT(
      {
        auto s = sqlite_job_store::open(db).value();
        for (int i = 0; i < 3; ++i)
          if (!s->insert(make_job("c")).is_ok()) std::_Exit(2);
        if (std::filesystem::exists(db + "-shm")) std::filesystem::resize_file(db + "-shm", 0);
        for (int i = 0; i < 3; ++i)
          if (!s->insert(make_job("c")).is_ok()) std::_Exit(3);
        std::_Exit(s->unfinished().value().size() == 6 ? 0 : 4);
      },
      ::testing::ExitedWithCode(0), "");
}

// docs/HARDENING.md, finding 18: 5 done and 4 queued jobs, the daemon killed (-9), and the log then
// cut at a frame's edge, emptied or deleted: SQLite reads an older database without a word, and the
// daemon started on it with jobs gone and ids from 1 again. The mark refuses each, changing nothing;
// the whole log opens; a database moved away starts empty with ids after the mark's.
TEST(sqlite_job_store, refuses_a_log_cut_short_emptied_or_missing_and_ids_never_go_back) {
  const std::string dir = temp_dir("mark");
  const std::string live = temp_dir("mark-live") + "/jobs.db", db = dir + "/jobs.db";
  auto s = sqlite_job_store::open(live).value();
  std::vector<job_id> ids;
  for (int i = 0; i < 9; ++i) ids.push_back(s->insert(make_job("c")).value().id);
  for (int i = 0; i < 5; ++i) {
    job_result end = s->get(ids[i]).value()->info;
    end.state = job_state::done;
    end.finished_at = wall_clock::now();
    ASSERT_TRUE(s->finish(end).is_ok());
  }
  // What kill -9 leaves: the jobs are in the log only (the store keeps it until it closes).
  auto killed = [&] {
    for (const char* suffix : {"", "-wal", ".mark"})
      std::filesystem::copy_file(live + suffix, db + suffix, std::filesystem::copy_options::overwrite_existing);
  };
  killed();
  ASSERT_GT(std::filesystem::file_size(db + "-wal"), 10000u);
  auto expect_refused = [&](const std::string& what) {
    const bool has_wal = std::filesystem::exists(db + "-wal");
    const auto wal = has_wal ? std::filesystem::file_size(db + "-wal") : 0;
    const auto main = std::filesystem::file_size(db);
    auto r = sqlite_job_store::open(db);
    ASSERT_FALSE(r.is_ok()) << what;
    EXPECT_EQ(r.error().code(), errc::format_error) << what;
    EXPECT_NE(r.error().message().find("missing, empty or cut short"), std::string::npos) << r.error().to_string();
    EXPECT_NE(r.error().message().find("recorded id 9 with 5 ended"), std::string::npos) << r.error().to_string();
    EXPECT_EQ(std::filesystem::exists(db + "-wal"), has_wal) << what;  // nothing changed
    if (has_wal) {
      EXPECT_EQ(std::filesystem::file_size(db + "-wal"), wal) << what;
    }
    EXPECT_EQ(std::filesystem::file_size(db), main) << what;
  };
  std::filesystem::resize_file(db + "-wal", 10000);
  expect_refused("a log cut short");
  killed();
  std::filesystem::resize_file(db + "-wal", 0);
  expect_refused("an empty log");
  killed();
  std::filesystem::remove(db + "-wal");
  expect_refused("no log");

  killed();
  {
    auto whole = sqlite_job_store::open(db);
    ASSERT_TRUE(whole.is_ok()) << whole.error().to_string();
    EXPECT_EQ((*whole)->unfinished().value().size(), 4u);
  }
  // Moved away to start afresh (the mark stays): ids go on after 9.
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  auto fresh = sqlite_job_store::open(db);
  ASSERT_TRUE(fresh.is_ok()) << fresh.error().to_string();
  EXPECT_TRUE((*fresh)->unfinished().value().empty());
  EXPECT_EQ((*fresh)->insert(make_job("c")).value().id, 10u);
}

TEST(sqlite_job_store, refuses_a_log_without_its_database) {
  const std::string dir = temp_dir("orphan-wal");
  {
    std::ofstream f(dir + "/jobs.db-wal", std::ios::binary);
    f << std::string(64, 'x');
  }
  auto s = sqlite_job_store::open(dir + "/jobs.db");
  ASSERT_FALSE(s.is_ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/jobs.db"));
}

}  // namespace
}  // namespace cuzk::engine
