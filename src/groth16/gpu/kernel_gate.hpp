// SPDX-License-Identifier: MIT OR Apache-2.0
// kernel_gate: the device's kernel lock, which keeps two proofs' kernels apart (gpu_proving_key.hpp
// says why); shared_turn: one proof's turn at it, shared by the proof's sides.
//
// A proof has two sides that use the GPU on their own threads: the witness MSMs (A, B1, C, and B2
// on a third thread beside them) and the synthesis, NTTs and H MSM (gpu_prover.hpp). They touch
// disjoint buffers (each has its own MSM arena, gpu_workspace.hpp), so they may run at once, and
// should: streamed from host memory, the witness MSMs of a mostly-0/1 witness wait on the copy
// engine while H's dense MSM keeps the SMs busy (docs/gpu/msm.md, 'One scratch for a proof'). So
// the first side to need the device takes the gate, the others join its turn without waiting, and
// the last to leave opens the gate. A side that finds the gate taken by another proof waits as
// before.
//
// The gate is a binary semaphore, not a mutex, because the side that opens it need not be the
// side that took it. It meets the Lockable requirements (lock, try_lock, unlock).
//
// Thread: any; each side enters and leaves once, on its own thread. An `on_contended` that throws
// leaves the turn as it found it (the exception propagates; the side holds nothing).
#pragma once

#include <condition_variable>
#include <mutex>
#include <semaphore>

namespace cuzk::groth16 {

class kernel_gate {
 public:
  void lock() { open_.acquire(); }
  bool try_lock() { return open_.try_acquire(); }
  void unlock() { open_.release(); }

 private:
  std::binary_semaphore open_{1};
};

class shared_turn {
 public:
  explicit shared_turn(kernel_gate& gate) : gate_(gate) {}
  shared_turn(const shared_turn&) = delete;
  shared_turn& operator=(const shared_turn&) = delete;

  // Joins the proof's turn, taking the gate if no side holds it. When another proof holds the gate,
  // `on_contended` runs first (on each side that finds it so, before it waits), then the wait: one
  // side waits for the gate, the other for that side to get it. Returns whether this side waited.
  template <class OnContended>
  bool enter(OnContended on_contended) {
    std::unique_lock lk(m_);
    bool waited = false;
    for (;;) {
      if (holders_ > 0) break;  // another side of this proof has the turn: join it
      if (!taking_) {
        if (gate_.try_lock()) break;
        // Wait for the gate without holding m_, so that the other sides can run their own
        // on_contended meanwhile (a lender's buffers go back while the proof waits).
        taking_ = true;
        lk.unlock();
        try {
          on_contended();
          gate_.lock();
        } catch (...) {
          // The other side must not wait for a gate this side no longer goes for.
          lk.lock();
          taking_ = false;
          changed_.notify_all();
          throw;
        }
        lk.lock();
        taking_ = false;
        waited = true;
        changed_.notify_all();
        break;
      }
      // The other side is waiting for the gate: this side's contended work now, then its turn.
      if (!waited) {
        lk.unlock();
        on_contended();
        lk.lock();
        waited = true;
        continue;
      }
      changed_.wait(lk, [&] { return holders_ > 0 || !taking_; });
    }
    ++holders_;
    return waited;
  }
  // Leaves the turn; the last side to leave opens the gate.
  void leave() {
    std::lock_guard lk(m_);
    if (--holders_ == 0) gate_.unlock();
  }

 private:
  kernel_gate& gate_;
  std::mutex m_;
  std::condition_variable changed_;  // a side got the gate (holders_ > 0) or gave up waiting for it
  unsigned holders_ = 0;
  bool taking_ = false;  // a side waits for the gate, m_ released
};

}  // namespace cuzk::groth16
