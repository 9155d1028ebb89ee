// SPDX-License-Identifier: MIT OR Apache-2.0
// Cancellation that travels with a job.
//
// The engine keeps a cancel_source per running job; the worker proving it holds a cancel_token
// and checks it at every phase boundary (after the key is resident, between partitions, before
// verification). A proof step already running is not interrupted: the CPU prover has no
// preemption points, and abandoning a GPU kernel midway would leave the device in an unknown
// state. The reason says why the job stops, because the two cases end differently: a caller's
// cancel ends the job as cancelled; a drain (SIGTERM) puts it back in the queue for the next start.
//
// Thread safety: request() from any thread, the token's checks from any thread; lock-free.
#pragma once

#include <atomic>
#include <memory>

namespace cuzk::engine {

enum class cancel_reason : int { none = 0, caller = 1, shutdown = 2 };

class cancel_token {
 public:
  cancel_token() : flag_(std::make_shared<std::atomic<int>>(0)) {}

  bool cancelled() const noexcept { return reason() != cancel_reason::none; }
  cancel_reason reason() const noexcept {
    return static_cast<cancel_reason>(flag_->load(std::memory_order_acquire));
  }
  // The first reason wins: a caller's cancel during a drain stays a cancel.
  void request(cancel_reason r) const noexcept {
    int expected = 0;
    flag_->compare_exchange_strong(expected, static_cast<int>(r), std::memory_order_acq_rel);
  }

 private:
  std::shared_ptr<std::atomic<int>> flag_;
};

}  // namespace cuzk::engine
