// SPDX-License-Identifier: MIT OR Apache-2.0
// Several engines on one PostgreSQL queue (engine_cluster.cpp), on the throwaway server
// (jobs/pg_test_cluster.hpp), each engine a node of its own name: every job is proved once by
// whichever node claims it and awaited from any node; a CRITICAL job goes before the NORMAL ones
// queued ahead of it on whichever node frees a worker first; a cancel sent to one node stops a job
// running on another; a second live node of the same name is refused; a drain gives unstarted
// claims back. The kill -9 of a whole daemon is service/daemon_cluster_test.cpp's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "engine/backends/cpu_prover_backend.hpp"
#include "engine/engine_test_util.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_job_leases.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using test::multiplier_public;
using test::multiplier_witness;

const std::string small_vk = test::data_dir + "/snarkjs/bn128/verification_key.json";

engine_options node_options(const std::string& db, const std::string& spool_root, const std::string& node) {
  engine_options o;
  o.database = db;
  o.spool_dir = spool_root;
  o.cluster.node_name = node;
  o.cluster.lease = 1500ms;
  o.cluster.poll = 200ms;
  o.workers = 1;
  o.backend = groth16::prover_kind::cpu;
  o.key_copy_dir = spool_root;
  return o;
}

// A node proving with the real CPU prover, the multiplier circuit registered as "mul".
std::unique_ptr<engine> real_node(const std::string& db, const std::string& root, const std::string& node) {
  auto e = engine::create(node_options(db, root, node));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  if (!e) return nullptr;
  EXPECT_TRUE((*e)->register_circuit("mul", test::small_zkey).is_ok());
  return std::move(e).value();
}

// A node whose prover waits at `gate` (its proofs do not verify: verification off).
std::unique_ptr<engine> gated_node(const std::string& db, const std::string& root, const std::string& node,
                                   test::gated_backend*& gate, bool open = false) {
  auto b = std::make_unique<test::gated_backend>(20ms, open);
  gate = b.get();
  engine_parts parts;
  parts.backend = std::move(b);
  auto o = node_options(db, root, node);
  o.verify_proofs = false;
  auto e = engine::create(o, std::move(parts));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  if (!e) return nullptr;
  EXPECT_TRUE((*e)->register_circuit("mul", test::small_zkey).is_ok());
  return std::move(e).value();
}

job_request multiplier_request(unsigned k, std::optional<priority> prio = std::nullopt) {
  job_request r;
  r.circuit = "mul";
  r.prio = prio;
  r.partitions.push_back(witness_input::from_bytes(multiplier_witness(test::small_wtns, k)));
  return r;
}

TEST(engine_cluster, two_nodes_prove_each_job_once_and_either_awaits_any) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_once");
  const std::string root = test::temp_dir("cluster-once");
  auto a = real_node(db, root, "node-a"), b = real_node(db, root, "node-b");
  ASSERT_TRUE(a && b);
  constexpr unsigned n = 16;
  std::vector<job_id> ids;
  for (unsigned k = 0; k < n; ++k) {
    auto id = (k % 2 == 0 ? *a : *b).submit(multiplier_request(k));
    ASSERT_TRUE(id.is_ok()) << id.error().to_string();
    ids.push_back(*id);
  }
  for (unsigned k = 0; k < n; ++k) {
    // Awaited on the node it was not submitted to: whichever proved it.
    auto r = (k % 2 == 0 ? *b : *a).await(ids[k], 60s);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    ASSERT_EQ(r->state, job_state::done) << r->error.to_string();
    ASSERT_EQ(r->proofs.size(), 1u);
    test::expect_valid_proof<bn254>(r->proofs[0], small_vk, multiplier_public(k));
  }
  auto c = pg_connection::open(db).value();
  auto rows = c->exec("read", "SELECT count(*), count(DISTINCT lease_node), sum(attempts), "
                              "count(*) FILTER (WHERE state = 5) FROM jobs");
  ASSERT_TRUE(rows.is_ok());
  EXPECT_EQ(rows->i64(0, 0), n);
  EXPECT_EQ(rows->i64(0, 3), n);  // done
  EXPECT_EQ(rows->i64(0, 2), n);  // each claimed once
  EXPECT_EQ(rows->i64(0, 1), 2);  // both nodes proved some
  // The inline witnesses were spooled per node under the shared root, and deleted once proved.
  EXPECT_TRUE(std::filesystem::is_directory(root + "/node-a"));
  EXPECT_TRUE(std::filesystem::is_empty(root + "/node-a"));
  EXPECT_TRUE(std::filesystem::is_empty(root + "/node-b"));
}

