// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster view on one real PostgreSQL (pg_test_cluster.hpp): two nodes publishing and seeing
// each other, one that stops turning stale, the queue counted by priority and state across the
// database, and a database of schema version 4 migrated in place.
#include "engine/jobs/pg_cluster_view.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "engine/jobs/pg_job_leases.hpp"
#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/pg_schema.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

std::unique_ptr<pg_cluster_view> start_node(const std::string& db, const std::string& name,
                                            std::chrono::milliseconds stale_after) {
  pg_cluster_view::options o;
  o.conninfo = db;
  o.node = name;
  o.report = [name] { return "{\"version\": \"test\", \"keys\": [\"key-of-" + name + "\"]}"; };
  o.interval = 50ms;
  o.stale_after = stale_after;
  auto v = pg_cluster_view::start(std::move(o));
  EXPECT_TRUE(v.is_ok()) << v.error().to_string();
  return v ? std::move(v).value() : nullptr;
}

const cluster_node* find(const cluster_state& s, const std::string& id) {
  for (const auto& n : s.nodes)
    if (n.id == id) return &n;
  return nullptr;
}

// Polls `v` until `ok` holds of what it read last, or 10 s pass.
template <class Pred>
std::optional<cluster_state> wait_for(const pg_cluster_view& v, Pred ok) {
  const auto until = steady::now() + 10s;
  for (;;) {
    auto l = v.latest();
    EXPECT_EQ(l.error, "");
    if (l.state && ok(*l.state)) return l.state;
    if (steady::now() > until) return l.state;
    std::this_thread::sleep_for(20ms);
  }
}

TEST(pg_cluster_view, two_nodes_see_each_others_reports_and_a_silent_one_turns_stale) {
  FRESH_DATABASE_OR_SKIP(db, "view");
  auto a = start_node(db, "node-a", 1s);
  auto b = start_node(db, "node-b", 1s);
  ASSERT_TRUE(a && b);
  auto both = wait_for(*a, [](const cluster_state& s) {
    const cluster_node* n = find(s, "node-b");
    return n && n->alive && n->report_age_s;
  });
  ASSERT_TRUE(both);
  ASSERT_EQ(both->nodes.size(), 2u);
  for (const char* id : {"node-a", "node-b"}) {
    const cluster_node* n = find(*both, id);
    ASSERT_TRUE(n) << id;
    EXPECT_TRUE(n->alive) << id;
    EXPECT_EQ(n->report, std::string("{\"keys\": [\"key-of-") + id + "\"], \"version\": \"test\"}");
    ASSERT_TRUE(n->report_age_s);
    EXPECT_LT(*n->report_age_s, 1.0);
    EXPECT_GT(n->started_unix_ms, 0);
  }
  EXPECT_DOUBLE_EQ(both->stale_after_s, 1.0);

  b.reset();  // node-b stops publishing: it stays listed, and turns stale
  auto after = wait_for(*a, [](const cluster_state& s) {
    const cluster_node* n = find(s, "node-b");
    return n && !n->alive;
  });
  ASSERT_TRUE(after);
  const cluster_node* gone = find(*after, "node-b");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->alive);
  EXPECT_GE(gone->heartbeat_age_s, 1.0);
  EXPECT_NE(gone->report.find("key-of-node-b"), std::string::npos);  // its last report stays
  EXPECT_TRUE(find(*after, "node-a")->alive);

  auto c = pg_connection::open(db).value();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version());
}

