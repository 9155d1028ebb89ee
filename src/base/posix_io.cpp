// SPDX-License-Identifier: MIT OR Apache-2.0
// POSIX implementations of posix_io.hpp.
#include "base/posix_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cuzk {

status sys_error(const std::string& path, const char* what) {
  return status(errc::io_error, path + ": " + what + ": " + std::strerror(errno));
}

bool write_all(int fd, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace cuzk
