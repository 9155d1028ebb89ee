// SPDX-License-Identifier: MIT OR Apache-2.0
// The witness threads (witness_ahead.hpp) with a calculation the test controls: partitions
// computed in dispatch order and handed over, the bounds (held partitions, host memory), a worker
// that waits for a calculation under way or computes one nobody began, a drop, a stop, a
// cancelled job, and errors handed over as results. The engine's own test with real circuits is
// engine_input_json_test.cpp.
#include "engine/witness_ahead.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/poll_until.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t witness_bytes = 1000;

std::shared_ptr<live_job> job(job_id id, std::vector<bool> input_json) {
  auto j = std::make_shared<live_job>();
  j->rec.info.id = id;
  j->rec.input_json = std::move(input_json);
  return j;
}

// The witness the fake calculation gives partition q of job id: one value, id * 100 + q.
any_witness made(job_id id, uint32_t q) {
  any_witness w;
  w.values = bulk_array<bn254::fr::repr>(1);
  w.values[0] = bn254::fr::repr{};
  w.values[0].limb[0] = id * 100 + q;
  return w;
}

uint64_t value_of(const taken_witness& t) { return t.witness.value().values[0].limb[0]; }

// Partition 0 of j taken from the pool, its worker computing it (made()) where it is not ahead;
// `here_calls` counts the worker's calculations.
taken_witness take_or_compute(witness_ahead& pool, live_job& j, int& here_calls) {
  return pool.take(j, 0, [&] {
    ++here_calls;
    return result<any_witness>(made(j.rec.info.id, 0));
  });
}

// A queue the test sets, a calculation it can hold at a gate, and the order calculations began.
struct fixture {
  std::mutex m;
  std::vector<std::shared_ptr<live_job>> queue;
  std::vector<std::pair<job_id, uint32_t>> began;
  bool gate_open = true;
  std::condition_variable gate;
  memory_budget host;
  std::map<job_id, uint64_t> working;  // a job's calculation's working memory (none where absent)
  std::vector<uint64_t> used_at_looks;  // the budget's use as each look for room began

  explicit fixture(uint64_t host_limit = uint64_t{1} << 30) : host("host", memory_kind::host, -1, host_limit) {}

  witness_ahead pool(unsigned threads, std::size_t most_held = 0) {
    return witness_ahead(
        {threads, most_held}, host,
        [this] {
          std::lock_guard lk(m);
          return queue;
        },
        [this](live_job& j, uint32_t q, const std::function<bool()>& stop, calculation_room&) -> result<any_witness> {
          std::unique_lock lk(m);
          began.emplace_back(j.rec.info.id, q);
          while (!gate_open)
            if (stop()) return status(errc::cancelled, "stopped");
            else gate.wait_for(lk, 1ms);
          if (j.rec.info.id == 13) return status(errc::failed_precondition, "the circuit's assert failed");
          return made(j.rec.info.id, q);
        },
        [](const live_job&) { return witness_bytes; },
        [this](const live_job& j, uint32_t, uint64_t witness, refusal& why) -> result<calculation_room> {
          {
            std::lock_guard lk(m);
            used_at_looks.push_back(host.used());
          }
          calculation_room room;
          auto it = working.find(j.rec.info.id);  // set before the pool starts
          const uint64_t calculation = it == working.end() ? 0 : it->second;
          auto r = host.acquire(calculation + witness, {nullptr, 0ms, "a calculation", false, &why});
          if (!r) return r.error();
          room.calculation = std::move(r).value();
          return room;
        });
  }
  void set_queue(std::vector<std::shared_ptr<live_job>> q) {
    std::lock_guard lk(m);
    queue = std::move(q);
  }
  void open() {
    std::lock_guard lk(m);
    gate_open = true;
    gate.notify_all();
  }
  std::size_t began_count() {
    std::lock_guard lk(m);
    return began.size();
  }
};

auto never_here = [] { return result<any_witness>(status(errc::internal, "computed by the worker")); };

