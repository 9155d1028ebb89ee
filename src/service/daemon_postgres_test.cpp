// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon with its job store on PostgreSQL (`database` in its config), on a throwaway server
// (engine/jobs/pg_test_cluster.hpp): a job submitted with an inline witness is proved and its result
// is in the database; after a kill -9, a daemon on another data_dir and the same database still
// answers `await` for that job with the same proof: the job lives in the database, not in data_dir;
// and a daemon that takes the node name of one that runs refuses to start. Its /status (HTTP,
// `cuzk status` and the page) shows the cluster: the nodes on the database and the queue by priority.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/jobs/job.hpp"
#include "base/version.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_schema.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/daemon_test_util.hpp"
#include "service/pg_daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace test;

// The JSON document `cuzk await` printed, checked to verify.
nlohmann::json verified_proof(const std::string& out) {
  const auto doc = printed_document(out);
  EXPECT_EQ(proof_document_check(poseidon_vk, doc), "") << out;
  return doc.is_discarded() ? nlohmann::json() : doc;
}

TEST(daemon_postgres, a_result_in_the_database_outlives_the_daemon_and_its_data_dir) {
  engine::pg_test_cluster* cluster = engine::pg_test_cluster::shared();
  if (!cluster) GTEST_SKIP() << engine::pg_test_cluster::unavailable_reason();
  const auto db = cluster->fresh_database("daemon");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();

  std::string job, first;
  {
    pg_daemon a("a", *db, poseidon_zkey);
    ASSERT_TRUE(a.up()) << "the daemon did not answer";
    // Inline: spooled, its path in the database.
    auto [rc, out] = a.cli("submit -c poseidon " + poseidon_wtns);
    ASSERT_EQ(rc, 0) << out;
    job = out.substr(0, out.find('\n'));
    std::tie(rc, first) = a.cli("await --timeout-ms 60000 " + job);
    ASSERT_EQ(rc, 0) << first;
    ASSERT_FALSE(verified_proof(first).empty());
    a.kill9();
  }
  auto c = engine::pg_connection::open(*db).value();
  auto row = c->exec("read the job", "SELECT state, ran_on FROM jobs WHERE id = $1", {job});
  ASSERT_TRUE(row.is_ok()) << row.error().to_string();
  ASSERT_EQ(row->size(), 1);
  EXPECT_EQ(row->i64(0, 0), static_cast<int64_t>(engine::job_state::done));
  EXPECT_FALSE(row->text(0, 1).empty());  // "cpu", or a device slot where a GPU answered

  pg_daemon b("b", *db, poseidon_zkey, "lease_s = 2");
  ASSERT_TRUE(b.up()) << "the second daemon did not answer";
  auto [rc, again] = b.cli("await --timeout-ms 10000 " + job);
  ASSERT_EQ(rc, 0) << again;
  EXPECT_EQ(verified_proof(again), verified_proof(first));

  // While b runs, a daemon of b's node name refuses to start (after half a lease's look at the name's
  // heartbeat); one of another name works beside it (daemon_cluster_test.cpp).
  const std::string twin = b.dir + "/twin.toml";
  std::ofstream(twin) << "data_dir = \"" << b.dir << "/twin\"\nhttp = \"\"\ndatabase = \"" << *db
                      << "\"\nnode_name = \"b\"\nlease_s = 2\n";
  std::tie(rc, again) = run_command(std::string(CUZK_BIN) + " daemon --config " + twin);
  EXPECT_NE(rc, 0) << again;
  EXPECT_NE(again.find("another live daemon of this name"), std::string::npos) << again;
}

