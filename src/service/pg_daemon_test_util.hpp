// SPDX-License-Identifier: MIT OR Apache-2.0
// A `cuzk daemon` process with its jobs in a PostgreSQL database, for the tests of daemons sharing
// one queue (daemon_postgres_test.cpp, daemon_cluster_test.cpp, daemon_cluster_restart_test.cpp):
// its own data_dir and socket, its node name, HTTP on a port when the test gives one, whatever
// further config lines it gives, and its stderr (its log) in the file `log` where the test names one.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include "service/daemon_test_util.hpp"

namespace cuzk::service::test {

struct pg_daemon {
  std::string name, dir, sock;
  pid_t pid = -1;
  int http_port = 0;  // 0: no HTTP

  // Started at once; `extra` is appended to the config's top-level keys (before [[circuit]]).
  pg_daemon(const std::string& node, const std::string& database, const std::string& zkey,
            const std::string& extra = "", const std::string& circuit_id = "poseidon", int http = 0,
            const std::string& log = "")
      : name(node), http_port(http) {
    namespace fs = std::filesystem;
    dir = (fs::temp_directory_path() / ("cuzk-pgd-" + node + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    sock = dir + "/d.sock";
    const std::string config = dir + "/cuzk.toml";
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock
                          << "\"\nhttp = \"" << (http_port ? "127.0.0.1:" + std::to_string(http_port) : "")
                          << "\"\nlog_level = \"warn\"\ndatabase = \"" << database
                          << "\"\nnode_name = \"" << node << "\"\n"
                          << extra << "\n[[circuit]]\nid = \"" << circuit_id << "\"\nzkey = \"" << zkey << "\"\n";
    pid = start_daemon(config, log);
  }
  ~pg_daemon() {
    kill9();
    std::filesystem::remove_all(dir);
  }
  pg_daemon(const pg_daemon&) = delete;
  pg_daemon& operator=(const pg_daemon&) = delete;

  // SIGSTOP freezes the daemon where it is, so that what it holds can be read and then killed with
  // it (a power cut at that instant); SIGCONT lets it go on when the moment was not the one wanted.
  void pause() const {
    if (pid > 0) ::kill(pid, SIGSTOP);
  }
  void resume() const {
    if (pid > 0) ::kill(pid, SIGCONT);
  }
  void kill9() { test::kill9(pid); }
  std::pair<int, std::string> cli(const std::string& verb_and_args) const {
    return run_command(std::string(CUZK_BIN) + " " + verb_and_args + " --socket " + sock);
  }
  // Whether it answers `cuzk status` within `limit`.
  bool up(std::chrono::seconds limit = std::chrono::seconds(20)) const {
    for (auto until = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < until;
         std::this_thread::sleep_for(std::chrono::milliseconds(50)))
      if (cli("status").first == 0) return true;
    return false;
  }
};

}  // namespace cuzk::service::test
