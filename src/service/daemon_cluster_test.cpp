// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster as it must behave (every job delivered once, a dead node's jobs finished elsewhere
// within its lease), with real daemons on the throwaway PostgreSQL server
// (engine/jobs/pg_test_cluster.hpp), CPU backend: three daemons share one queue; 8 clients submit
// 300 small proofs to random nodes (inline witnesses, spooled under a root the daemons share) and
// await each on a random node; one daemon is killed with SIGKILL while it proves, and a fourth joins
// halfway. Every job is delivered exactly once (checked in the database: 300 rows, one per request
// id, each done), every proof verifies (here, and under snarkjs in one node process:
// tests/cluster/verify_proofs.js), and the jobs the dead node held end on other nodes within its
// lease plus 30 s. Its own binary, labelled `cluster`: `ctest -L cluster`.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/pg_daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using namespace test;

const std::string zkey = data_dir + "/snarkjs/bn128/circuit.zkey";
const std::string wtns = data_dir + "/snarkjs/bn128/circuit.wtns";
const std::string vk = data_dir + "/snarkjs/bn128/verification_key.json";
const std::string snarkjs = std::string(CUZK_SOURCE_DIR) + "/tools/node/node_modules/snarkjs";
const std::string verify_script = std::string(CUZK_SOURCE_DIR) + "/tests/cluster/verify_proofs.js";

constexpr int jobs = 300;
constexpr int clients = 8;
constexpr int lease_s = 5;

bool verifies(const std::string& out) { return proof_document_check(vk, printed_document(out)).empty(); }

