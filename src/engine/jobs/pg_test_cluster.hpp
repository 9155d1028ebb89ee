// SPDX-License-Identifier: MIT OR Apache-2.0
// A throwaway PostgreSQL server for tests: the real server, never a stand-in.
//
// initdb makes a cluster in a fresh directory under /tmp and pg_ctl starts it listening only on a
// Unix socket in that directory (no TCP port, so parallel test processes cannot collide), with
// fsync off (a test's data need not survive a power cut; this is what keeps a test to seconds).
// initdb refuses to run as root, and CI runs as root: there the directory is handed to the
// `postgres` user (or `nobody` where there is none) and the server's commands run as that user
// through runuser. One server is started per test process, on first use, and stopped with
// `pg_ctl stop -m immediate` when the process exits; each test takes a database of its own.
//
// The server binaries are looked for in $CUZK_PG_BIN, then in Debian's /usr/lib/postgresql/<N>/bin
// (the newest version). Without them, tests skip with the reason (scripts/setup.sh installs the
// `postgresql` package).
//
// Thread safety: the test's thread only.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

class pg_test_cluster {
 public:
  // The process's server, started on first use; nullptr when it cannot be (unavailable_reason()).
  static pg_test_cluster* shared();
  static const std::string& unavailable_reason();

  // Creates an empty database and returns its libpq connection string. Names are unique per call.
  result<std::string> fresh_database(const std::string& name);
  // The connection string of the maintenance database `postgres`.
  std::string admin_conninfo() const;
  // Stops the server as an operator's restart does (`pg_ctl stop -m fast`: sessions are ended, the
  // data kept), and starts it again; for tests of a database that goes away and comes back.
  status stop();
  status start();
  // Kills the postmaster with SIGKILL, as a crash of the server does (its sessions die with it,
  // and the next start recovers from the write-ahead log), and waits until it is gone; start()
  // brings it back.
  status kill();
  // start() after kill(), tried again while the dead server's sessions still hold its memory.
  status start_after_crash();

  ~pg_test_cluster();
  pg_test_cluster(const pg_test_cluster&) = delete;
  pg_test_cluster& operator=(const pg_test_cluster&) = delete;

 private:
  pg_test_cluster() = default;
  // Runs a server binary (as the server's user when root), its output appended to `log`.
  int run(const std::string& binary, const std::string& args, const std::string& log) const;

  std::string bin_dir_;
  std::string dir_;
  std::string as_user_;  // "runuser -u postgres -- " when root, else empty
  std::string opts_;     // the server's options (pg_ctl -o)
  bool started_ = false;
  int databases_ = 0;
};

// For the tests that include this header (they use GoogleTest): a fresh database on the shared
// server, or empty where the server cannot start (the test then skips with the reason).
inline std::string fresh_test_database(const std::string& name) {
  pg_test_cluster* cluster = pg_test_cluster::shared();
  if (!cluster) return {};
  auto db = cluster->fresh_database(name);
  EXPECT_TRUE(db.is_ok()) << db.error().to_string();
  return db ? *db : std::string();
}

}  // namespace cuzk::engine

#define FRESH_DATABASE_OR_SKIP(var, name)                          \
  const std::string var = ::cuzk::engine::fresh_test_database(name); \
  if (var.empty()) GTEST_SKIP() << ::cuzk::engine::pg_test_cluster::unavailable_reason()
