// SPDX-License-Identifier: MIT OR Apache-2.0
// Test helpers shared by the daemon tests that start `cuzk daemon` as a process: reading a file,
// running a shell command, a free TCP port for the daemon's HTTP listener (the kernel picks it;
// another process could still take it before the daemon binds, which the tests accept), and a
// status page's DOM after headless Chromium ran its script.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

namespace cuzk::service::test {

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
  return run_command("timeout 60 " + chromium + " --headless --disable-gpu --no-sandbox --user-data-dir=" + profile +
                     " --virtual-time-budget=3000 --dump-dom " + url + " 2>/dev/null");
}

}  // namespace cuzk::service::test
