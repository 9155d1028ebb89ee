// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's housekeeping thread: one round every period (the engine's purges results past their
// retention and stores the outcomes the store refused before), sooner while something waits for a
// retry.
//
// The retry wait starts at first_retry and doubles after every round that is refused again, up to
// last_retry: a server that restarts in a second or two, or a disk given room, takes a refused
// result soon after, not a retention period later, and a store down for long is not hammered.
//
// Thread safety: start() once, then wake() from any thread; stop() from one thread (the engine's
// drain, or the destructor).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace cuzk::engine {

class housekeeper {
 public:
  static constexpr std::chrono::milliseconds first_retry{250}, last_retry{8000};

  housekeeper() = default;
  ~housekeeper() { stop(); }
  housekeeper(const housekeeper&) = delete;
  housekeeper& operator=(const housekeeper&) = delete;

  // Starts the thread. `pending()`: whether something waits for a retry, which shortens the wait to
  // the retry period; read under the housekeeper's lock, so that a wake() after what it reads
  // changed is never missed. `round()`: one round; false while what waits is still refused.
  void start(std::chrono::milliseconds period, std::function<bool()> pending, std::function<bool()> round);
  // Runs a round now, or has the next wait read pending() again: for a result that now waits.
  void wake();
  // Ends the thread after the round it is in; idempotent.
  void stop();

 private:
  void loop(std::chrono::milliseconds period, const std::function<bool()>& pending,
            const std::function<bool()>& round);

  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cuzk::engine
