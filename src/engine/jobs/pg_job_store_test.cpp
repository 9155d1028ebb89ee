// SPDX-License-Identifier: MIT OR Apache-2.0
// The PostgreSQL job store's own behaviour, on a throwaway server (pg_test_cluster.hpp): what the
// shared contract (job_store_test.cpp) does not cover: two stores on one database, the schema's
// versions, an unreachable server and a lost connection.
#include "engine/jobs/pg_job_store.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "engine/jobs/pg_schema.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

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
  EXPECT_FALSE(again->inserted);
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

}  // namespace
}  // namespace cuzk::engine
