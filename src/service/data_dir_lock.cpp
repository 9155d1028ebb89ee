// SPDX-License-Identifier: MIT OR Apache-2.0
// The data directory lock (see data_dir_lock.hpp).
#include "service/data_dir_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "base/posix_io.hpp"

namespace cuzk::service {

result<data_dir_lock> data_dir_lock::acquire(const std::string& data_dir) {
  const std::string path = data_dir + "/cuzk.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return sys_error(path, "cannot open the lock file");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      const status s = sys_error(path, "cannot lock");
      ::close(fd);
      return s;
    }
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("?");
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    return status(errc::unavailable, "data_dir " + data_dir + ": in use by another daemon (pid " + pid +
                                         ", holding " + path + "); one daemon per data directory");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || !write_all(fd, pid.data(), pid.size())) {
    const status s = sys_error(path, "cannot write the lock file");
    ::close(fd);
    return s;
  }
  return data_dir_lock(fd);
}

data_dir_lock::data_dir_lock(data_dir_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}

data_dir_lock::~data_dir_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace cuzk::service
