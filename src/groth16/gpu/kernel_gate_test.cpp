// shared_turn: the two sides of a proof share one turn at the gate, and a side whose contended
// work throws leaves nothing behind (host code only: runs without a GPU).
#include "groth16/gpu/kernel_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

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