TEST(witness_ahead, computes_queued_partitions_in_dispatch_order_and_hands_them_over) {
  fixture f;
  auto a = job(3, {true, true}), b = job(1, {true, false, true}), c = job(2, {false});
  f.set_queue({a, b, c});
  auto pool = f.pool(1, 10);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 4; }));
  const std::vector<std::pair<job_id, uint32_t>> order{{3, 0}, {3, 1}, {1, 0}, {1, 2}};
  EXPECT_EQ(f.began, order);
  EXPECT_EQ(f.host.used(), 4 * witness_bytes);
  for (auto [j, q] : {std::pair{a, 0u}, {a, 1u}, {b, 0u}, {b, 2u}}) {
    const taken_witness t = pool.take(*j, q, never_here);
    ASSERT_TRUE(t.ahead);
    EXPECT_EQ(value_of(t), j->rec.info.id * 100 + q);
  }
  EXPECT_EQ(f.host.used(), 0u) << "a taken witness's memory is its worker's";
  const auto s = pool.snapshot();
  EXPECT_EQ(s.taken_ready, 4u);
  EXPECT_EQ(s.computed, 4u);
  EXPECT_EQ(s.computed_by_worker, 0u);
  EXPECT_EQ(f.began.size(), 4u) << "a taken partition is not computed again";
}

TEST(witness_ahead, holds_no_more_than_most_held_and_the_host_budget_allows) {
  fixture f;
  std::vector<std::shared_ptr<live_job>> q;
  for (job_id id = 1; id <= 6; ++id) q.push_back(job(id, {true}));
  f.set_queue(q);
  {
    auto pool = f.pool(4, 2);
    pool.start();
    ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 2; }));
    std::this_thread::sleep_for(300ms);  // three polls: nothing more starts
    EXPECT_EQ(f.began_count(), 2u);
    EXPECT_TRUE(pool.take(*q[0], 0, never_here).ahead);
    pool.wake();
    ASSERT_TRUE(poll_until([&] { return f.began_count() == 3; })) << "a take makes room for the next";
  }
  // The host budget: room for three witnesses, whatever most_held says.
  fixture g(3 * witness_bytes);
  g.set_queue(q);
  auto pool = g.pool(4, 10);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 3; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(g.began_count(), 3u);
  EXPECT_EQ(g.host.used(), 3 * witness_bytes);
  pool.drop(1);
  EXPECT_EQ(g.host.used(), 2 * witness_bytes) << "a dropped job's witness frees its memory";
  ASSERT_TRUE(poll_until([&] { return g.began_count() == 4; })) << "and the room goes to the next";
}

// A calculation's working memory (its room) is taken from spare room with its witness's bytes,
// held while it runs and returned when it ends.
TEST(witness_ahead, a_calculation_holds_its_working_memory_while_it_runs) {
  fixture f;
  f.working = {{1, 5000}, {2, 5000}};
  f.gate_open = false;
  auto a = job(1, {true}), b = job(2, {true});
  f.set_queue({a, b});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return f.began_count() == 1; }));
  EXPECT_EQ(f.host.used(), witness_bytes + 5000) << "the witness and the calculation's working memory";
  f.open();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 2; }));
  EXPECT_EQ(f.host.used(), 2 * witness_bytes) << "the working memory went back as each calculation ended";
}

// A thread starts no calculation the spare room cannot hold beside its witness: it looks again
// once room is made (here by a take), and never evicts or waits for it.
TEST(witness_ahead, no_calculation_starts_that_the_spare_room_cannot_hold) {
  constexpr uint64_t working = 5000;
  fixture tight(witness_bytes + working - 1);
  tight.working = {{3, working}};
  tight.set_queue({job(3, {true})});
  auto none = tight.pool(2);
  none.start();
  std::this_thread::sleep_for(300ms);  // three polls
  EXPECT_EQ(tight.began_count(), 0u);
  EXPECT_EQ(tight.host.used(), 0u) << "nothing held for a calculation that did not start";
  EXPECT_EQ(none.snapshot().computing, 0u) << "a look is not a calculation";
  {
    // Not even for the look's moment: the witness's bytes are asked for with the calculation's,
    // in the room function's one acquire. Taken first on their own, they were held while the
    // calculation was refused, and a reading of the budget then saw a witness nobody made.
    std::lock_guard lk(tight.m);
    ASSERT_FALSE(tight.used_at_looks.empty());
    for (const uint64_t used : tight.used_at_looks) EXPECT_EQ(used, 0u) << "the pool held memory as it looked";
  }
  // A byte less of working memory, and it starts.
  fixture exact(witness_bytes + working - 1);
  exact.working = {{3, working - 1}};
  exact.set_queue({job(3, {true})});
  auto one = exact.pool(2);
  one.start();
  ASSERT_TRUE(poll_until([&] { return one.snapshot().ready == 1; }));

  // Room for one calculation beside one ready witness, not beside two.
  fixture roomy(2 * witness_bytes + working - 1);
  roomy.working = {{4, working}, {5, working}};
  auto c = job(4, {true}), d = job(5, {true});
  roomy.set_queue({c, d});
  auto pool = roomy.pool(2);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(roomy.began_count(), 1u) << "job 4's witness leaves no room for job 5's calculation";
  EXPECT_EQ(roomy.host.used(), witness_bytes);
  EXPECT_TRUE(pool.take(*c, 0, never_here).ahead);
  pool.wake();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1 && roomy.began_count() == 2; }));
}

