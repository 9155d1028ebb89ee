// SPDX-License-Identifier: MIT OR Apache-2.0
// Claims across daemons on one real PostgreSQL (pg_test_cluster.hpp): the claim order, many
// consumers taking each job once, a dead node's job taken up after its lease with its late commit
// refused, a cancel reaching another node's job, and a version-1 queue migrated in place.
#include "engine/jobs/pg_job_leases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <set>
#include <thread>

#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/pg_schema.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

std::unique_ptr<pg_job_leases> node(const std::string& db, const std::string& name,
                                    std::chrono::milliseconds lease) {
  auto n = pg_job_leases::open(db, name, lease);
  EXPECT_TRUE(n.is_ok()) << n.error().to_string();
  return n ? std::move(n).value() : nullptr;
}

job_id submit(pg_job_store& s, priority p, const std::string& circuit = "c") {
  job_record r;
  r.info.circuit = circuit;
  r.info.prio = p;
  r.info.partitions = 1;
  r.info.submitted_at = wall_clock::now();
  r.witness_paths = {"/shared/spool/w.wtns"};
  r.spooled = {true};
  return s.insert(r).value().id;
}

job_result done_by(const job_lease& l, const std::string& who) {
  job_result i;
  i.id = l.id;
  i.circuit = l.circuit;
  i.prio = l.prio;
  i.state = job_state::done;
  i.partitions = 1;
  i.attempts = l.attempts;
  i.ran_on = who;
  i.proofs = {{"{\"by\":\"" + who + "\"}", "[\"1\"]"}};
  i.finished_at = wall_clock::now();
  return i;
}

TEST(pg_job_leases, claims_take_the_priority_class_first_then_fifo) {
  FRESH_DATABASE_OR_SKIP(db, "order");
  auto store = pg_job_store::open(db).value();
  const job_id n1 = submit(*store, priority::normal), n2 = submit(*store, priority::normal);
  const job_id crit = submit(*store, priority::critical), low = submit(*store, priority::low);
  const job_id high = submit(*store, priority::high);
  auto a = node(db, "node-a", 60s);
  ASSERT_TRUE(a);
  std::vector<job_id> order;
  for (auto l = a->claim().value(); l; l = a->claim().value()) {
    EXPECT_EQ(l->generation, 1u);
    EXPECT_EQ(l->attempts, 1u);
    order.push_back(l->id);
    if (l->id == crit) {  // given back once: claimable again, with the next generation
      ASSERT_TRUE(a->release(*l).is_ok());
      auto again = a->claim().value();
      ASSERT_TRUE(again && again->id == crit);
      EXPECT_EQ(again->generation, 2u);
      EXPECT_TRUE(a->release(*l).code() == errc::failed_precondition);  // the old generation
    }
  }
  EXPECT_EQ(order, (std::vector<job_id>{crit, high, n1, n2, low}));
}

// Eight nodes drain one queue at once: every job is claimed and committed exactly once. Prints the
// rate (claim plus result commit per job) for docs/cluster.md.
TEST(pg_job_leases, many_nodes_claim_each_job_exactly_once) {
  FRESH_DATABASE_OR_SKIP(db, "many");
  constexpr int jobs = 400, consumers = 8;
  auto store = pg_job_store::open(db).value();
  for (int i = 0; i < jobs; ++i) submit(*store, static_cast<priority>(i % priority_count));
  std::vector<std::unique_ptr<pg_job_leases>> nodes;
  for (int n = 0; n < consumers; ++n) nodes.push_back(node(db, "node-" + std::to_string(n), 60s));
  for (const auto& n : nodes) ASSERT_TRUE(n);

  std::vector<std::vector<job_id>> taken(consumers);
  std::atomic<int> errors{0};
  const auto t0 = steady::now();
  std::vector<std::thread> threads;
  for (int n = 0; n < consumers; ++n)
    threads.emplace_back([&, n] {
      for (;;) {
        auto l = nodes[n]->claim();
        if (!l) {
          ++errors;
          return;
        }
        if (!*l) return;
        taken[n].push_back((*l)->id);
        if (!nodes[n]->finish(**l, done_by(**l, nodes[n]->node())).is_ok()) ++errors;
      }
    });
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(steady::now() - t0).count();
  std::printf("pg_job_leases consumers=%d jobs=%d seconds=%.3f claims_per_s=%.0f\n", consumers, jobs, seconds,
              jobs / seconds);

  EXPECT_EQ(errors.load(), 0);
  std::set<job_id> all;
  std::size_t count = 0;
  for (const auto& t : taken) {
    count += t.size();
    all.insert(t.begin(), t.end());
  }
  EXPECT_EQ(count, static_cast<std::size_t>(jobs));
  EXPECT_EQ(all.size(), static_cast<std::size_t>(jobs));
  EXPECT_TRUE(store->unfinished().value().empty());
}

