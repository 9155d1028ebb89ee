// One daemon per job database, for as long as the engine does not claim its work through leases.
//
// Today's engine reads every unfinished job from its store at start and queues it (engine.hpp), so
// two daemons on one database would both prove the same jobs. Until the scheduler claims through
// pg_job_leases.hpp, a daemon holds this lock on its database: a PostgreSQL session advisory lock,
// taken on a connection of its own and held while the object lives. A second daemon on the same
// database refuses to start, as a second daemon on one data_dir does (data_dir_lock.hpp). The
// server ends the session, and so releases the lock, when the daemon exits or is killed; a daemon
// that starts right after its predecessor died waits a few seconds for that session to end.
//
// A lost connection loses the lock (a restart of the server): the daemon keeps running, and another
// could then start; the lock guards against a mistaken configuration, not against every failure.
//
// Thread safety: nothing to call after acquire().
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

class pg_single_daemon_lock {
 public:
  // Takes the lock, trying for up to `wait`; failed_precondition when another daemon holds it.
  static result<std::unique_ptr<pg_single_daemon_lock>> acquire(const std::string& conninfo,
                                                                std::chrono::milliseconds wait);

 private:
  explicit pg_single_daemon_lock(std::unique_ptr<pg_connection> c) : c_(std::move(c)) {}
  std::unique_ptr<pg_connection> c_;
};

}  // namespace cuzk::engine
