// SPDX-License-Identifier: MIT OR Apache-2.0
// The scheduler alone: priority order, FIFO within a class, batch flush on size, on timeout and on
// a higher-priority arrival, removal, close, grouping by resident key, and routing a batch to the
// idle worker whose device slot holds its key.
#include "engine/jobs/scheduler.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <thread>
#include <utility>

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

queued_job qj(job_id id, priority p, std::string circuit = "c") {
  return {id, std::move(circuit), p, steady_clock::now()};
}

std::vector<job_id> ids(const work_batch& b) {
  std::vector<job_id> out;
  for (const auto& j : b.jobs) out.push_back(j.id);
  return out;
}

TEST(scheduler, priority_classes_then_fifo) {
  scheduler s({});
  s.push(qj(1, priority::low));
  s.push(qj(2, priority::normal));
  s.push(qj(3, priority::critical));
  s.push(qj(4, priority::normal));
  s.push(qj(5, priority::high));
  s.push(qj(6, priority::critical));
  std::vector<job_id> order;
  for (int i = 0; i < 6; ++i) order.push_back(s.next()->jobs.at(0).id);
  EXPECT_EQ(order, (std::vector<job_id>{3, 6, 5, 2, 4, 1}));
}

TEST(scheduler, fifo_by_id_even_when_pushed_out_of_order) {
  // A job re-queued after a restart keeps its (older) id and goes first.
  scheduler s({});
  s.push(qj(10, priority::normal));
  s.push(qj(3, priority::normal));
  EXPECT_EQ(s.next()->jobs.at(0).id, 3u);
  EXPECT_EQ(s.next()->jobs.at(0).id, 10u);
}

TEST(scheduler, batch_flushes_when_full) {
  scheduler s({.max_batch_size = 3, .max_batch_wait = 10s});
  s.push(qj(1, priority::normal, "a"));
  s.push(qj(2, priority::normal, "b"));
  s.push(qj(3, priority::normal, "a"));
  s.push(qj(4, priority::normal, "a"));
  const auto t0 = steady_clock::now();
  auto b = s.next();
  EXPECT_LT(steady_clock::now() - t0, 1s);
  EXPECT_EQ(b->reason, flush_reason::full);
  EXPECT_EQ(ids(*b), (std::vector<job_id>{1, 3, 4}));
}

TEST(scheduler, batch_flushes_on_timeout) {
  scheduler s({.max_batch_size = 4, .max_batch_wait = 150ms});
  const auto t0 = steady_clock::now();
  s.push(qj(1, priority::normal));
  s.push(qj(2, priority::normal));
  auto b = s.next();
  EXPECT_GE(steady_clock::now() - t0, 150ms);
  EXPECT_EQ(b->reason, flush_reason::timeout);
  EXPECT_EQ(ids(*b), (std::vector<job_id>{1, 2}));
}

TEST(scheduler, higher_priority_arrival_goes_first_and_flushes_the_batch) {
  scheduler s({.max_batch_size = 4, .max_batch_wait = 5s});
  s.push(qj(1, priority::normal));
  auto first = std::async(std::launch::async, [&] { return s.next(); });
  std::this_thread::sleep_for(50ms);
  s.push(qj(2, priority::critical, "other"));
  const auto t0 = steady_clock::now();
  auto a = first.get();
  EXPECT_EQ(ids(*a), (std::vector<job_id>{2}));
  auto b = s.next();
  EXPECT_LT(steady_clock::now() - t0, 1s);  // no second wait for the flushed batch
  EXPECT_EQ(b->reason, flush_reason::preempted);
  EXPECT_EQ(ids(*b), (std::vector<job_id>{1}));
}

TEST(scheduler, critical_never_waits_for_a_batch) {
  scheduler s({.max_batch_size = 8, .max_batch_wait = 10s});
  s.push(qj(1, priority::critical));
  const auto t0 = steady_clock::now();
  auto b = s.next();
  EXPECT_LT(steady_clock::now() - t0, 1s);
  EXPECT_EQ(b->reason, flush_reason::single);
}