// A node that dies stops heartbeating; once its lease ends another node takes the job, and the dead
// node's commit, arriving late, is refused: the result is the second node's, committed once.
TEST(pg_job_leases, a_dead_nodes_job_is_taken_after_its_lease_and_its_late_commit_is_refused) {
  FRESH_DATABASE_OR_SKIP(db, "takeover");
  // Long enough that a heartbeat every 0.3 lease holds it on a loaded 2-core machine.
  constexpr auto lease = 1000ms;
  auto store = pg_job_store::open(db).value();
  const job_id id = submit(*store, priority::normal);
  auto a = node(db, "node-a", lease), b = node(db, "node-b", lease);
  ASSERT_TRUE(a && b);
  const auto held = a->claim().value();
  ASSERT_TRUE(held && held->id == id);

  // Alive: its heartbeats keep the job its own past the first lease.
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(lease * 3 / 10);
    EXPECT_EQ(a->heartbeat().value().renewed, 1u);
    EXPECT_FALSE(b->claim().value().has_value());
  }
  // Dead: no more heartbeats. B takes the job once the lease has run out, not before.
  const auto last_beat = steady::now();
  std::optional<job_lease> taken;
  while (!taken && steady::now() - last_beat < 10s) {
    taken = b->claim().value();
    if (!taken) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(taken.has_value());
  // Not before the lease ran out (by the server's clock: ours is compared with some slack).
  EXPECT_GE(steady::now() - last_beat, lease - 200ms);
  EXPECT_EQ(taken->id, id);
  EXPECT_EQ(taken->generation, held->generation + 1);
  EXPECT_EQ(taken->attempts, 2u);

  // A comes back: its heartbeat no longer holds the job, its commit and release are refused.
  EXPECT_EQ(a->heartbeat().value().renewed, 0u);
  const status late = a->finish(*held, done_by(*held, "node-a"));
  EXPECT_EQ(late.code(), errc::failed_precondition) << late.to_string();
  EXPECT_NE(late.message().find("held by node node-b"), std::string::npos) << late.to_string();
  EXPECT_EQ(store->get(id).value()->info.state, job_state::loading_key);  // b's claim started it
  EXPECT_EQ(a->release(*held).code(), errc::failed_precondition);

  ASSERT_TRUE(b->finish(*taken, done_by(*taken, "node-b")).is_ok());
  // Exactly once: a second commit by the holder (a retry of one whose answer was lost with the
  // connection, docs/HARDENING.md finding 17) is answered as stored and writes nothing.
  job_result again = done_by(*taken, "node-b");
  again.proofs[0].proof_json = "{\"by\":\"node-b, again\"}";
  EXPECT_TRUE(b->finish(*taken, again).is_ok());
  EXPECT_EQ(a->finish(*held, done_by(*held, "node-a")).code(), errc::failed_precondition);
  const auto r = store->get(id).value()->info;
  EXPECT_EQ(r.state, job_state::done);
  EXPECT_EQ(r.ran_on, "node-b");
  ASSERT_EQ(r.proofs.size(), 1u);
  EXPECT_EQ(r.proofs[0].proof_json, "{\"by\":\"node-b\"}");
  EXPECT_FALSE(a->claim().value().has_value());
}

// A lease that ran out while nobody took the job is still the job's current one: its holder's commit
// lands, and the ended job is not claimed again.
TEST(pg_job_leases, a_lease_that_ended_untaken_still_commits_once) {
  FRESH_DATABASE_OR_SKIP(db, "untaken");
  auto store = pg_job_store::open(db).value();
  submit(*store, priority::high);
  auto a = node(db, "node-a", 50ms), b = node(db, "node-b", 50ms);
  ASSERT_TRUE(a && b);
  const auto held = a->claim().value();
  ASSERT_TRUE(held);
  std::this_thread::sleep_for(150ms);
  ASSERT_TRUE(a->finish(*held, done_by(*held, "node-a")).is_ok());
  EXPECT_FALSE(b->claim().value().has_value());
}

