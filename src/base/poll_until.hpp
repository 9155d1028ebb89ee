// SPDX-License-Identifier: MIT OR Apache-2.0
// For tests of threads: waits until a condition holds, asking it again every `step`, for at most
// `limit`. A test that waits for another thread's effect polls rather than sleeping a fixed time,
// so it is as fast as the machine allows and fails only when the effect never comes.
#pragma once

#include <chrono>
#include <thread>

namespace cuzk {

// Whether `done()` returned true before `limit` passed.
template <class F>
bool poll_until(F&& done, std::chrono::milliseconds limit = std::chrono::seconds(10),
                std::chrono::milliseconds step = std::chrono::milliseconds(1)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(step);
  }
  return true;
}

}  // namespace cuzk
