// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's housekeeping thread (see housekeeper.hpp).
#include "engine/housekeeper.hpp"

#include <algorithm>
#include <utility>

namespace cuzk::engine {

void housekeeper::start(std::chrono::milliseconds period, std::function<bool()> pending,
                        std::function<bool()> round) {
  thread_ = std::thread([this, period, pending = std::move(pending), round = std::move(round)] {
    loop(period, pending, round);
  });
}

void housekeeper::wake() {
  // Taking the lock first means the thread is either waiting (and wakes) or has yet to read
  // pending().
  { std::lock_guard lk(m_); }
  cv_.notify_all();
}

void housekeeper::stop() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void housekeeper::loop(std::chrono::milliseconds period, const std::function<bool()>& pending,
                       const std::function<bool()>& round) {
  auto retry_period = first_retry;
  std::unique_lock lk(m_);
  while (!stop_) {
    cv_.wait_for(lk, pending() ? std::min(period, retry_period) : period);
    if (stop_) break;
    lk.unlock();
    retry_period = round() ? first_retry : std::min(retry_period * 2, last_retry);
    lk.lock();
  }
}

}  // namespace cuzk::engine