// The cluster in /status (cluster_status.hpp) of a daemon on PostgreSQL: over HTTP (the public view)
// and `cuzk status` (the full one) it lists this daemon as an alive node with its report, the key it
// proved with among its resident keys, beside a node that reported an hour ago and shows stale; the
// queue is counted by priority over the whole database. The status page shows them in a browser.
TEST(daemon_postgres, status_shows_the_cluster_its_nodes_and_the_queue_by_priority) {
  engine::pg_test_cluster* cluster = engine::pg_test_cluster::shared();
  if (!cluster) GTEST_SKIP() << engine::pg_test_cluster::unavailable_reason();
  const auto db = cluster->fresh_database("view");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();
  auto c = engine::pg_connection::open(*db).value();
  ASSERT_TRUE(engine::pg_migrate(*c).is_ok());
  ASSERT_TRUE(c->exec("a node that died",
                      "INSERT INTO nodes (id, heartbeat_at, report, reported_at) VALUES ('dead-node', "
                      "now() - interval '1 hour', '{\"version\": \"0.0.1\"}', now() - interval '1 hour')")
                  .is_ok());

  pg_daemon d("view", *db, poseidon_zkey, "", "poseidon", free_port());
  ASSERT_TRUE(d.up()) << "the daemon did not answer";
  auto [rc, out] = d.cli("prove-remote -c poseidon " + poseidon_wtns);  // the key is then resident
  ASSERT_EQ(rc, 0) << out;
  // Jobs of other nodes' clients in the shared queue, two CRITICAL ones queued and a LOW one running.
  // This daemon claims any claimable job, so they carry an hour's lease of a node the test only
  // names: its claimer passes them over, and the queue counts them by their state.
  ASSERT_TRUE(
      c->exec("queue",
              "INSERT INTO jobs (circuit, priority, state, partitions, submitted_ms, lease_node, "
              "lease_expires_at) SELECT 'elsewhere', p, s, 1, 0, 'elsewhere', now() + interval '1 hour' "
              "FROM (VALUES (3, 0), (3, 0), (0, 3)) AS v (p, s)")
          .is_ok());

  const std::string self = d.name;  // its config's node_name: the view shows the leases' name
  httplib::Client http("127.0.0.1", d.http_port);
  http.set_read_timeout(10, 0);
  nlohmann::json cl;
  auto node = [](const nlohmann::json& view, const std::string& id) {
    for (const auto& n : view["nodes"])
      if (n["id"] == id) return n;
    return nlohmann::json();
  };
  auto has_both = [&](const nlohmann::json& view) {
    const auto me = node(view, self);
    return view.contains("queue") && view["queue"].contains("CRITICAL") &&
           view["queue"]["CRITICAL"]["queued"] == 2 && view["nodes"].size() == 2 && me.contains("report") &&
           me["report"].contains("resident_keys") && !me["report"]["resident_keys"].empty();
  };
  // The view is read every 2 s: within a few, /status has the jobs and the key.
  for (auto until = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(200ms)) {
    auto st = http.Get("/status");
    ASSERT_TRUE(st);
    const auto doc = nlohmann::json::parse(st->body);
    ASSERT_TRUE(doc.contains("cluster")) << st->body;
    EXPECT_FALSE(doc["config"].contains("database"));  // the public view, as before
    cl = doc["cluster"];
    if (has_both(cl)) break;
  }
  ASSERT_TRUE(has_both(cl)) << cl.dump(2);
  auto dead = node(cl, "dead-node");
  EXPECT_EQ(dead["alive"], false);
  EXPECT_GT(dead["heartbeat_age_s"].get<double>(), 3000);
  EXPECT_EQ(dead["report"]["version"], "0.0.1");
  auto me = node(cl, self);
  EXPECT_EQ(me["self"], true);
  EXPECT_EQ(me["alive"], true);
  EXPECT_LT(me["heartbeat_age_s"].get<double>(), 10);
  EXPECT_EQ(me["report"]["version"], version());
  EXPECT_EQ(me["report"]["accepting"], true);
  EXPECT_GE(me["report"]["workers"].get<int>(), 1);
  EXPECT_TRUE(me["report"]["devices"].is_array());
  EXPECT_EQ(me["report"]["resident_keys"][0]["circuit"], "poseidon");
  EXPECT_EQ(cl["queue"]["LOW"], (nlohmann::json{{"queued", 0}, {"running", 1}}));
  EXPECT_EQ(cl["queue"]["NORMAL"], (nlohmann::json{{"queued", 0}, {"running", 0}}));  // the proof ended
  EXPECT_EQ(cl["stale_after_s"], 10.0);

  // `cuzk status`, the full view over the socket, carries the same cluster.
  std::tie(rc, out) = d.cli("status");
  ASSERT_EQ(rc, 0) << out;
  const auto full = nlohmann::json::parse(out.substr(out.find('{')));
  EXPECT_EQ(full["config"]["database"], *db);
  ASSERT_EQ(full["cluster"]["nodes"].size(), 2u);
  EXPECT_EQ(node(full["cluster"], self)["self"], true);
  EXPECT_EQ(full["cluster"]["queue"]["CRITICAL"]["queued"], 2);
  std::tie(rc, out) = d.cli("status --cluster");
  ASSERT_EQ(rc, 0) << out;
  {
    // This node's row: its name marked `*`, then (however wide the names' column) its state.
    const auto at = out.find("\n" + self + " *");
    ASSERT_NE(at, std::string::npos) << out;
    std::istringstream row(out.substr(at + 1, out.find('\n', at + 1) - at - 1));
    std::string id, mark, state;
    row >> id >> mark >> state;
    EXPECT_EQ(state, "alive") << out;
  }
  EXPECT_NE(out.find("dead-node"), std::string::npos) << out;
  EXPECT_NE(out.find("poseidon ("), std::string::npos) << out;

  const std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "no chromium-headless-shell or chromium on PATH (scripts/setup.sh installs it)";
  auto [brc, dom] = browser_dom(chromium, d.dir + "/chromium-profile",
                                "http://127.0.0.1:" + std::to_string(d.http_port) + "/");
  ASSERT_EQ(brc, 0) << dom;
  EXPECT_EQ(dom.find("id=\"cluster-section\" hidden"), std::string::npos) << dom;
  EXPECT_NE(dom.find("id=\"node-" + self + "\">" + self + " (this node)<"), std::string::npos) << dom;
  EXPECT_NE(dom.find("id=\"node-dead-node\">dead-node<"), std::string::npos) << dom;
  EXPECT_NE(dom.find("id=\"cluster-queued-CRITICAL\">2<"), std::string::npos) << dom;
  EXPECT_NE(dom.find(">stale, "), std::string::npos) << dom;
}

}  // namespace
}  // namespace cuzk::service
