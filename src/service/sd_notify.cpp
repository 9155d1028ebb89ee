// SPDX-License-Identifier: MIT OR Apache-2.0
// systemd's readiness notification (see sd_notify.hpp).
#include "service/sd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cuzk::service {

status sd_notify_to(const std::string& path, const std::string& state) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // sd_notify(3): a path, or "@" for the abstract namespace (a leading zero byte on the wire).
  if (path.empty() || (path[0] != '/' && path[0] != '@') || path.size() >= sizeof addr.sun_path)
    return status(errc::invalid_argument, "NOTIFY_SOCKET: expected an absolute path or an @name of at most " +
                                              std::to_string(sizeof addr.sun_path - 1) + " bytes, found \"" +
                                              path + "\"");
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (path[0] == '@') addr.sun_path[0] = '\0';
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());

  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return status(errc::io_error, std::string("NOTIFY_SOCKET: socket: ") + std::strerror(errno));
  const ssize_t n = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), len);
  const int err = errno;
  ::close(fd);
  if (n < 0) return status(errc::io_error, "NOTIFY_SOCKET " + path + ": " + std::strerror(err));
  return status::ok();
}

status sd_notify(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (path == nullptr || *path == '\0') return status::ok();
  return sd_notify_to(path, state);
}

}  // namespace cuzk::service
