// SPDX-License-Identifier: MIT OR Apache-2.0
// pg_connection against a server that stops answering: a TCP listener that takes connections and
// never says a word, as a database host behaves once powered off or cut off behind a firewall that
// drops packets. No PostgreSQL is needed.
#include "engine/jobs/pg_connection.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// A listening socket on 127.0.0.1 whose connections the kernel completes and nobody reads.
class silent_server {
 public:
  silent_server() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port_ = ntohs(a.sin_port);
  }
  ~silent_server() {
    if (fd_ >= 0) ::close(fd_);
  }
  silent_server(const silent_server&) = delete;
  silent_server& operator=(const silent_server&) = delete;
  int port() const { return port_; }
  // A connection string to it, with `extra` keywords.
  std::string conninfo(const std::string& extra = "") const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " dbname=cuzk" + (extra.empty() ? "" : " " + extra);
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

struct attempt {
  bool finished = false;
  status outcome;
  double seconds = 0;
};

// open(conninfo) on a thread of its own, waited for at most `limit`: a call that never returns
// fails the test instead of hanging it (its thread is left behind, holding only shared state).
attempt open_within(const std::string& conninfo, std::chrono::seconds limit = 40s) {
  auto done = std::make_shared<std::promise<status>>();
  auto answer = done->get_future();
  const auto t0 = steady::now();
  std::thread([done, conninfo] {
    auto c = pg_connection::open(conninfo);
    done->set_value(c ? status::ok() : c.error());
  }).detach();
  attempt a;
  if (answer.wait_for(limit) != std::future_status::ready) return a;
  a.finished = true;
  a.outcome = answer.get();
  a.seconds = std::chrono::duration<double>(steady::now() - t0).count();
  return a;
}

// libpq waits for a silent server's answer for ever unless told otherwise; the connection's own
// bound (connect_timeout, 10 s) ends the wait, unavailable, naming the server.
TEST(pg_connection, a_server_that_never_answers_is_given_up_within_the_default_bound) {
  silent_server s;
  ASSERT_NE(s.port(), 0);
  const auto a = open_within(s.conninfo());
  ASSERT_TRUE(a.finished) << "open() still waiting after 40 s";
  ASSERT_FALSE(a.outcome.is_ok());
  EXPECT_EQ(a.outcome.code(), errc::unavailable) << a.outcome.to_string();
  EXPECT_NE(a.outcome.message().find("127.0.0.1"), std::string::npos) << a.outcome.message();
  EXPECT_GE(a.seconds, 9.0) << "given up before the bound: " << a.outcome.to_string();
  EXPECT_LT(a.seconds, 25.0);
}

// The connection string's own value replaces the default (libpq's minimum, 2 s, here).
TEST(pg_connection, the_connection_strings_own_bound_wins) {
  silent_server s;
  ASSERT_NE(s.port(), 0);
  const auto a = open_within(s.conninfo("connect_timeout=2"));
  ASSERT_TRUE(a.finished) << "open() still waiting after 40 s";
  ASSERT_FALSE(a.outcome.is_ok());
  EXPECT_EQ(a.outcome.code(), errc::unavailable) << a.outcome.to_string();
  EXPECT_LT(a.seconds, 8.0) << "the default's 10 s, not the string's 2: " << a.outcome.to_string();
}

// libpq's environment is the operator's too: PGCONNECT_TIMEOUT replaces the default as the
// connection string would (libpq reads it only for a keyword given no value).
TEST(pg_connection, pgconnect_timeout_in_the_environment_wins) {
  silent_server s;
  ASSERT_NE(s.port(), 0);
  const char* before = std::getenv("PGCONNECT_TIMEOUT");
  const std::optional<std::string> kept = before != nullptr ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("PGCONNECT_TIMEOUT", "2", 1);
  const auto a = open_within(s.conninfo());
  if (kept) ::setenv("PGCONNECT_TIMEOUT", kept->c_str(), 1);
  else ::unsetenv("PGCONNECT_TIMEOUT");
  ASSERT_TRUE(a.finished) << "open() still waiting after 40 s";
  ASSERT_FALSE(a.outcome.is_ok());
  EXPECT_LT(a.seconds, 8.0) << "the default's 10 s, not the environment's 2: " << a.outcome.to_string();
}

// The bounds open() passes: each a keyword libpq knows, so that a connection never fails for an
// option of ours (an unknown keyword refuses the connection string).
TEST(pg_connection, the_default_bounds_are_libpqs_keywords) {
  for (const auto& [k, v] : pg_connection::default_bounds()) {
    const std::string conninfo = std::string(k) + "=" + v + " host=/nonexistent-socket-dir";
    auto c = pg_connection::open(conninfo);
    ASSERT_FALSE(c.is_ok());
    EXPECT_EQ(c.error().message().find("invalid connection option"), std::string::npos) << k << ": " << c.error().message();
  }
}

}  // namespace
}  // namespace cuzk::engine