// A cancel sent to any node: a job another node holds is flagged and its holder learns at its next
// heartbeat; a job nobody holds ends at once, and a holder whose lease ran out cannot commit it.
TEST(pg_job_leases, a_cancel_sent_to_any_node_reaches_the_holder_or_ends_an_unheld_job) {
  FRESH_DATABASE_OR_SKIP(db, "cancel");
  auto store = pg_job_store::open(db).value();
  const job_id running = submit(*store, priority::high), queued = submit(*store, priority::normal);
  auto a = node(db, "node-a", 60s), b = node(db, "node-b", 60s);
  ASSERT_TRUE(a && b);
  const auto held = a->claim().value();
  ASSERT_TRUE(held && held->id == running);

  EXPECT_EQ(b->request_cancel(running, "asked by a client of node-b").value(), cancel_outcome::holder_asked);
  EXPECT_EQ(store->get(running).value()->info.state, job_state::loading_key);  // still the holder's
  const auto beat = a->heartbeat().value();
  EXPECT_EQ(beat.renewed, 1u);
  EXPECT_EQ(beat.cancel_requested, (std::vector<job_id>{running}));
  job_result stopped = done_by(*held, "node-a");
  stopped.state = job_state::cancelled;
  stopped.proofs.clear();
  stopped.error = status(errc::cancelled, "asked by a client of node-b");
  ASSERT_TRUE(a->finish(*held, stopped).is_ok());
  EXPECT_EQ(store->get(running).value()->info.state, job_state::cancelled);

  EXPECT_EQ(b->request_cancel(queued, "asked by a client of node-b").value(), cancel_outcome::ended);
  const auto q = store->get(queued).value()->info;
  EXPECT_EQ(q.state, job_state::cancelled);
  EXPECT_EQ(q.error.code(), errc::cancelled);
  EXPECT_EQ(q.error.message(), "asked by a client of node-b");
  EXPECT_FALSE(a->claim().value().has_value());

  EXPECT_EQ(b->request_cancel(running, "again").error().code(), errc::failed_precondition);
  EXPECT_EQ(b->request_cancel(9999, "none").error().code(), errc::not_found);
}

// A queue left by a daemon of schema version 1 (before leases): the next daemon migrates it in place
// and its jobs are claimable.
TEST(pg_job_leases, a_version_1_queue_is_migrated_in_place_and_claimable) {
  FRESH_DATABASE_OR_SKIP(db, "migrate");
  {
    auto c = pg_connection::open(db).value();
    ASSERT_TRUE(pg_migrate(*c, 1).is_ok());
    ASSERT_TRUE(c->exec("v1 job",
                        "INSERT INTO jobs (circuit, priority, state, partitions, submitted_ms) "
                        "VALUES ('old', 1, 0, 1, 0)")
                    .is_ok());
    EXPECT_EQ(pg_schema_version(*c).value(), 1);
  }
  auto a = node(db, "node-a", 60s);
  ASSERT_TRUE(a);
  const auto l = a->claim().value();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->circuit, "old");
  EXPECT_EQ(l->generation, 1u);
  auto c = pg_connection::open(db).value();
  EXPECT_EQ(pg_schema_version(*c).value(), pg_schema_latest_version());
  EXPECT_GE(pg_schema_latest_version(), 2);
}

// A node prefers a job whose key it holds resident over an older one of the same class, but only
// while the older one is younger than the bound; the class still comes first; a batch's companion
// is the oldest claimable job of the circuit and class.
TEST(pg_job_leases, a_resident_key_is_preferred_within_a_bounded_wait_and_the_class_first) {
  FRESH_DATABASE_OR_SKIP(db, "prefer");
  auto store = pg_job_store::open(db).value();
  const job_id old_x = submit(*store, priority::normal, "x");
  const job_id new_y = submit(*store, priority::normal, "y");
  const job_id next_y = submit(*store, priority::normal, "y");
  auto a = node(db, "node-a", 60s);
  ASSERT_TRUE(a);
  const claim_preference holds_y{{"y"}, 60s};
  auto l = a->claim(holds_y).value();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->id, new_y);  // x's job is younger than a minute: y's key saves a load
  l = a->claim_same("y", priority::normal).value();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->id, next_y);
  const job_id high_z = submit(*store, priority::high, "z");
  l = a->claim(holds_y).value();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->id, high_z);  // the class first, resident or not
  const job_id later_y = submit(*store, priority::normal, "y");
  std::this_thread::sleep_for(50ms);
  l = a->claim(claim_preference{{"y"}, 10ms}).value();  // x's job has waited past the bound
  ASSERT_TRUE(l);
  EXPECT_EQ(l->id, old_x);
  EXPECT_EQ(a->claim(holds_y).value()->id, later_y);
}

}  // namespace
}  // namespace cuzk::engine
