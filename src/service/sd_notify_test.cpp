// SPDX-License-Identifier: MIT OR Apache-2.0
// systemd's readiness notification against a datagram socket standing in for systemd's: the bytes
// arrive as sent, to a path and to an abstract name; without NOTIFY_SOCKET nothing is sent and
// nothing fails; a bad address is named.
#include "service/sd_notify.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace cuzk::service {
namespace {

// A bound datagram socket, as systemd listens; `name` is a path or an "@name".
struct listener {
  int fd = -1;
  explicit listener(const std::string& name) {
    fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, name.data(), name.size());
    if (name[0] == '@') a.sun_path[0] = '\0';
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), len), 0) << std::strerror(errno);
  }
  ~listener() { ::close(fd); }
  // The next datagram, or "" after a second without one.
  std::string receive() const {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 1000) != 1) return {};
    char buf[256];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }
};

TEST(sd_notify, ready_reaches_a_socket_at_a_path) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cuzk-notify-" + std::to_string(::getpid()))).string();
  std::filesystem::remove(path);
  listener l(path);
  ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
  EXPECT_TRUE(sd_notify("READY=1\nSTATUS=listening"));
  EXPECT_EQ(l.receive(), "READY=1\nSTATUS=listening");
  ::unsetenv("NOTIFY_SOCKET");
  std::filesystem::remove(path);
}

TEST(sd_notify, an_abstract_name_is_reached_without_a_file) {
  const std::string name = "@cuzk-notify-test-" + std::to_string(::getpid());
  listener l(name);
  EXPECT_TRUE(sd_notify_to(name, "STOPPING=1"));
  EXPECT_EQ(l.receive(), "STOPPING=1");
}

TEST(sd_notify, without_notify_socket_nothing_is_sent_and_nothing_fails) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_TRUE(sd_notify("READY=1"));
  ::setenv("NOTIFY_SOCKET", "", 1);
  EXPECT_TRUE(sd_notify("READY=1"));
  ::unsetenv("NOTIFY_SOCKET");
}

TEST(sd_notify, a_bad_address_or_a_missing_socket_is_named) {
  const status rel = sd_notify_to("relative/notify", "READY=1");
  EXPECT_EQ(rel.code(), errc::invalid_argument);
  EXPECT_NE(rel.message().find("NOTIFY_SOCKET: expected an absolute path or an @name"), std::string::npos)
      << rel.message();
  const status gone = sd_notify_to("/nonexistent/cuzk-notify", "READY=1");
  EXPECT_EQ(gone.code(), errc::io_error);
  EXPECT_NE(gone.message().find("NOTIFY_SOCKET /nonexistent/cuzk-notify: "), std::string::npos) << gone.message();
}

}  // namespace
}  // namespace cuzk::service