// A calculation larger than the whole budget is left to its worker (whose admission fails the job
// saying so), and the threads go on with the next job.
TEST(witness_ahead, a_calculation_that_can_never_fit_is_left_to_its_worker) {
  fixture f(10 * witness_bytes);
  f.working = {{6, 10 * witness_bytes + 1}};
  auto never = job(6, {true}), next = job(7, {true});
  f.set_queue({never, next});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1; }));
  const std::vector<std::pair<job_id, uint32_t>> order{{7, 0}};
  EXPECT_EQ(f.began, order);
  int here_calls = 0;
  const taken_witness t = take_or_compute(pool, *never, here_calls);
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(here_calls, 1) << "its worker computes it (or its admission fails the job first)";
  EXPECT_EQ(f.host.used(), witness_bytes) << "job 7's witness alone";
}

// Ready witnesses give way to a job or a key that waits for memory: the last jobs' first, and
// their workers compute them. A calculation under way is not evicted (its memory comes back when
// it ends).
TEST(witness_ahead, ready_witnesses_give_way_to_a_job_that_waits_for_memory) {
  fixture f(3 * witness_bytes);
  auto a = job(1, {true}), b = job(2, {true}), c = job(3, {true});
  f.set_queue({a, b, c});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 3; }));
  f.set_queue({});  // nothing more to compute: what is freed stays free
  auto admitted = f.host.acquire(2 * witness_bytes, {nullptr, std::nullopt, "a job's working set", true, nullptr});
  ASSERT_TRUE(admitted.is_ok()) << admitted.error().message();
  EXPECT_EQ(pool.snapshot().evicted, 2u);
  EXPECT_EQ(pool.snapshot().ready, 1u);
  EXPECT_TRUE(pool.take(*a, 0, never_here).ahead) << "the first job's witness is kept";
  int here_calls = 0;
  const taken_witness t = take_or_compute(pool, *c, here_calls);
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(here_calls, 1) << "an evicted witness is computed by its worker";
  EXPECT_EQ(value_of(t), 300u);
}

// docs/HARDENING.md, finding 32: an evicted witness is not computed ahead again, though its job is
// still queued and room comes back: begun again, it would take the room made for the waiter, be
// evicted at the waiter's next round, and so on until the waiter timed out (a job's admission
// failed that way, with its key evicted meanwhile).
TEST(witness_ahead, an_evicted_witness_is_left_to_its_worker) {
  fixture f(4 * witness_bytes);
  auto a = job(1, {true}), b = job(2, {true}), c = job(3, {true});
  f.set_queue({a, b, c});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 3; }));
  auto admitted = f.host.acquire(2 * witness_bytes, {nullptr, std::nullopt, "a key's load", true, nullptr});
  ASSERT_TRUE(admitted.is_ok()) << admitted.error().message();
  EXPECT_EQ(pool.snapshot().evicted, 1u);
  admitted = status(errc::cancelled, "returned");  // the room comes back; job 3 is still queued
  std::this_thread::sleep_for(500ms);              // five of the threads' looks
  EXPECT_EQ(pool.snapshot().computed, 3u) << "the evicted witness was computed ahead again";
  EXPECT_EQ(pool.snapshot().ready, 2u);
  int here_calls = 0;
  const taken_witness t = take_or_compute(pool, *c, here_calls);
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(here_calls, 1);
  EXPECT_EQ(value_of(t), 300u);
}

TEST(witness_ahead, a_worker_waits_for_a_calculation_under_way) {
  fixture f;
  f.gate_open = false;
  auto a = job(7, {true});
  f.set_queue({a});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return f.began_count() == 1; }));
  auto taken = std::async(std::launch::async, [&] { return pool.take(*a, 0, never_here); });
  EXPECT_EQ(taken.wait_for(50ms), std::future_status::timeout) << "it waits rather than computing again";
  f.open();
  const taken_witness t = taken.get();
  EXPECT_TRUE(t.ahead);
  EXPECT_EQ(value_of(t), 700u);
  EXPECT_EQ(pool.snapshot().waited, 1u);
}