TEST(engine_cluster, a_critical_job_goes_before_the_normal_ones_queued_ahead_of_it) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_critical");
  const std::string root = test::temp_dir("cluster-critical");
  test::gated_backend *ga = nullptr, *gb = nullptr;
  auto a = gated_node(db, root, "node-a", ga), b = gated_node(db, root, "node-b", gb);
  ASSERT_TRUE(a && b);
  std::vector<job_id> normal;
  for (unsigned k = 0; k < 100; ++k) normal.push_back(a->submit(multiplier_request(k, priority::normal)).value());
  // Each node runs one and claims no more while its one worker is busy.
  ASSERT_TRUE(ga->wait_calls(1) && gb->wait_calls(1));
  const job_id critical = b->submit(multiplier_request(100, priority::critical)).value();
  ga->open();
  gb->open();
  auto r = a->await(critical, 30s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  // Ended before all NORMAL jobs but the two that were running and the one the other node's
  // freed worker took at the same moment.
  auto c = pg_connection::open(db).value();
  auto rows = c->exec("read",
                      "SELECT count(*) FROM jobs WHERE priority = $1 AND state = 5 AND finished_ms < "
                      "(SELECT finished_ms FROM jobs WHERE id = $2)",
                      {pg_text(int64_t(priority::normal)), pg_text(int64_t(critical))});
  ASSERT_TRUE(rows.is_ok());
  EXPECT_LE(rows->i64(0, 0), 3);
  for (job_id id : normal) ASSERT_EQ(b->await(id, 60s).value().state, job_state::done);
}

TEST(engine_cluster, a_cancel_sent_to_one_node_stops_a_job_running_on_another) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_cancel");
  const std::string root = test::temp_dir("cluster-cancel");
  test::gated_backend* gb = nullptr;
  auto b = gated_node(db, root, "node-b", gb);
  ASSERT_TRUE(b);
  const job_id id = b->submit(multiplier_request(1)).value();
  ASSERT_TRUE(gb->wait_calls(1));  // running on b
  test::gated_backend* ga = nullptr;
  auto a = gated_node(db, root, "node-a", ga, true);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->cancel(id).is_ok());
  // b's next heartbeat (a third of the 1.5 s lease) carries the cancel to the job's token; the
  // proof in flight then ends at its next phase boundary.
  std::this_thread::sleep_for(1200ms);
  gb->open();
  auto r = a->await(id, 30s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::cancelled);
  EXPECT_EQ(r->error.code(), errc::cancelled);
  EXPECT_EQ(ga->calls.load(), 0);
}

TEST(engine_cluster, a_second_live_node_of_the_same_name_is_refused) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_name");
  const std::string root = test::temp_dir("cluster-name");
  auto a = real_node(db, root, "node-a");
  ASSERT_TRUE(a);
  auto again = engine::create(node_options(db, root, "node-a"));
  ASSERT_FALSE(again.is_ok());
  EXPECT_EQ(again.error().code(), errc::already_exists) << again.error().to_string();
}

TEST(engine_cluster, a_drained_node_gives_its_claims_back_and_another_proves_them) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_drain");
  const std::string root = test::temp_dir("cluster-drain");
  test::gated_backend* ga = nullptr;
  auto a = gated_node(db, root, "node-a", ga);
  ASSERT_TRUE(a);
  const job_id id = a->submit(multiplier_request(3)).value();
  ASSERT_TRUE(ga->wait_calls(1));
  std::thread release([&] {
    std::this_thread::sleep_for(300ms);
    ga->abort();  // the proof in flight ends; the drain's cancel returns the job to the queue
  });
  a->drain(0ms);
  release.join();
  auto b = real_node(db, root, "node-b");
  ASSERT_TRUE(b);
  auto r = b->await(id, 60s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  test::expect_valid_proof<bn254>(r->proofs.at(0), small_vk, multiplier_public(3));
}


