// SPDX-License-Identifier: MIT OR Apache-2.0
// The throwaway PostgreSQL server (see pg_test_cluster.hpp).
#include "engine/jobs/pg_test_cluster.hpp"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

namespace {

namespace fs = std::filesystem;

std::string& reason() {
  static std::string r;
  return r;
}

// $CUZK_PG_BIN, else the newest /usr/lib/postgresql/<N>/bin that has initdb and pg_ctl.
std::string find_bin_dir() {
  if (const char* e = std::getenv("CUZK_PG_BIN"); e && *e) return e;
  std::string best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = d.path() / "bin";
    if (!fs::exists(bin / "initdb") || !fs::exists(bin / "pg_ctl")) continue;
    const int v = std::atoi(d.path().filename().c_str());
    if (v > best_version) best_version = v, best = bin.string();
  }
  return best;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string tail_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return s.size() > 800 ? s.substr(s.size() - 800) : s;
}

}  // namespace

const std::string& pg_test_cluster::unavailable_reason() { return reason(); }

int pg_test_cluster::run(const std::string& binary, const std::string& args, const std::string& log) const {
  const std::string cmd =
      as_user_ + quoted(bin_dir_ + "/" + binary) + " " + args + " >>" + quoted(log) + " 2>&1";
  return std::system(cmd.c_str());
}

pg_test_cluster* pg_test_cluster::shared() {
  static std::unique_ptr<pg_test_cluster> cluster = []() -> std::unique_ptr<pg_test_cluster> {
    std::unique_ptr<pg_test_cluster> c(new pg_test_cluster());
    c->bin_dir_ = find_bin_dir();
    if (c->bin_dir_.empty()) {
      reason() =
          "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or $CUZK_PG_BIN: "
          "scripts/setup.sh installs Debian's postgresql";
      return nullptr;
    }
    // Short: the socket's path (dir + "/.s.PGSQL.5432") must fit in sun_path's 108 bytes.
    char tmpl[] = "/tmp/cuzk-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      reason() = "cannot make a directory under /tmp for the test server";
      return nullptr;
    }
    c->dir_ = tmpl;
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (!pw) pw = ::getpwnam("nobody");
      if (!pw || ::chown(c->dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        reason() = "running as root, and no postgres or nobody user to run the test server as";
        return nullptr;
      }
      c->as_user_ = std::string("runuser -u ") + pw->pw_name + " -- ";
    }
    const std::string log = c->dir_ + "/setup.log";
    const std::string data = c->dir_ + "/data";
    if (c->run("initdb", "-D " + quoted(data) + " -A trust -U cuzk -N -E UTF8 --locale=C --no-instructions",
               c->dir_ + "/initdb.log") != 0) {
      reason() = "initdb failed: " + tail_of(c->dir_ + "/initdb.log");
      return nullptr;
    }
    c->opts_ = "-k " + c->dir_ + " -c listen_addresses='' -F -c max_connections=64 -c shared_buffers=16MB";
    if (status s = c->start(); !s) {
      reason() = s.message();
      return nullptr;
    }
    return c;
  }();
  return cluster.get();
}

pg_test_cluster::~pg_test_cluster() {
  if (started_) (void)run("pg_ctl", "-D " + quoted(dir_ + "/data") + " -m immediate -w stop", "/dev/null");
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

status pg_test_cluster::start() {
  const std::string log = dir_ + "/setup.log";
  if (run("pg_ctl",
          "-D " + quoted(dir_ + "/data") + " -l " + quoted(dir_ + "/data/server.log") + " -w -t 60 -o " +
              quoted(std::as_const(opts_)) + " start",
          log) != 0)
    return status(errc::unavailable, "pg_ctl start failed: " + tail_of(log) + tail_of(dir_ + "/data/server.log"));
  started_ = true;
  return status::ok();
}

status pg_test_cluster::stop() {
  if (run("pg_ctl", "-D " + quoted(dir_ + "/data") + " -m fast -w -t 60 stop", dir_ + "/setup.log") != 0)
    return status(errc::internal, "pg_ctl stop failed: " + tail_of(dir_ + "/setup.log"));
  started_ = false;
  return status::ok();
}

status pg_test_cluster::kill() {
  std::ifstream pidfile(dir_ + "/data/postmaster.pid");
  long pid = 0;
  if (!(pidfile >> pid) || pid <= 0)
    return status(errc::internal, "kill: no postmaster.pid in " + dir_ + "/data");
  if (::kill(static_cast<pid_t>(pid), SIGKILL) != 0)
    return status(errc::internal, "kill: the postmaster " + std::to_string(pid) + " cannot be signalled");
  started_ = false;
  // The postmaster is pg_ctl's orphan, reaped by init; its backends notice its death and exit.
  for (int k = 0; k < 500 && ::kill(static_cast<pid_t>(pid), 0) == 0; ++k) ::usleep(10'000);
  return status::ok();
}

status pg_test_cluster::start_after_crash() {
  // A backend of the killed postmaster still attached to the old shared memory makes the new one
  // refuse to start until it has exited (it notices the death within a moment): tried again.
  status s = status::ok();
  for (int k = 0; k < 40; ++k) {
    s = start();
    if (s.is_ok()) return s;
    ::usleep(250'000);
  }
  return s;
}

std::string pg_test_cluster::admin_conninfo() const { return "host=" + dir_ + " user=cuzk dbname=postgres"; }

result<std::string> pg_test_cluster::fresh_database(const std::string& name) {
  const std::string db = name + "_" + std::to_string(++databases_);
  auto c = pg_connection::open(admin_conninfo());
  if (!c) return c.error();
  auto made = (*c)->exec("create a test database", "CREATE DATABASE \"" + db + "\"");
  if (!made) return made.error();
  return "host=" + dir_ + " user=cuzk dbname=" + db;
}

}  // namespace cuzk::engine
