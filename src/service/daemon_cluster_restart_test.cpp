// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster through restarts of its database (docs/HARDENING.md, finding 24, with real daemons):
// three `cuzk daemon` processes, each with its own config and data_dir, share one queue on the
// throwaway PostgreSQL server (engine/jobs/pg_test_cluster.hpp), CPU backend. 8 clients submit 300
// proofs through the `cuzk` command, each under a request id and with a witness of its own (the
// multiplier with d = 7 + k, so its public signals name it), to random nodes, and await each on a
// random node; a client whose call fails sends it again, as a client of the API does. While they
// run the server is restarted twice: as an operator restarts it (`pg_ctl restart -m fast`), then
// its postmaster killed with SIGKILL and started again (crash recovery). Before each, a node that
// holds a started job is frozen (SIGSTOP), and let go once the server is down: that job meets the
// outage in flight, its result or its read waiting for the server (the daemons' logs say which).
// Then: 300 jobs DONE and none FAILED (the database's rows and every await), every proof verifies
// with its own public signals (cuzk's verifier here, and snarkjs's library in one node process:
// tests/cluster/verify_proofs.js), every request id submitted again (through the C++ client)
// returns its job, which awaits as done with its proof (no request id is burnt), and the shared
// spool is left empty. Its own ctest case, labelled `cluster` (ctest -L cluster).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "engine/engine_test_util.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "service/client.hpp"
#include "service/pg_daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using test::pg_daemon;
using test::printed_document;
using test::proof_document_check;

const std::string zkey = test::data_dir + "/snarkjs/bn128/circuit.zkey";
const std::string wtns = test::data_dir + "/snarkjs/bn128/circuit.wtns";
const std::string vk = test::data_dir + "/snarkjs/bn128/verification_key.json";
const std::string snarkjs = std::string(CUZK_SOURCE_DIR) + "/tools/node/node_modules/snarkjs";
const std::string verify_script = std::string(CUZK_SOURCE_DIR) + "/tests/cluster/verify_proofs.js";

constexpr int jobs = 300;
constexpr int clients = 8;
// Longer than either outage with a node frozen through it (below), so that no job is taken over:
// what is checked is that the jobs' own nodes finish them.
constexpr int lease_s = 15;

// The daemons' lines for a job in flight that met an outage: a proof whose result commit failed
// (engine_worker.cpp), and a claim made before the outage whose job's rows could not be read
// (cluster_member.cpp). Each waits for the server and goes on.
constexpr const char* parked_line = "its result waits for the job store";
constexpr const char* unread_line = "waits to be read, the database out of reach";