// docs/HARDENING.md, finding 17: the database server restarts while two nodes each hold a proof in
// flight. Their result commits meet the broken connection; the proofs wait, awaits are answered
// UNAVAILABLE (await again), never a final state, and once the server is back every job ends done,
// stored once, and a retry under its request id returns it.
TEST(engine_cluster, a_database_restart_mid_run_loses_no_proof) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_restart");
  const std::string root = test::temp_dir("cluster-restart");
  auto node = [&](const std::string& name, test::gated_backend*& gate) {
    auto b = std::make_unique<test::gated_backend>(20ms, false);
    gate = b.get();
    engine_parts parts;
    parts.backend = std::move(b);
    auto o = node_options(db, root, name);
    o.verify_proofs = false;
    o.cluster.lease = 20s;  // longer than the outage: the jobs stay their nodes' (no takeover)
    auto e = engine::create(o, std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    if (!e) return std::unique_ptr<engine>();
    EXPECT_TRUE((*e)->register_circuit("mul", test::small_zkey).is_ok());
    return std::move(e).value();
  };
  test::gated_backend *ga = nullptr, *gb = nullptr;
  auto a = node("node-a", ga), b = node("node-b", gb);
  ASSERT_TRUE(a && b);
  constexpr unsigned n = 24;
  std::vector<job_id> ids;
  std::vector<job_request> reqs;
  for (unsigned k = 0; k < n; ++k) {
    auto r = multiplier_request(k);
    r.request_id = "restart-" + std::to_string(k);
    auto id = (k % 2 == 0 ? *a : *b).submit(r);
    ASSERT_TRUE(id.is_ok()) << id.error().to_string();
    ids.push_back(*id);
    reqs.push_back(std::move(r));
  }
  ASSERT_TRUE(ga->wait_calls(1) && gb->wait_calls(1));  // one proof in flight on each node

  pg_test_cluster* server = pg_test_cluster::shared();
  ASSERT_TRUE(server->stop().is_ok());
  ga->open();
  gb->open();
  // The two proofs end while the server is down: their commits fail and they wait.
  std::this_thread::sleep_for(1500ms);
  int waiting = 0;
  for (unsigned k = 0; k < n; ++k) {
    auto r = (k % 2 == 0 ? *a : *b).await(ids[k], 50ms);
    if (r.is_ok()) {
      EXPECT_FALSE(is_terminal(r->state)) << "job " << ids[k] << " " << job_state_name(r->state) << " "
                                           << r->error.to_string();
      continue;
    }
    EXPECT_EQ(r.error().code(), errc::unavailable) << r.error().to_string();
    ++waiting;
  }
  EXPECT_EQ(waiting, static_cast<int>(n));  // the store cannot be read, or the result waits for it
  ASSERT_TRUE(server->start().is_ok());

  for (unsigned k = 0; k < n; ++k) {
    auto r = (k % 2 == 0 ? *b : *a).await(ids[k], 60s);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    ASSERT_EQ(r->state, job_state::done) << "job " << ids[k] << ": " << r->error.to_string();
    ASSERT_EQ(r->proofs.size(), 1u);
  }
  for (unsigned k = 0; k < n; ++k) EXPECT_EQ((k % 2 == 0 ? *b : *a).submit(reqs[k]).value(), ids[k]);
  auto c = pg_connection::open(db).value();
  auto rows = c->exec("read", "SELECT count(*), count(*) FILTER (WHERE state = 5), max(attempts) FROM jobs");
  ASSERT_TRUE(rows.is_ok()) << rows.error().to_string();
  EXPECT_EQ(rows->i64(0, 0), n);
  EXPECT_EQ(rows->i64(0, 1), n);
  EXPECT_EQ(rows->i64(0, 2), 1);  // none proved twice
}