TEST(daemon_cluster, three_daemons_one_killed_one_joining_deliver_every_job_once) {
  engine::pg_test_cluster* server = engine::pg_test_cluster::shared();
  if (!server) GTEST_SKIP() << engine::pg_test_cluster::unavailable_reason();
  const auto db = server->fresh_database("cluster");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();
  const std::string root = (fs::temp_directory_path() / ("cuzk-cluster-" + std::to_string(::getpid()))).string();
  fs::remove_all(root);
  fs::create_directories(root + "/spool");
  fs::create_directories(root + "/proofs");
  // One worker and one proving thread each: four daemons share the test machine's two cores.
  const std::string extra = "backend = \"cpu\"\nworkers = 1\nthreads = 1\nlease_s = " + std::to_string(lease_s) +
                            "\nspool_dir = \"" + root + "/spool\"\n";
  std::vector<std::unique_ptr<pg_daemon>> nodes;
  nodes.reserve(4);  // never moved while clients pick from it
  for (const char* n : {"n1", "n2", "n3"}) nodes.push_back(std::make_unique<pg_daemon>(n, *db, zkey, extra, "mul"));
  for (const auto& n : nodes) ASSERT_TRUE(n->up()) << n->name << " did not answer";

  std::mutex m;  // nodes' liveness, failures
  std::vector<bool> alive = {true, true, true};
  std::vector<std::string> failures;
  auto pick = [&](std::mt19937& rng) {
    std::lock_guard lk(m);
    for (;;) {
      const std::size_t i = rng() % alive.size();
      if (alive[i]) return nodes[i].get();
    }
  };
  std::atomic<int> submitted{0}, next{0};
  auto client = [&](int seed) {
    std::mt19937 rng(seed);
    for (int k; (k = next++) < jobs;) {
      const std::string rid = "job-" + std::to_string(k);
      std::string id;
      // A node killed mid-request gives an error: the same request id on another node is the same
      // job if the first one acknowledged it, and a new one if it did not.
      for (int attempt = 0; attempt < 20 && id.empty(); ++attempt) {
        auto [rc, out] = pick(rng)->cli("submit -c mul --request-id " + rid + " " + wtns);
        if (rc == 0) id = out.substr(0, out.find('\n'));
      }
      if (id.empty()) {
        std::lock_guard lk(m);
        failures.push_back(rid + ": not submitted");
        continue;
      }
      ++submitted;
      std::string proof;
      for (int attempt = 0; attempt < 20 && proof.empty(); ++attempt) {
        auto [rc, out] = pick(rng)->cli("await --timeout-ms 120000 " + id);
        if (rc == 0) proof = out;
      }
      std::ofstream(root + "/proofs/" + rid + ".json") << proof;
      if (!verifies(proof)) {
        std::lock_guard lk(m);
        failures.push_back(rid + " (job " + id + "): no verifying proof: " + proof.substr(0, 300));
      }
    }
  };
  const auto t0 = steady::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) threads.emplace_back(client, 1000 + c);

  auto pg = engine::pg_connection::open(*db).value();
  // n2 is killed while it proves: once it holds a job that has started (the state the store keeps).
  // A small proof takes milliseconds, so a job seen started may be done before a kill lands: n2 is
  // frozen first (SIGSTOP), what it holds is read while nothing of it moves, and it is killed only
  // when that is a started job; otherwise it goes on and the wait starts again.
  while (submitted < jobs / 5) std::this_thread::sleep_for(20ms);
  std::vector<std::string> held;
  steady::time_point killed_at;
  int64_t killed_ms = 0;
  const char* started_by_n2 = "SELECT id FROM jobs WHERE lease_node = 'n2' AND state IN (1, 2, 3, 4)";
  for (auto until = steady::now() + 60s; steady::now() < until && killed_ms == 0;
       std::this_thread::sleep_for(5ms)) {
    auto seen = pg->exec("read", started_by_n2);
    if (!seen || seen->size() == 0) continue;
    nodes[1]->pause();
    // A commit n2 sent just before the stop reaches the server within this.
    std::this_thread::sleep_for(200ms);
    auto rows = pg->exec("read", started_by_n2);
    if (!rows || rows->size() == 0) {
      nodes[1]->resume();
      continue;
    }
    {
      std::lock_guard lk(m);
      alive[1] = false;
    }
    nodes[1]->kill9();
    killed_at = steady::now();
    killed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  }
  ASSERT_NE(killed_ms, 0) << "n2 never held a started job";
  auto held_rows = pg->exec("read", "SELECT id FROM jobs WHERE lease_node = 'n2' AND state NOT IN (5, 6, 7)");
  ASSERT_TRUE(held_rows.is_ok());
  for (int r = 0; r < held_rows->size(); ++r) held.push_back(held_rows->text(r, 0));
  EXPECT_FALSE(held.empty());

  // A fourth joins halfway.
  while (submitted < jobs / 2) std::this_thread::sleep_for(20ms);
  auto n4 = std::make_unique<pg_daemon>("n4", *db, zkey, extra, "mul");
  EXPECT_TRUE(n4->up()) << "n4 did not answer";
  {
    std::lock_guard lk(m);
    nodes.push_back(std::move(n4));
    alive.push_back(true);
  }
  for (auto& t : threads) t.join();
  const double took = std::chrono::duration<double>(steady::now() - t0).count();
  std::cout << "[ cluster  ] " << jobs << " jobs in " << took << " s; n2 killed holding " << held.size()
            << " job(s) " << std::chrono::duration<double>(killed_at - t0).count() << " s in\n";
  for (const auto& f : failures) ADD_FAILURE() << f;

  // Exactly once: one row per request id, every one done, none twice.
  auto all = pg->exec("read",
                      "SELECT count(*), count(DISTINCT request_id), count(*) FILTER (WHERE state = 5), "
                      "count(DISTINCT lease_node) FROM jobs");
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->i64(0, 0), jobs);
  EXPECT_EQ(all->i64(0, 1), jobs);
  EXPECT_EQ(all->i64(0, 2), jobs);
  EXPECT_GE(all->i64(0, 3), 3);  // n4 took work too, or n2 finished some before it died
  auto parts = pg->exec("read", "SELECT count(*) FROM job_partitions WHERE proof_json IS NOT NULL");
  ASSERT_TRUE(parts.is_ok());
  EXPECT_EQ(parts->i64(0, 0), jobs);
  // The dead node's jobs: finished by another node within the lease plus 30 s of the kill.
  int64_t slowest_ms = 0;
  for (const auto& id : held) {
    auto r = pg->exec("read", "SELECT state, finished_ms, lease_node FROM jobs WHERE id = $1", {id});
    ASSERT_TRUE(r.is_ok() && r->size() == 1);
    EXPECT_EQ(r->i64(0, 0), 5) << "job " << id;
    EXPECT_NE(r->text(0, 2), "n2") << "job " << id;
    EXPECT_LE(r->i64(0, 1) - killed_ms, (lease_s + 30) * 1000) << "job " << id;
    slowest_ms = std::max(slowest_ms, r->i64(0, 1) - killed_ms);
  }
  std::cout << "[ cluster  ] the dead node's jobs ended " << slowest_ms / 1000.0 << " s after the kill (lease "
            << lease_s << " s)\n";

  // snarkjs verifies all 300 in one process.
  if (!fs::exists(snarkjs + "/package.json")) {
    std::cout << "[ cluster  ] snarkjs not installed (cd tools/node && npm ci): its check skipped\n";
  } else {
    auto [rc, out] = run_command("node " + verify_script + " " + snarkjs + " " + vk + " " + root + "/proofs");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("verified " + std::to_string(jobs) + " of " + std::to_string(jobs)), std::string::npos) << out;
  }
  nodes.clear();
  fs::remove_all(root);
}

}  // namespace
}  // namespace cuzk::service