int count_lines_with(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

TEST(daemon_cluster, three_daemons_lose_no_proof_through_a_fast_restart_and_a_kill_of_the_database) {
  engine::pg_test_cluster* server = engine::pg_test_cluster::shared();
  if (!server) GTEST_SKIP() << engine::pg_test_cluster::unavailable_reason();
  const auto db = server->fresh_database("cluster_restarts");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();
  const std::string root =
      (fs::temp_directory_path() / ("cuzk-cluster-restarts-" + std::to_string(::getpid()))).string();
  fs::remove_all(root);
  for (const char* d : {"/spool", "/proofs", "/witnesses", "/logs"}) fs::create_directories(root + d);
  for (int k = 0; k < jobs; ++k) {
    const auto bytes = engine::test::multiplier_witness(wtns, static_cast<unsigned>(k));
    std::ofstream(root + "/witnesses/" + std::to_string(k) + ".wtns", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // One worker and one proving thread each: three daemons share the test machine's two cores.
  const std::string extra =
      "backend = \"cpu\"\nworkers = 1\nthreads = 1\nlease_s = " + std::to_string(lease_s) +
      "\nspool_dir = \"" + root + "/spool\"\n";
  const std::vector<std::string> names = {"n1", "n2", "n3"};
  std::vector<std::unique_ptr<pg_daemon>> nodes;
  for (const auto& n : names)
    nodes.push_back(std::make_unique<pg_daemon>(n, *db, zkey, extra, "mul", 0, root + "/logs/" + n + ".log"));
  for (const auto& n : nodes) ASSERT_TRUE(n->up()) << n->name << " did not answer";

  std::mutex m;     // frozen, failures, first_refusal
  int frozen = -1;  // the node held stopped through an outage: clients leave it alone meanwhile
  std::vector<std::string> failures;
  std::string first_refusal;
  auto pick = [&](std::mt19937& rng) {
    std::lock_guard lk(m);
    for (;;) {
      const int i = static_cast<int>(rng() % nodes.size());
      if (i != frozen) return nodes[i].get();
    }
  };
  auto fail = [&](const std::string& what) {
    std::lock_guard lk(m);
    failures.push_back(what);
  };
  std::vector<std::string> ids(jobs);
  std::atomic<int> submitted{0}, next{0}, refused_submits{0}, refused_awaits{0};
  auto client = [&](int seed) {
    std::mt19937 rng(seed);
    for (int k; (k = next++) < jobs;) {
      const std::string rid = "restarts-" + std::to_string(k);
      const std::string witness = root + "/witnesses/" + std::to_string(k) + ".wtns";
      // A call that meets an outage is answered UNAVAILABLE: sent again under the same request id,
      // to any node. A submit whose answer was lost returns the same job the second time.
      std::string id;
      for (auto until = steady::now() + 120s; id.empty() && steady::now() < until;) {
        auto [rc, out] = pick(rng)->cli("submit -c mul --request-id " + rid + " " + witness);
        if (rc == 0) {
          id = out.substr(0, out.find('\n'));
          break;
        }
        if (refused_submits++ == 0) {
          std::lock_guard lk(m);
          first_refusal = out;
        }
        std::this_thread::sleep_for(100ms);
      }
      if (id.empty()) {
        fail(rid + ": not submitted in 120 s");
        continue;
      }
      ids[k] = id;
      ++submitted;
      std::string proof;
      for (auto until = steady::now() + 120s; proof.empty() && steady::now() < until;) {
        auto [rc, out] = pick(rng)->cli("await --timeout-ms 60000 " + id);
        if (rc == 0) {
          proof = out;
          break;
        }
        if (out.find("state=failed") != std::string::npos ||
            out.find("state=cancelled") != std::string::npos) {
          fail(rid + " (job " + id + ") ended: " + out.substr(0, 400));
          break;
        }
        ++refused_awaits;
        std::this_thread::sleep_for(100ms);
      }
      std::ofstream(root + "/proofs/" + rid + ".json") << proof;
      const auto doc = printed_document(proof);
      const std::string bad = proof_document_check(vk, doc);
      if (!bad.empty()) {
        fail(rid + " (job " + id + "): no verifying proof: " + bad.substr(0, 200) + " | " +
             proof.substr(0, 300));
      } else if (doc["publicSignals"] != nlohmann::json::parse(engine::test::multiplier_public(k))) {
        fail(rid + " (job " + id + "): another job's public signals: " + doc["publicSignals"].dump());
      }
    }
  };
  const auto t0 = steady::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) threads.emplace_back(client, 2000 + c);

  // The test's own connection to the database, opened again after each outage.
  std::unique_ptr<engine::pg_connection> pg;
  auto reconnect = [&] {
    pg.reset();
    for (auto until = steady::now() + 30s; !pg && steady::now() < until; std::this_thread::sleep_for(100ms))
      if (auto c = engine::pg_connection::open(*db)) pg = std::move(c).value();
    EXPECT_TRUE(pg) << "the server did not take a connection again";
    return pg != nullptr;
  };
  reconnect();
  // A small proof takes a millisecond, so an outage would rarely meet one in flight. Before each,
  // a node that holds a started job (the state its row keeps) is frozen with SIGSTOP, to be let go
  // while the server is down: its job then goes on into the outage, as a long proof's does.
  auto freeze_a_node_in_flight = [&]() -> int {
    if (!pg) return -1;
    for (auto until = steady::now() + 60s; steady::now() < until; std::this_thread::sleep_for(5ms)) {
      auto seen = pg->exec("read", "SELECT lease_node FROM jobs WHERE state IN (1, 2, 3, 4) LIMIT 1");
      if (!seen || seen->size() == 0) continue;
      const std::string node = seen->text(0, 0);
      const auto it = std::find(names.begin(), names.end(), node);
      if (it == names.end()) continue;
      const int i = static_cast<int>(it - names.begin());
      nodes[i]->pause();
      std::this_thread::sleep_for(200ms);  // a commit sent just before the stop reaches the server
      auto still =
          pg->exec("read", "SELECT 1 FROM jobs WHERE lease_node = $1 AND state IN (1, 2, 3, 4)", {node});
      if (still && still->size() > 0) {
        std::lock_guard lk(m);
        frozen = i;
        return i;
      }
      nodes[i]->resume();
    }
    return -1;
  };
  auto let_go = [&](int i) {
    nodes[i]->resume();
    std::lock_guard lk(m);
    frozen = -1;
  };
  auto wait_submitted = [&](int at_least) {
    for (auto until = steady::now() + 180s; submitted < at_least && steady::now() < until;)
      std::this_thread::sleep_for(5ms);
  };

  auto lines_so_far = [&](const char* needle) {
    int n = 0;
    for (const auto& name : names) n += count_lines_with(root + "/logs/" + name + ".log", needle);
    return n;
  };
  // One outage: a node frozen in flight, the server taken down, the node let go while it is down,
  // a second for its job to meet the outage, and the server brought back. The store's row says a
  // job is claimed, not how far its node got: frozen after reading the job's rows, the node proves
  // it and its result waits (every statement fails meanwhile, whichever of its threads tries first);
  // frozen before, the claimed job waits to be read. Either is a job in flight through the outage.
  // Its length and what waited through it.
  struct outage_seen {
    double seconds = 0;
    int parked = 0, unread = 0;
  };
  auto outage = [&](const std::function<status()>& down, const std::function<status()>& up) {
    outage_seen seen;
    const int parked_before = lines_so_far(parked_line), unread_before = lines_so_far(unread_line);
    const int i = freeze_a_node_in_flight();
    EXPECT_GE(i, 0) << "no node held a started job";
    const auto from = steady::now();
    const status went = down();
    EXPECT_TRUE(went.is_ok()) << went.to_string();
    if (i >= 0) let_go(i);
    std::this_thread::sleep_for(1s);
    const status back = up();
    EXPECT_TRUE(back.is_ok()) << back.to_string();
    seen.seconds = std::chrono::duration<double>(steady::now() - from).count();
    seen.parked = lines_so_far(parked_line) - parked_before;
    seen.unread = lines_so_far(unread_line) - unread_before;
    EXPECT_GT(seen.parked + seen.unread, 0) << "no job in flight met the outage";
    reconnect();
    return seen;
  };
  wait_submitted(jobs / 4);
  // pg_ctl restart -m fast: sessions ended, then up again.
  const outage_seen fast = outage([&] { return server->stop(); }, [&] { return server->start(); });
  wait_submitted(2 * jobs / 3);
  // kill -9 of the postmaster, then a start that recovers from the write-ahead log.
  const outage_seen crash =
      outage([&] { return server->kill(); }, [&] { return server->start_after_crash(); });

  for (auto& t : threads) t.join();
  const double took = std::chrono::duration<double>(steady::now() - t0).count();
  ASSERT_TRUE(reconnect());
  EXPECT_GT(refused_submits.load(), 0) << "no submit met an outage";
  if (refused_submits > 0) {
    // A refusal says what passes: the store is out of reach for now, not that the request is wrong.
    EXPECT_NE(first_refusal.find("navailable"), std::string::npos) << first_refusal;
  }

  // 300 jobs, one per request id, every one done, none failed.
  auto all =
      pg->exec("read",
               "SELECT count(*), count(DISTINCT request_id), count(*) FILTER (WHERE state = 5), "
               "count(*) FILTER (WHERE state = 6), count(DISTINCT lease_node), max(attempts) FROM jobs");
  ASSERT_TRUE(all.is_ok()) << all.error().to_string();
  EXPECT_EQ(all->i64(0, 0), jobs);
  EXPECT_EQ(all->i64(0, 1), jobs);
  EXPECT_EQ(all->i64(0, 2), jobs);
  EXPECT_EQ(all->i64(0, 3), 0);

  // No request id burnt: each submitted again, with its witness, to another node than the one that
  // awaited last, returns its job, which that node returns done with its proof. Through the gRPC
  // API's C++ client (client.hpp), the same calls the command makes, without a process per call.
  std::vector<std::unique_ptr<v1::ProvingEngine::Stub>> stubs;
  for (const auto& n : nodes) stubs.push_back(make_stub(connect(n->sock, "")));
  std::atomic<int> again{0};
  const auto retried_from = steady::now();
  std::vector<std::thread> retries;
  for (int c = 0; c < clients; ++c)
    retries.emplace_back([&, c] {
      for (int k = c; k < jobs; k += clients) {
        const std::string rid = "restarts-" + std::to_string(k);
        auto& stub = *stubs[static_cast<std::size_t>(k + 1) % stubs.size()];
        v1::SubmitProofRequest req;
        req.set_circuit("mul");
        req.set_request_id(rid);
        req.add_partitions()->set_wtns(test::read_file(root + "/witnesses/" + std::to_string(k) + ".wtns"));
        v1::SubmitProofResponse resp;
        grpc::ClientContext submit_ctx;
        const grpc::Status s = stub.SubmitProof(&submit_ctx, req, &resp);
        if (!s.ok() || std::to_string(resp.job_id()) != ids[k]) {
          fail(rid + ": submitted again, answered " +
               (s.ok() ? "job " + std::to_string(resp.job_id()) : s.error_message()) + " instead of job " +
               ids[k]);
          continue;
        }
        v1::AwaitProofRequest await;
        await.set_job_id(resp.job_id());
        await.set_timeout_ms(10000);
        v1::ProofResult r;
        grpc::ClientContext await_ctx;
        const grpc::Status a = stub.AwaitProof(&await_ctx, await, &r);
        const std::string bad =
            !a.ok() ? a.error_message()
            : r.state() != v1::DONE || r.proofs_size() != 1
                ? "state " + std::to_string(r.state()) + ", " + std::to_string(r.proofs_size()) + " proofs"
                : test::proof_check(vk, r.proofs(0).proof_json(), r.proofs(0).public_json());
        if (!bad.empty())
          fail(rid + " (job " + ids[k] + "): submitted again, its await answered " + bad);
        else
          ++again;
      }
    });
  for (auto& t : retries) t.join();
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_EQ(again.load(), jobs);
  const double retried_s = std::chrono::duration<double>(steady::now() - retried_from).count();

  std::cout << "[ restarts ] " << jobs << " jobs through 3 daemons in " << took << " s; the server down "
            << fast.seconds << " s for the fast restart (" << fast.parked << " result(s) and " << fast.unread
            << " claimed job(s) waited for it), " << crash.seconds << " s for the kill and crash recovery ("
            << crash.parked << " and " << crash.unread << "); submits refused meanwhile "
            << refused_submits.load() << ", awaits " << refused_awaits.load()
            << "; nodes that proved: " << all->i64(0, 4) << "; most attempts of a job: " << all->i64(0, 5)
            << "; every request id submitted again in " << retried_s << " s\n";

  // Nothing is left in the shared spool: the witnesses of the ended jobs and of the submits the
  // outages refused, and the results kept while they waited for the server, are all removed.
  std::vector<std::string> left;
  for (auto until = steady::now() + 10s;; std::this_thread::sleep_for(100ms)) {
    left.clear();
    for (const auto& e : fs::recursive_directory_iterator(root + "/spool"))
      if (e.is_regular_file()) left.push_back(e.path().string());
    if (left.empty() || steady::now() > until) break;
  }
  EXPECT_TRUE(left.empty()) << left.size() << " files left in the spool, " << left.front();

  // snarkjs verifies all 300 in one process.
  if (!fs::exists(snarkjs + "/package.json")) {
    std::cout << "[ restarts ] snarkjs not installed (cd tools/node && npm ci): its check skipped\n";
  } else {
    auto [rc, out] =
        test::run_command("node " + verify_script + " " + snarkjs + " " + vk + " " + root + "/proofs");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("verified " + std::to_string(jobs) + " of " + std::to_string(jobs)), std::string::npos)
        << out;
  }
  nodes.clear();
  // What the daemons logged, where the test failed: the outages' lines and any job's end.
  if (HasFailure())
    for (const auto& n : names)
      std::cout << "[ restarts ] " << n << "'s log:\n" << test::read_file(root + "/logs/" + n + ".log");
  fs::remove_all(root);
}

}  // namespace
}  // namespace cuzk::service