// Queued and running jobs per priority class, over the whole database: ended jobs do not count,
// and a node's live lease is counted on its row.
TEST(pg_cluster_view, the_queue_is_counted_by_priority_and_state_across_the_database) {
  FRESH_DATABASE_OR_SKIP(db, "queue");
  auto store = pg_job_store::open(db).value();
  auto add = [&](priority p) {
    job_record r;
    r.info.circuit = "c";
    r.info.prio = p;
    r.info.partitions = 1;
    r.info.submitted_at = wall_clock::now();
    r.witness_paths = {"/shared/w.wtns"};
    r.spooled = {false};
    return store->insert(r).value().id;
  };
  const job_id normal_running = add(priority::normal);
  add(priority::normal);
  add(priority::normal);
  const job_id critical_running = add(priority::critical);
  add(priority::low);
  const job_id low_done = add(priority::low);
  ASSERT_TRUE(store->update_state(normal_running, job_state::proving, 1).is_ok());
  ASSERT_TRUE(store->update_state(critical_running, job_state::synthesizing, 1).is_ok());
  job_result done;
  done.id = low_done;
  done.circuit = "c";
  done.prio = priority::low;
  done.state = job_state::done;
  done.partitions = 1;
  done.proofs = {{"{}", "[]"}};
  done.finished_at = wall_clock::now();
  ASSERT_TRUE(store->finish(done).is_ok());

  auto leases = pg_job_leases::open(db, "node-a", 60s).value();
  auto claimed = leases->claim().value();
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->id, critical_running);
  ASSERT_TRUE(leases->heartbeat().is_ok());  // the leases' heartbeat writes node-a's row

  auto c = pg_connection::open(db).value();
  auto s = pg_read_cluster(*c, 10s);
  ASSERT_TRUE(s.is_ok()) << s.error().to_string();
  auto at = [&](priority p) { return s->queue[static_cast<std::size_t>(p)]; };
  EXPECT_EQ(at(priority::low).queued, 1u);
  EXPECT_EQ(at(priority::low).running, 0u);
  EXPECT_EQ(at(priority::normal).queued, 2u);
  EXPECT_EQ(at(priority::normal).running, 1u);
  EXPECT_EQ(at(priority::high).queued, 0u);
  EXPECT_EQ(at(priority::high).running, 0u);
  EXPECT_EQ(at(priority::critical).queued, 0u);
  EXPECT_EQ(at(priority::critical).running, 1u);
  ASSERT_EQ(s->nodes.size(), 1u);
  EXPECT_EQ(s->nodes[0].id, "node-a");
  EXPECT_EQ(s->nodes[0].leases, 1u);
  EXPECT_TRUE(s->nodes[0].alive);
  EXPECT_EQ(s->nodes[0].report, "{}");  // it heartbeats, and has published no report
  EXPECT_FALSE(s->nodes[0].report_age_s);
}

// A database a daemon of schema version 4 left, with a node that heartbeated: migrated in place, the
// node keeps its row with an empty report, beside the nodes that publish.
TEST(pg_cluster_view, a_version_4_database_gains_reports_and_keeps_its_nodes) {
  FRESH_DATABASE_OR_SKIP(db, "v4");
  {
    auto c = pg_connection::open(db).value();
    ASSERT_TRUE(pg_migrate(*c, 4).is_ok());
    ASSERT_TRUE(
        c->exec("old node", "INSERT INTO nodes (id, heartbeat_at) VALUES ('old-node', now())").is_ok());
  }
  auto a = start_node(db, "node-a", 10s);
  ASSERT_TRUE(a);
  auto s = a->latest().state;  // start() read once already
  ASSERT_TRUE(s);
  ASSERT_EQ(s->nodes.size(), 2u);
  const cluster_node* old = find(*s, "old-node");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->report, "{}");
  EXPECT_FALSE(old->report_age_s);
  EXPECT_TRUE(old->alive);
  ASSERT_TRUE(find(*s, "node-a"));
  EXPECT_NE(find(*s, "node-a")->report.find("key-of-node-a"), std::string::npos);
  auto c = pg_connection::open(db).value();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version());
  EXPECT_GE(pg_schema_latest_version(), 5);  // 5 added the reports; later ones keep them
}

TEST(pg_cluster_view, start_refuses_an_unnamed_node_and_a_staleness_within_one_interval) {
  pg_cluster_view::options o;
  o.report = [] { return std::string("{}"); };
  EXPECT_TRUE(pg_cluster_view::start(o).error().code() == errc::invalid_argument);
  o.node = "n";
  o.interval = 1s;
  o.stale_after = 1s;
  EXPECT_TRUE(pg_cluster_view::start(o).error().code() == errc::invalid_argument);
}

}  // namespace
}  // namespace cuzk::engine
