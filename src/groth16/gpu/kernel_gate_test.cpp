// SPDX-License-Identifier: MIT OR Apache-2.0
// shared_turn: the sides of a proof (two, or three with B2 beside A, B1 and C) share one turn at
// the gate, and a side whose contended work throws leaves nothing behind (host code only: runs
// without a GPU).
#include "groth16/gpu/kernel_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace cuzk::groth16 {
namespace {

TEST(shared_turn, the_second_side_joins_without_waiting_and_the_last_to_leave_opens_the_gate) {
  kernel_gate gate;
  shared_turn turn(gate);
  EXPECT_FALSE(turn.enter([] {}));
  EXPECT_FALSE(turn.enter([] { FAIL() << "the other side holds the turn: nothing is contended"; }));
  EXPECT_FALSE(gate.try_lock());
  turn.leave();
  EXPECT_FALSE(gate.try_lock());  // one side still holds it
  turn.leave();
  EXPECT_TRUE(gate.try_lock());
  gate.unlock();
}

TEST(shared_turn, a_side_that_finds_the_gate_taken_runs_its_contended_work_then_waits) {
  kernel_gate gate;
  gate.lock();  // another proof's turn
  shared_turn turn(gate);
  std::atomic<bool> contended{false}, entered{false};
  std::jthread side([&] {
    EXPECT_TRUE(turn.enter([&] { contended = true; }));
    entered = true;
    turn.leave();
  });
  while (!contended) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(entered);
  gate.unlock();
  side.join();
  EXPECT_TRUE(entered);
  EXPECT_TRUE(gate.try_lock());
  gate.unlock();
}

TEST(shared_turn, three_sides_that_wait_for_the_gate_all_join_one_turn_and_the_last_opens_it) {
  kernel_gate gate;
  gate.lock();  // another proof's turn
  shared_turn turn(gate);
  std::atomic<int> contended{0}, inside{0}, most_inside{0};
  std::atomic<bool> go_out{false};
  std::vector<std::jthread> sides;
  for (int i = 0; i < 3; ++i)
    sides.emplace_back([&] {
      turn.enter([&] { ++contended; });
      const int now = ++inside;
      for (int seen = most_inside; seen < now && !most_inside.compare_exchange_weak(seen, now);) {
      }
      while (!go_out) std::this_thread::yield();
      turn.leave();
    });
  while (contended < 3) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(inside, 0);  // the gate is still the other proof's
  gate.unlock();
  while (inside < 3) std::this_thread::yield();
  EXPECT_EQ(most_inside, 3);  // all three at once, in one turn
  EXPECT_FALSE(gate.try_lock());
  go_out = true;
  for (auto& s : sides) s.join();
  EXPECT_TRUE(gate.try_lock());
  gate.unlock();
}

TEST(shared_turn, contended_work_that_throws_leaves_the_turn_usable_by_the_other_side) {
  kernel_gate gate;
  gate.lock();  // another proof's turn
  shared_turn turn(gate);
  EXPECT_THROW(turn.enter([] { throw std::runtime_error("staging failed"); }), std::runtime_error);
  // The other side is not left waiting for a side that gave up: it goes for the gate itself.
  std::atomic<bool> entered{false};
  std::jthread side([&] {
    turn.enter([] {});
    entered = true;
    turn.leave();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(entered);  // the gate is still the other proof's
  gate.unlock();
  side.join();
  EXPECT_TRUE(entered);
  EXPECT_TRUE(gate.try_lock());
  gate.unlock();
}

}  // namespace
}  // namespace cuzk::groth16