TEST(scheduler, remove_and_close) {
  scheduler s({});
  s.push(qj(1, priority::normal));
  s.push(qj(2, priority::normal));
  EXPECT_TRUE(s.remove(1));
  EXPECT_FALSE(s.remove(1));
  EXPECT_EQ(s.depth()[static_cast<int>(priority::normal)], 1u);
  EXPECT_EQ(s.next()->jobs.at(0).id, 2u);
  auto waiter = std::async(std::launch::async, [&] { return s.next(); });
  std::this_thread::sleep_for(20ms);
  s.close();
  EXPECT_FALSE(waiter.get().has_value());
}

TEST(scheduler, grouping_prefers_a_resident_key_within_its_class) {
  scheduler s({.group_by_circuit = true, .group_max_delay = 10s});
  s.set_resident_predicate([](const std::string& c, int) { return c == "hot"; });
  s.push(qj(1, priority::normal, "cold"));
  s.push(qj(2, priority::normal, "hot"));
  s.push(qj(3, priority::high, "cold"));
  EXPECT_EQ(s.next()->jobs.at(0).id, 3u);  // a higher class still goes first
  auto b = s.next();
  EXPECT_EQ(b->jobs.at(0).id, 2u);
  EXPECT_EQ(b->reason, flush_reason::grouped);
  EXPECT_EQ(s.next()->jobs.at(0).id, 1u);
}

TEST(scheduler, grouping_asks_about_the_dispatching_workers_slot) {
  scheduler s({.group_by_circuit = true, .group_max_delay = 10s});
  s.set_resident_predicate([](const std::string& c, int slot) { return c == "k" && slot == 1; });
  s.push(qj(1, priority::normal, "other"));
  s.push(qj(2, priority::normal, "k"));
  EXPECT_EQ(s.next({0, 1})->jobs.at(0).id, 2u);  // slot 1 holds k: grouped ahead of job 1
  s.push(qj(3, priority::normal, "k"));
  EXPECT_EQ(s.next({1, 0})->jobs.at(0).id, 1u);  // slot 0 holds nothing: FIFO
}

// Two workers on two slots wait in next(); the test pushes work and sees who gets it.
struct two_slot_fixture {
  scheduler s{{}};
  std::map<std::string, int> resident_slot{{"on0", 0}, {"on1", 1}};
  two_slot_fixture() {
    s.set_resident_predicate([this](const std::string& c, int slot) {
      auto it = resident_slot.find(c);
      return it != resident_slot.end() && it->second == slot;
    });
  }
  // Waits until `n` workers are inside next().
  void wait_idle(std::size_t n) {
    for (int i = 0; i < 2000 && s.idle_workers() != n; ++i) std::this_thread::sleep_for(1ms);
    ASSERT_EQ(s.idle_workers(), n);
  }
  std::future<std::optional<work_batch>> worker(int index, int slot) {
    return std::async(std::launch::async, [this, index, slot] { return s.next({index, slot}); });
  }
  // Worker 0 (slot 0) waits first, so it is the dispatcher when work arrives; then worker 1
  // (slot 1).
  std::pair<std::future<std::optional<work_batch>>, std::future<std::optional<work_batch>>> both_waiting() {
    auto w0 = worker(0, 0);
    wait_idle(1);
    auto w1 = worker(1, 1);
    wait_idle(2);
    return {std::move(w0), std::move(w1)};
  }
};

