// SPDX-License-Identifier: MIT OR Apache-2.0
// Test helpers shared by the daemon tests that start `cuzk daemon` as a process: the fixture most
// of them prove, starting and ending the daemon, reading a file, running a shell command, a free
// TCP port for the daemon's HTTP listener (the kernel picks it; another process could still take
// it before the daemon binds, which the tests accept), a status page's DOM after headless Chromium
// ran its script, and whether a proof the daemon returned verifies.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/client.hpp"

namespace cuzk::service::test {

// The names every daemon test uses: the API's messages, paths and durations.
namespace v1 = cuzk::v1;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The fixtures, and snarkjs's Poseidon circuit on bn128 among them: its proving key, a witness
// and the verification key snarkjs wrote for it.
inline const std::string data_dir = CUZK_TEST_DATA_DIR;
inline const std::string poseidon_zkey = data_dir + "/snarkjs/bn128/poseidon/circuit.zkey";
inline const std::string poseidon_wtns = data_dir + "/snarkjs/bn128/poseidon/circuit.wtns";
inline const std::string poseidon_vk = data_dir + "/snarkjs/bn128/poseidon/verification_key.json";

// `bin daemon --config <config>` as a child process, its stderr into the file `log` where one is
// named; the child's pid.
inline pid_t start_daemon(const std::string& config, const std::string& log = {}, const std::string& bin = CUZK_BIN) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!log.empty() && std::freopen(log.c_str(), "w", stderr) == nullptr) ::_exit(126);
    ::execl(bin.c_str(), bin.c_str(), "daemon", "--config", config.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// SIGKILL (to the daemon, a crash) and the child reaped; `pid` is -1 after. Nothing where it is not
// a child's.
inline void kill9(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

// SIGTERM (the daemon drains and exits) and the child reaped; its exit status, or -1 where it did
// not exit by itself. `pid` is -1 after.
inline int terminate(pid_t& pid) {
  int st = 0;
  ::kill(pid, SIGTERM);
  ::waitpid(pid, &st, 0);
  pid = -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

inline std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Runs a shell command; its exit status and what it wrote to stdout and stderr.
inline std::pair<int, std::string> run_command(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

inline int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(s);
  return ntohs(a.sin_port);
}

// The first Chromium on PATH that runs headless: Debian's chromium-headless-shell (smaller, what
// setup.sh installs) or the full chromium. Empty when there is none.
inline std::string find_chromium() {
  for (const char* name : {"chromium-headless-shell", "chromium"}) {
    auto [rc, out] = run_command(std::string("command -v ") + name);
    if (rc == 0) return out.substr(0, out.find('\n'));
  }
  return {};
}

// The page at `url` as headless Chromium leaves its DOM once its script ran (`profile`: a fresh
// directory, so it never touches $HOME); rc 0 when Chromium ran.
inline std::pair<int, std::string> browser_dom(const std::string& chromium, const std::string& profile,
                                               const std::string& url) {
  // --virtual-time-budget lets the page's fetch and render finish before the DOM is dumped;
  // `timeout` bounds the whole browser run.
  return run_command("timeout 60 " + chromium + " --headless --disable-gpu --no-sandbox --user-data-dir=" +
                     profile + " --virtual-time-budget=3000 --dump-dom " + url + " 2>/dev/null");
}

// Empty when a proof and its public signals, in snarkjs's JSON, verify under the verification key
// in the file `vk_path` (snarkjs's verification_key.json); else what did not parse or not verify.
template <class C = bn254>
std::string proof_check(const std::string& vk_path, const std::string& proof_json, const std::string& public_json) {
  const auto key = formats::verification_key_from_json<C>(read_file(vk_path), vk_path);
  if (!key) return key.error().to_string();
  const auto proof = formats::proof_from_json<C>(proof_json, "proof");
  if (!proof) return proof.error().to_string();
  const auto pub = formats::public_from_json<C>(public_json, "publicSignals");
  if (!pub) return pub.error().to_string();
  const auto verified = groth16::verify<C>(*key, *pub, *proof);
  return verified ? std::string() : verified.to_string();
}

// The JSON document in what a client verb printed, from its first '{' on (discarded where none).
inline nlohmann::json printed_document(const std::string& out) {
  return nlohmann::json::parse(out.substr(std::min(out.find('{'), out.size())), nullptr, false);
}

// Whether the one JSON document the client verbs print verifies (snarkjs.groth16.fullProve's shape:
// "proof" and "publicSignals").
template <class C = bn254>
std::string proof_document_check(const std::string& vk_path, const nlohmann::json& doc) {
  if (doc.is_discarded() || !doc.contains("proof") || !doc.contains("publicSignals"))
    return "not a document with \"proof\" and \"publicSignals\": " + doc.dump();
  return proof_check<C>(vk_path, doc["proof"].dump(), doc["publicSignals"].dump());
}

}  // namespace cuzk::service::test
