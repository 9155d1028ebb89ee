// SPDX-License-Identifier: MIT OR Apache-2.0
// One daemon per data directory: an exclusive flock(2) on <data_dir>/cuzk.lock, held for the
// daemon's life.
//
// Two daemons on one data directory would share one job database and one witness spool: the second
// would take over the socket (the first one's clients then talk to it), both would recover and
// prove the same queued jobs, and each would sweep the other's spooled witnesses as orphans. A
// flock is released by the kernel when the process dies however it dies (kill -9 included), so a
// stale lock file never blocks a restart; the file holds the owner's pid only for the message.
//
// Thread safety: acquire from the main thread at start-up; the lock is released on destruction.
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::service {

class data_dir_lock {
 public:
  // unavailable naming the directory and the pid holding it when another process has it; io_error
  // when the lock file cannot be made.
  static result<data_dir_lock> acquire(const std::string& data_dir);
  data_dir_lock(data_dir_lock&& o) noexcept;
  data_dir_lock& operator=(data_dir_lock&&) = delete;
  data_dir_lock(const data_dir_lock&) = delete;
  ~data_dir_lock();

 private:
  explicit data_dir_lock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace cuzk::service