TEST(scheduler, a_batch_goes_to_the_idle_worker_whose_slot_holds_its_key) {
  two_slot_fixture f;
  auto [w0, w1] = f.both_waiting();
  f.s.push(qj(1, priority::normal, "on1"));
  ASSERT_EQ(w1.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(w1.get()->jobs.at(0).id, 1u);
  EXPECT_EQ(w0.wait_for(50ms), std::future_status::timeout);  // worker 0 still waits
  EXPECT_EQ(f.s.handoffs(), 1u);

  // The other way round: worker 1 back, a job whose key is on slot 0 reaches worker 0 whoever
  // dispatches.
  auto w1b = f.worker(1, 1);
  f.wait_idle(2);
  f.s.push(qj(2, priority::normal, "on0"));
  ASSERT_EQ(w0.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(w0.get()->jobs.at(0).id, 2u);
  EXPECT_EQ(w1b.wait_for(50ms), std::future_status::timeout);
  f.s.close();
  EXPECT_FALSE(w1b.get().has_value());
}

TEST(scheduler, without_an_idle_worker_on_the_keys_slot_whoever_is_free_takes_it) {
  two_slot_fixture f;
  f.s.push(qj(1, priority::normal, "on1"));
  f.s.push(qj(2, priority::normal, "nowhere"));
  // Only worker 0 (slot 0) is free: it takes both, in order.
  EXPECT_EQ(f.s.next({0, 0})->jobs.at(0).id, 1u);
  EXPECT_EQ(f.s.next({0, 0})->jobs.at(0).id, 2u);
  EXPECT_EQ(f.s.handoffs(), 0u);
}

TEST(scheduler, routing_keeps_the_dispatch_order) {
  // Jobs 1 (key on slot 1) and 2 (key on slot 0) queued before either worker asks: job 1 leaves
  // first whoever dispatches, and each lands on its key's slot.
  two_slot_fixture f;
  auto [w0, w1] = f.both_waiting();
  f.s.push(qj(1, priority::normal, "on1"));
  f.s.push(qj(2, priority::normal, "on0"));
  ASSERT_EQ(w0.wait_for(5s), std::future_status::ready);
  ASSERT_EQ(w1.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(w1.get()->jobs.at(0).id, 1u);
  EXPECT_EQ(w0.get()->jobs.at(0).id, 2u);
  EXPECT_TRUE(f.s.queued().empty());
}

TEST(scheduler, cpu_workers_never_hand_work_off) {
  two_slot_fixture f;
  f.s.set_resident_predicate([](const std::string&, int slot) { return slot == 5; });
  auto w0 = f.worker(0, -1);
  f.wait_idle(1);
  auto w1 = f.worker(1, 5);
  f.wait_idle(2);
  f.s.push(qj(1, priority::normal, "any"));
  ASSERT_EQ(w0.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(w0.get()->jobs.at(0).id, 1u);
  EXPECT_EQ(f.s.handoffs(), 0u);
  f.s.close();
  EXPECT_FALSE(w1.get().has_value());
}

TEST(scheduler, admission_runs_as_the_dispatcher_in_dispatch_order_and_may_drop_jobs) {
  // The admission of job 1 blocks (as a full memory budget would); a second worker asking
  // meanwhile gets nothing until it is done, so job 2 cannot be admitted first. Job 3 is refused.
  scheduler s({});
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::vector<job_id> admitted;
  std::mutex m;
  s.set_admission([&](work_batch& b, const worker_ref&) {
    const job_id id = b.jobs.at(0).id;
    if (id == 1) open.wait();
    std::lock_guard lk(m);
    if (id == 3) {
      b.jobs.clear();
      return;
    }
    admitted.push_back(id);
  });
  s.push(qj(1, priority::normal));
  s.push(qj(2, priority::normal));
  s.push(qj(3, priority::normal));
  auto w0 = std::async(std::launch::async, [&] { return s.next({0, -1}); });
  std::this_thread::sleep_for(20ms);
  auto w1 = std::async(std::launch::async, [&] { return s.next({1, -1}); });
  EXPECT_EQ(w1.wait_for(50ms), std::future_status::timeout);
  gate.set_value();
  EXPECT_EQ(w0.get()->jobs.at(0).id, 1u);
  EXPECT_EQ(w1.get()->jobs.at(0).id, 2u);
  {
    std::lock_guard lk(m);
    EXPECT_EQ(admitted, (std::vector<job_id>{1, 2}));
  }
  // Job 3 was refused by admission: the next worker finds the queue empty and waits.
  auto w2 = std::async(std::launch::async, [&] { return s.next({2, -1}); });
  EXPECT_EQ(w2.wait_for(50ms), std::future_status::timeout);
  EXPECT_TRUE(s.queued().empty());
  s.close();
  EXPECT_FALSE(w2.get().has_value());
}

}  // namespace
}  // namespace cuzk::engine
