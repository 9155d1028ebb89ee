// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk daemon` with no arguments, run as an ordinary user: state under $XDG_STATE_HOME/cuzk, the
// socket inside it, HTTP on 127.0.0.1:9745 (and, when another process holds that port, a daemon
// that starts anyway and says HTTP is off), and the client verbs given no --socket finding it:
// register, circuits, prove-remote printing one JSON document, status with the version.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/version.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/client.hpp"
#include "service/config.hpp"
#include "service/daemon_test_util.hpp"
#include "service/http_service.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace test;

// A listening socket on the default HTTP port, or -1 when another process already has it.
int hold_default_http_port() {
  const auto hp = split_host_port(default_http_address, "http");
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  // As the daemon binds: a port whose old connections sit in TIME_WAIT is free to take.
  int yes = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(hp->second));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 1) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// A home and an XDG state folder of its own; `cuzk ...` run with that environment, from `home`.
struct user_env {
  fs::path root = fs::temp_directory_path() / ("cuzk-defaults-" + std::to_string(::getpid()));
  fs::path home = root / "home", xdg = root / "xdg-state";
  fs::path state = xdg / "cuzk";
  pid_t pid = -1;

  user_env() {
    fs::remove_all(root);
    fs::create_directories(home);
  }
  ~user_env() {
    kill9(pid);
    fs::remove_all(root);
  }
  std::string prefix() const {
    return "cd " + home.string() + " && env HOME=" + home.string() + " XDG_STATE_HOME=" + xdg.string() + " ";
  }
  // `cuzk <args>` with this environment; stdout and stderr together.
  std::pair<int, std::string> cli(const std::string& args) const {
    return run_command(prefix() + CUZK_BIN + " " + args);
  }
  // stdout alone (stderr dropped).
  std::pair<int, std::string> cli_stdout(const std::string& args) const {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "(" + std::string.
    std::string cmd = "(";
    cmd += prefix();
    cmd += CUZK_BIN;
    cmd += " " + args + " 2>/dev/null)";
    return run_command(cmd);
  }
  // `cuzk daemon` with no arguments, its output in root/daemon.log; waits for its socket.
  void start_daemon() {
    pid = ::fork();
    if (pid == 0) {
      ::setenv("HOME", home.c_str(), 1);
      ::setenv("XDG_STATE_HOME", xdg.c_str(), 1);
      if (::chdir(home.c_str()) != 0) ::_exit(126);
      const std::string log = (root / "daemon.log").string();
      if (!std::freopen(log.c_str(), "a", stderr) || !std::freopen(log.c_str(), "a", stdout)) ::_exit(126);
      ::execl(CUZK_BIN, CUZK_BIN, "daemon", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    auto ch = connect((state / "cuzk.sock").string(), "");
    ASSERT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s))
        << "daemon did not come up:\n"
        << read_file((root / "daemon.log").string());
  }
  int stop_daemon() { return terminate(pid); }
};

TEST(daemon_defaults, print_config_shows_the_user_state_folder_and_loopback_http) {
  user_env u;
  const auto [rc, out] = u.cli("daemon --print-config");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("data_dir = \"" + u.state.string() + "\""), std::string::npos) << out;
  EXPECT_NE(out.find(std::string("http = \"") + default_http_address + "\""), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(u.state)) << "printing the config must not create the state folder";
}