TEST(witness_ahead, a_partition_nobody_began_is_computed_by_its_worker_and_never_ahead) {
  fixture f;
  auto a = job(5, {true, true});
  auto pool = f.pool(1);
  pool.start();
  int here_calls = 0;
  const taken_witness t = take_or_compute(pool, *a, here_calls);
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(here_calls, 1);
  EXPECT_EQ(value_of(t), 500u);
  // The job shows up in the queue afterwards (a race the engine has): only partition 1 is begun.
  f.set_queue({a});
  pool.wake();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1; }));
  std::this_thread::sleep_for(300ms);
  const std::vector<std::pair<job_id, uint32_t>> order{{5, 1}};
  EXPECT_EQ(f.began, order);
  EXPECT_EQ(pool.snapshot().computed_by_worker, 1u);
}

TEST(witness_ahead, errors_are_results_handed_over_like_witnesses) {
  fixture f;
  auto failing = job(13, {true});
  f.set_queue({failing});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1; }));
  const taken_witness t = pool.take(*failing, 0, never_here);
  EXPECT_TRUE(t.ahead);
  ASSERT_FALSE(t.witness);
  EXPECT_EQ(t.witness.error().code(), errc::failed_precondition);
  EXPECT_EQ(t.witness.error().message(), "the circuit's assert failed");
}

TEST(witness_ahead, stop_ends_calculations_under_way_and_their_worker_computes_itself) {
  fixture f;
  f.gate_open = false;  // never opened: only the stop ends the calculation
  auto a = job(9, {true});
  f.set_queue({a});
  auto pool = f.pool(2);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return f.began_count() == 1; }));
  auto taken = std::async(std::launch::async, [&] {
    return pool.take(*a, 0, [] { return result<any_witness>(made(9, 0)); });
  });
  ASSERT_EQ(taken.wait_for(50ms), std::future_status::timeout);
  const auto t0 = std::chrono::steady_clock::now();
  pool.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  const taken_witness t = taken.get();
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(value_of(t), 900u);
  EXPECT_EQ(f.host.used(), 0u);
}

TEST(witness_ahead, a_cancelled_jobs_calculation_stops_and_is_not_kept) {
  fixture f;
  f.gate_open = false;
  auto a = job(4, {true}), b = job(6, {true});
  f.set_queue({a, b});
  auto pool = f.pool(1);
  pool.start();
  ASSERT_TRUE(poll_until([&] { return f.began_count() == 1; }));
  a->cancel.request(cancel_reason::caller);
  f.set_queue({a, b});
  pool.wake();
  // The calculation of the cancelled job stops; the thread moves on to b (held at the gate).
  ASSERT_TRUE(poll_until([&] { return f.began_count() == 2; }));
  EXPECT_EQ(f.began.back(), (std::pair<job_id, uint32_t>{6, 0}));
  EXPECT_EQ(pool.snapshot().ready, 0u);
  f.open();
  ASSERT_TRUE(poll_until([&] { return pool.snapshot().ready == 1; }));
  pool.drop(6);
  EXPECT_EQ(pool.snapshot().ready, 0u);
  EXPECT_EQ(f.host.used(), 0u);
}

TEST(witness_ahead, no_threads_computes_nothing_ahead) {
  fixture f;
  auto a = job(2, {true});
  f.set_queue({a});
  auto pool = f.pool(0);
  pool.start();
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(f.began_count(), 0u);
  EXPECT_FALSE(pool.take(*a, 0, [] { return result<any_witness>(made(2, 0)); }).ahead);
}

TEST(witness_ahead, the_automatic_thread_count) {
  EXPECT_EQ(witness_threads_for(3, 2, false, 16), 3u) << "configured";
  EXPECT_EQ(witness_threads_for(0, 2, false, 16), 0u) << "off";
  EXPECT_EQ(witness_threads_for(-1, 2, false, 16), 14u) << "the cores the GPU workers leave";
  EXPECT_EQ(witness_threads_for(-1, 4, false, 2), 1u) << "at least one";
  EXPECT_EQ(witness_threads_for(-1, 1, true, 16), 1u) << "the CPU prover uses every core";
}

}  // namespace
}  // namespace cuzk::engine
