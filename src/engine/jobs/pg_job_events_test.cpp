// SPDX-License-Identifier: MIT OR Apache-2.0
// Awaiting a job's end across nodes through LISTEN/NOTIFY, on the throwaway server
// (pg_test_cluster.hpp): the waiter wakes when another node commits, and a refused commit wakes
// nobody.
#include "engine/jobs/pg_job_events.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <thread>

#include "engine/jobs/pg_job_leases.hpp"
#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

job_id submit(pg_job_store& s) {
  job_record r;
  r.info.circuit = "c";
  r.info.partitions = 1;
  r.witness_paths = {"/shared/spool/w.wtns"};
  r.spooled = {true};
  return s.insert(r).value().id;
}

job_result done(job_id id) {
  job_result i;
  i.id = id;
  i.state = job_state::done;
  i.partitions = 1;
  i.proofs = {{"{}", "[]"}};
  i.finished_at = wall_clock::now();
  return i;
}

TEST(pg_job_events, an_await_wakes_when_another_node_commits_the_result) {
  FRESH_DATABASE_OR_SKIP(db, "await");
  auto store = pg_job_store::open(db).value();
  const job_id id = submit(*store), other = submit(*store);
  auto events = pg_job_events::open(db).value();
  auto b = pg_job_leases::open(db, "node-b", 60s).value();
  // Another job that never ends: the wait runs out.
  const auto t0 = steady::now();
  EXPECT_FALSE(events->wait_for_end(other, 200ms).value());
  EXPECT_GE(steady::now() - t0, 200ms);

  steady::time_point committed;
  std::thread prover([&] {
    std::this_thread::sleep_for(300ms);
    const auto l = b->claim().value();
    ASSERT_TRUE(l && l->id == id);
    ASSERT_TRUE(b->finish(*l, done(id)).is_ok());
    committed = steady::now();
  });
  const auto t1 = steady::now();
  EXPECT_TRUE(events->wait_for_end(id, 20s).value());
  const auto woken = steady::now();
  const auto waited = woken - t1;
  prover.join();
  // How long after the commit returned on node B the awaiter woke (negative: before B saw it).
  std::printf("pg_job_events wake_after_commit_ms=%.3f\n",
              std::chrono::duration<double, std::milli>(woken - committed).count());
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 10s);
  EXPECT_EQ(store->get(id).value()->info.state, job_state::done);
}

TEST(pg_job_events, a_refused_commit_wakes_nobody_and_the_stores_finish_does) {
  FRESH_DATABASE_OR_SKIP(db, "refused");
  auto store = pg_job_store::open(db).value();
  const job_id id = submit(*store);
  auto events = pg_job_events::open(db).value();
  auto a = pg_job_leases::open(db, "node-a", 50ms).value(),
       b = pg_job_leases::open(db, "node-b", 60s).value();
  const auto stale = a->claim().value();
  ASSERT_TRUE(stale);
  std::this_thread::sleep_for(150ms);
  const auto taken = b->claim().value();
  ASSERT_TRUE(taken && taken->id == id);
  EXPECT_EQ(a->finish(*stale, done(id)).code(), errc::failed_precondition);
  EXPECT_FALSE(events->wait_for_end(id, 300ms).value());
  ASSERT_TRUE(b->finish(*taken, done(id)).is_ok());
  EXPECT_TRUE(events->wait_for_end(id, 10s).value());

  // One daemon on the store alone announces too.
  const job_id solo = submit(*store);
  ASSERT_TRUE(store->finish(done(solo)).is_ok());
  EXPECT_TRUE(events->wait_for_end(solo, 10s).value());
}

}  // namespace
}  // namespace cuzk::engine