TEST(daemon_defaults, runs_with_no_arguments_and_the_client_verbs_find_its_socket) {
  user_env u;
  // First with the default HTTP port free (when nobody else holds it): HTTP answers there.
  const int probe = hold_default_http_port();
  const bool port_was_free = probe >= 0;
  if (port_was_free) ::close(probe);
  u.start_daemon();
  if (HasFatalFailure()) return;
  EXPECT_TRUE(fs::exists(u.state / "jobs.sqlite"));
  if (port_was_free) {
    const auto hp = split_host_port(default_http_address, "http");
    httplib::Client http(hp->first, hp->second);
    auto st = http.Get("/status");
    ASSERT_TRUE(st) << "HTTP is on by default:\n" << read_file((u.root / "daemon.log").string());
    EXPECT_EQ(nlohmann::json::parse(st->body)["version"], version());
    auto m = http.Get("/metrics");
    ASSERT_TRUE(m);
    EXPECT_NE(m->body.find("cuzk_build_info{version=\"" + std::string(version()) + "\""), std::string::npos);
    EXPECT_NE(m->body.find("\nprocess_resident_memory_bytes "), std::string::npos);
  }

  auto [rc, out] = u.cli("circuits");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("no circuits registered"), std::string::npos) << out;
  // Without key_dirs (the default) the daemon's own user registers a key anywhere over its socket
  // (docs/HARDENING.md, finding 19: other users cannot connect to it, TCP clients are refused).
  std::tie(rc, out) = u.cli("register poseidon " + poseidon_zkey);
  ASSERT_EQ(rc, 0) << out;
  // What was registered, as the daemon read the key; it once printed nothing.
  EXPECT_EQ(out.rfind("registered poseidon: bn128, ", 0), 0u) << out;
  EXPECT_NE(out.find(" variables, "), std::string::npos) << out;
  EXPECT_NE(out.find("zkey " + poseidon_zkey), std::string::npos) << out;
  std::tie(rc, out) = u.cli("register poseidon " + poseidon_zkey);  // the same key again: a success
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = u.cli("register poseidon " + data_dir + "/snarkjs/bn128/circuit.zkey");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("already registered with another key"), std::string::npos) << out;
  EXPECT_NE(out.find("--replace"), std::string::npos) << "the message says the way round:\n" << out;

  std::tie(rc, out) = u.cli("circuits");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("ID ", 0), 0u) << out;
  EXPECT_NE(out.find("poseidon"), std::string::npos) << out;
  EXPECT_NE(out.find("bn128"), std::string::npos) << out;
  std::tie(rc, out) = u.cli_stdout("circuits --json");
  ASSERT_EQ(rc, 0) << out;
  auto list = nlohmann::json::parse(out);
  ASSERT_EQ(list.size(), 1u) << out;
  EXPECT_EQ(list[0]["id"], "poseidon");
  EXPECT_EQ(list[0]["curve"], "bn128");
  EXPECT_EQ(list[0]["zkey_path"], poseidon_zkey);
  EXPECT_EQ(list[0]["tier"], "cold");
  EXPECT_GT(list[0]["domain_size"].get<uint64_t>(), 0u);
  EXPECT_GT(list[0]["file_bytes"].get<uint64_t>(), 0u);

  // No -o: one JSON document, snarkjs.groth16.fullProve's shape, that verifies.
  std::tie(rc, out) = u.cli_stdout("prove-remote -c poseidon " + poseidon_wtns);
  ASSERT_EQ(rc, 0) << out;
  const auto doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "not one JSON document:\n" << out;
  EXPECT_EQ(proof_document_check(poseidon_vk, doc), "") << out;
  std::tie(rc, out) = u.cli_stdout("circuits --json");
  EXPECT_NE(nlohmann::json::parse(out)[0]["tier"], "cold") << out;  // the proof loaded the key

  std::tie(rc, out) = u.cli_stdout("status");
  ASSERT_EQ(rc, 0) << out;
  const auto st = nlohmann::json::parse(out);
  EXPECT_EQ(st["version"], version());
  EXPECT_EQ(st["config"]["data_dir"], u.state.string());
  EXPECT_EQ(u.stop_daemon(), 0);

  // Again with the default HTTP port held by another process: the daemon starts, says HTTP is off,
  // and proves over its socket.
  const int held = hold_default_http_port();
  u.start_daemon();
  if (HasFatalFailure()) return;
  std::tie(rc, out) = u.cli("status");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(u.stop_daemon(), 0);
  if (held >= 0) ::close(held);
  const std::string log = read_file((u.root / "daemon.log").string());
  EXPECT_NE(log.find("HTTP is off: http: cannot bind " + std::string(default_http_address)),
            std::string::npos)
      << log;
}

// A daemon started with no config derives its message limit from no keys: 4 MiB. A circuit
// registered afterwards whose witness is 8 MB (2^18 variables, the size of a .wtns a user sent
// inline) takes that witness inline without a restart: the limit follows the registration. Before,
// it was refused until the daemon restarted, and the refusal offered --path, which is off without
// witness_dirs.
TEST(daemon_defaults, a_key_registered_after_the_start_takes_its_8_mb_witness_inline) {
  user_env u;
  const fs::path key = u.root / "big.zkey", witness = u.root / "big.wtns", vkey = u.root / "big.vk.json";
  auto [rc, out] = u.cli("setup --synthetic --cpu --log-size 18 --vk " + vkey.string() + " " + key.string() + " " +
                         witness.string());
  ASSERT_EQ(rc, 0) << out;
  ASSERT_GT(fs::file_size(witness), std::uintmax_t{8} << 20);
  u.start_daemon();
  if (HasFatalFailure()) return;
  std::tie(rc, out) = u.cli("register big " + key.string());
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = u.cli_stdout("prove-remote -c big " + witness.string());
  ASSERT_EQ(rc, 0) << out << read_file((u.root / "daemon.log").string());
  const auto doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "not one JSON document:\n" << out;
  EXPECT_EQ(proof_document_check(vkey.string(), doc), "") << out;

  // Past the derived limit (10 MiB now), the refusal names the key that admits it and offers no
  // path: this daemon has no witness_dirs.
  const fs::path over = u.root / "over.wtns";
  std::string bytes = read_file(witness.string());
  bytes.resize(std::size_t{12} << 20);
  std::ofstream(over, std::ios::binary) << bytes;
  std::tie(rc, out) = u.cli("submit -c big " + over.string());
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("expected at most 10485760 bytes (the daemon's message limit), found 12582"), std::string::npos)
      << out;
  EXPECT_NE(out.find("set max_message_mib = 13 in the daemon's config to admit it"), std::string::npos) << out;
  EXPECT_EQ(out.find("--path"), std::string::npos) << out;
  EXPECT_EQ(u.stop_daemon(), 0);
  const std::string log = read_file((u.root / "daemon.log").string());
  EXPECT_NE(log.find("message limit derived again max_message_bytes=10485760"), std::string::npos) << log;
}

// A data_dir deep enough that <data_dir>/cuzk.sock no longer fits a Unix socket's address: gRPC
// alone said only "cannot listen"; the daemon names the limit and what to set.
TEST(daemon_defaults, a_socket_path_past_the_unix_limit_is_refused_with_the_reason) {
  user_env u;
  const fs::path deep = u.root / std::string(120, 'd');
  const std::string config = (u.root / "deep.toml").string();
  std::ofstream(config) << "data_dir = \"" << deep.string() << "\"\nhttp = \"\"\nlog_level = \"warn\"\n";
  const auto [rc, out] = u.cli("daemon --config " + config);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cuzk.sock: expected a path of at most 107 bytes (a Unix socket's limit), found "),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(deep)) << "refused before the data_dir directory is made";
}

}  // namespace
}  // namespace cuzk::service