// docs/HARDENING.md, finding 23, in a cluster: a node's proof ends while the database server is
// down, the node is stopped (a drain) before the server is back, and a node of the same name starts
// again: it claims the job back at its start and commits the outcome its spool kept, proving
// nothing.
TEST(engine_cluster, a_node_stopped_while_its_result_waits_for_the_database_commits_it_at_its_next_start) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_parked_stop");
  const std::string root = test::temp_dir("cluster-parked-stop");
  auto node = [&](test::gated_backend*& gate, bool open) {
    auto b = std::make_unique<test::gated_backend>(0ms, open);
    gate = b.get();
    engine_parts parts;
    parts.backend = std::move(b);
    auto o = node_options(db, root, "node-a");
    o.verify_proofs = false;
    o.cluster.lease = 3s;
    auto e = engine::create(o, std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    if (!e) return std::unique_ptr<engine>();
    EXPECT_TRUE((*e)->register_circuit("mul", test::small_zkey).is_ok());
    return std::move(e).value();
  };
  pg_test_cluster* server = pg_test_cluster::shared();
  test::gated_backend* first_gate = nullptr;
  auto first = node(first_gate, false);
  ASSERT_TRUE(first);
  auto req = multiplier_request(5);
  req.request_id = "parked-stop-cluster";
  const job_id id = first->submit(req).value();
  ASSERT_TRUE(first_gate->wait_calls(1));
  ASSERT_TRUE(server->stop().is_ok());
  first_gate->open();
  const std::string kept = root + "/node-a/r-" + std::to_string(id) + ".result";
  for (int k = 0; k < 500 && !std::filesystem::exists(kept); ++k) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(std::filesystem::exists(kept));
  first.reset();  // drained while the server is down
  ASSERT_TRUE(server->start().is_ok());

  test::gated_backend* second_gate = nullptr;
  auto second = node(second_gate, true);  // a proof made again would end, and be counted
  ASSERT_TRUE(second);
  auto r = second->await(id, 30s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  EXPECT_EQ(r->proofs.size(), 1u);
  EXPECT_EQ(second_gate->calls.load(), 0);
  EXPECT_FALSE(std::filesystem::exists(kept));
  EXPECT_EQ(second->submit(req).value(), id);
}

// The real CPU prover, each proof held back by `pace` first: the multiplier proves in about a
// millisecond, so without it the nodes would be idle, waiting for submits, whenever the database
// went away, and an outage would meet no proof in flight.
class paced_cpu_backend final : public prover_backend {
 public:
  explicit paced_cpu_backend(std::chrono::milliseconds pace) : pace_(pace) {}
  const char* name() const noexcept override { return "cpu"; }
  result<any_proof> prove(const prove_call& call, const any_witness& witness, const cancel_token& cancel,
                          prove_report& report) override {
    std::this_thread::sleep_for(pace_);
    return cpu_.prove(call, witness, cancel, report);
  }

 private:
  cpu_prover_backend cpu_;
  std::chrono::milliseconds pace_;
};

// docs/HARDENING.md, finding 24: finding 17 at scale. Three nodes proving with the real CPU prover,
// 300 jobs submitted each under a request id, and the database server restarted twice while they
// run: first as an operator restarts it (`pg_ctl restart -m fast`), then killed with SIGKILL and
// started again (crash recovery). Every job ends done, none failed, every proof verifies, and a
// resubmit of every request id returns its job.
TEST(engine_cluster, three_nodes_lose_no_proof_through_a_fast_restart_and_a_kill_of_the_database) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_restarts");
  const std::string root = test::temp_dir("cluster-restarts");
  std::atomic<int> parked{0};  // proofs whose result commit met an outage
  auto node = [&](const std::string& name) {
    auto o = node_options(db, root, name);
    o.cluster.lease = 5s;  // longer than each outage, so the jobs stay with their nodes through it
    o.log = [&](log_level, const std::string& line) {
      if (line.find("its result waits for the job store") != std::string::npos) ++parked;
    };
    engine_parts parts;
    parts.backend = std::make_unique<paced_cpu_backend>(40ms);
    auto e = engine::create(o, std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    if (!e) return std::unique_ptr<engine>();
    EXPECT_TRUE((*e)->register_circuit("mul", test::small_zkey).is_ok());
    return std::move(e).value();
  };
  std::vector<std::unique_ptr<engine>> nodes;
  for (const char* name : {"node-a", "node-b", "node-c"}) nodes.push_back(node(name));
  ASSERT_TRUE(nodes[0] && nodes[1] && nodes[2]);
  constexpr unsigned n = 300;
  std::vector<job_id> ids(n);
  std::vector<job_request> reqs;
  for (unsigned k = 0; k < n; ++k) {
    reqs.push_back(multiplier_request(k));
    reqs.back().request_id = "restarts-" + std::to_string(k);
  }
  // Submitted faster than the nodes prove, so that a queue builds up and proofs are in flight at
  // both outages, and each submit an outage refuses (unavailable) sent again under its request id,
  // as a client does.
  std::atomic<unsigned> submitted{0};
  std::atomic<int> refused{0};
  std::thread client([&] {
    for (unsigned k = 0; k < n; ++k) {
      const auto until = std::chrono::steady_clock::now() + 60s;
      for (;;) {
        auto id = nodes[k % 3]->submit(reqs[k]);
        if (id.is_ok()) {
          ids[k] = *id;
          break;
        }
        if (id.error().code() != errc::unavailable || std::chrono::steady_clock::now() > until) {
          ADD_FAILURE() << "request " << reqs[k].request_id << ": " << id.error().to_string();
          break;
        }
        ++refused;
        std::this_thread::sleep_for(50ms);
      }
      submitted = k + 1;
      std::this_thread::sleep_for(5ms);
    }
  });
  auto wait_submitted = [&](unsigned at_least) {
    while (submitted.load() < at_least) std::this_thread::sleep_for(5ms);
  };
  pg_test_cluster* server = pg_test_cluster::shared();
  wait_submitted(n / 4);
  EXPECT_TRUE(server->stop().is_ok());  // pg_ctl restart -m fast: sessions ended, then up again
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(server->start().is_ok());
  wait_submitted(2 * n / 3);
  EXPECT_TRUE(server->kill().is_ok());  // kill -9 of the postmaster
  std::this_thread::sleep_for(300ms);
  EXPECT_TRUE(server->start_after_crash().is_ok());
  client.join();
  auto watcher = pg_connection::open(db).value();

  // Awaited on a node other than the one submitted to; an await while a node's store cannot be
  // read yet is answered unavailable, and asked again.
  for (unsigned k = 0; k < n; ++k) {
    const auto until = std::chrono::steady_clock::now() + 60s;
    result<job_result> r = status(errc::unavailable, "not awaited");
    while (!r.is_ok() && r.error().code() == errc::unavailable && std::chrono::steady_clock::now() < until) {
      r = nodes[(k + 1) % 3]->await(ids[k], 20s);
      if (!r.is_ok()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_TRUE(r.is_ok()) << "job " << ids[k] << ": " << r.error().to_string();
    ASSERT_EQ(r->state, job_state::done) << "job " << ids[k] << ": " << r->error.to_string();
    ASSERT_EQ(r->proofs.size(), 1u);
    test::expect_valid_proof<bn254>(r->proofs[0], small_vk, multiplier_public(k));
  }
  for (unsigned k = 0; k < n; ++k) EXPECT_EQ(nodes[(k + 2) % 3]->submit(reqs[k]).value(), ids[k]);
  // And under snarkjs's library, all 300 in one node process (tests/cluster/verify_proofs.js), where
  // the test tools are installed (cd tools/node && npm ci).
  const std::string snarkjs = test::data_dir + "/../../tools/node/node_modules/snarkjs";
  if (!std::filesystem::exists(snarkjs + "/package.json")) {
    std::cout << "[ restarts ] snarkjs not installed (cd tools/node && npm ci): its check skipped\n";
  } else {
    const std::string dir = root + "/proofs";
    std::filesystem::create_directories(dir);
    for (unsigned k = 0; k < n; ++k) {
      const auto r = nodes[k % 3]->get(ids[k]).value();
      std::ofstream(dir + "/" + std::to_string(k) + ".json")
          << "{\"proof\": " << r.proofs.at(0).proof_json
          << ", \"publicSignals\": " << r.proofs.at(0).public_json << "}";
    }
    const std::string out = root + "/snarkjs.out";
    const int rc = std::system(("node " + test::data_dir + "/../cluster/verify_proofs.js " + snarkjs + " " +
                                small_vk + " " + dir + " >" + out + " 2>&1")
                                   .c_str());
    std::ifstream in(out);
    const std::string said((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(rc, 0) << said;
    EXPECT_NE(said.find("verified 300 of 300"), std::string::npos) << said;
  }
  auto rows = watcher->exec("read",
                            "SELECT count(*), count(*) FILTER (WHERE state = 5), "
                            "count(*) FILTER (WHERE state = 6), count(DISTINCT lease_node) FROM jobs");
  ASSERT_TRUE(rows.is_ok()) << rows.error().to_string();
  EXPECT_EQ(rows->i64(0, 0), n);
  EXPECT_EQ(rows->i64(0, 1), n);
  EXPECT_EQ(rows->i64(0, 2), 0);
  EXPECT_GT(refused.load(), 0) << "no submit met an outage";
  EXPECT_GT(parked.load(), 0) << "no proof's result met an outage";
  std::cout << "[ restarts ] results that waited for the database: " << parked.load()
            << ", submits refused during the outages and sent again: " << refused.load()
            << "; nodes that proved: " << rows->i64(0, 3) << "\n";
}

// docs/HARDENING.md, finding 25: a cancel sent through one node for a job that a stalled node holds
// (a stopped process: its lease held, its heartbeat frozen, so the flag the cancel leaves in the row
// is never read). Once the lease runs out, the node that claims the job ends it cancelled without
// proving it; before, it proved the job in full and only then learnt of the cancel.
TEST(engine_cluster, a_job_cancelled_while_its_holder_stalled_is_ended_by_the_next_claim_unproved) {
  FRESH_DATABASE_OR_SKIP(db, "engine_cluster_stalled_cancel");
  const std::string root = test::temp_dir("cluster-stalled-cancel");
  test::gated_backend* gb = nullptr;
  auto b = gated_node(db, root, "node-b", gb);
  ASSERT_TRUE(b);
  // b's one worker is busy with a first job, so the second stays in the database.
  const job_id first = b->submit(multiplier_request(1)).value();
  ASSERT_TRUE(gb->wait_calls(1));
  const job_id second = b->submit(multiplier_request(2)).value();
  // Node a claims it and stalls: a claim with no heartbeat after it, as a SIGSTOPped daemon leaves.
  auto a = pg_job_leases::open(db, "node-a", 1500ms);
  ASSERT_TRUE(a.is_ok()) << a.error().to_string();
  auto held = (*a)->claim();
  ASSERT_TRUE(held.is_ok() && *held) << (held ? "none claimable" : held.error().to_string());
  ASSERT_EQ((*held)->id, second);
  ASSERT_TRUE(b->cancel(second).is_ok());  // asked of node a, which never hears it
  EXPECT_FALSE(is_terminal(b->get(second).value().state));
  std::this_thread::sleep_for(1800ms);  // a's lease runs out
  gb->open();                          // b's worker frees, and b claims the second job
  auto r = b->await(second, 30s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::cancelled) << r->error.to_string();
  EXPECT_EQ(r->error.code(), errc::cancelled);
  EXPECT_EQ(b->await(first, 30s).value().state, job_state::done);
  EXPECT_EQ(gb->calls.load(), 1);  // the first job's proof, and no other
  // a, resumed, cannot commit it.
  job_result late;
  late.id = second;
  late.state = job_state::done;
  EXPECT_EQ((*a)->finish(**held, late).code(), errc::failed_precondition);
}

// The latency a job adds through the engine on PostgreSQL against SQLite: one small proof at a time
// (the multiplier, real CPU prover, verified), submit to result, median of 100 after 5 unmeasured,
// on each store. A measurement, not a check: it runs only when CUZK_LATENCY_DATABASE names a
// PostgreSQL database to measure on (the test server runs with fsync off, which would flatter it):
//   CUZK_LATENCY_DATABASE="host=/tmp/pg dbname=cuzk" engine_tests --gtest_filter='*latency*'
// docs/cluster.md keeps the numbers.
TEST(engine_cluster, latency_per_job_on_postgresql_against_sqlite) {
  const char* measured_db = std::getenv("CUZK_LATENCY_DATABASE");
  if (measured_db == nullptr || *measured_db == '\0') GTEST_SKIP() << "set CUZK_LATENCY_DATABASE to measure";
  const std::string root = test::temp_dir("cluster-latency");
  auto median_ms = [&](engine& e) {
    EXPECT_TRUE(e.register_circuit("mul", test::small_zkey).is_ok());
    std::vector<double> ms;
    for (unsigned k = 0; k < 105; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      auto id = e.submit(multiplier_request(k));
      EXPECT_TRUE(id.is_ok());
      auto r = e.await(*id, 60s);
      EXPECT_TRUE(r.is_ok() && r->state == job_state::done);
      if (k >= 5) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  engine_options lite = node_options("", root + "/lite-spool", "");
  lite.store_path = root + "/jobs.db";
  const double sqlite_ms = median_ms(*engine::create(lite).value());
  const double pg_ms = median_ms(*engine::create(node_options(measured_db, root, "latency")).value());
  std::cout << "[ latency  ] submit to result, median of 100: SQLite " << sqlite_ms << " ms, PostgreSQL " << pg_ms
            << " ms\n";
}

}  // namespace
}  // namespace cuzk::engine
