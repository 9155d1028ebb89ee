// POSIX implementations of file_io.hpp.
#include "formats/file_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "base/posix_io.hpp"

namespace cuzk::formats {

mapped_file::~mapped_file() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

mapped_file::mapped_file(mapped_file&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

result<mapped_file> mapped_file::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sys_error(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const status s = sys_error(path, "cannot stat");
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return status(errc::io_error, path + ": not a regular file");
  }
  mapped_file m;
  m.size_ = static_cast<std::size_t>(st.st_size);
  if (m.size_ > 0) {
    void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const status s = sys_error(path, "cannot map");
      ::close(fd);
      return s;
    }
    m.data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);  // the mapping keeps the file open
  return m;
}

result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return status(errc::io_error, path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return status(errc::io_error, path + ": read failed");
  return ss.str();
}

status write_file_atomically(const std::string& path, std::string_view content) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return sys_error(tmp, "cannot create");
  const bool ok =
      ::fchmod(fd, 0644) == 0 && write_all(fd, content.data(), content.size()) && ::fsync(fd) == 0;
  const status s = ok ? status::ok() : sys_error(tmp, "write failed");
  ::close(fd);
  if (!s) {
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const status r = sys_error(path, "cannot rename the temporary file over it");
    ::unlink(tmp.c_str());
    return r;
  }
  return status::ok();
}

}  // namespace cuzk::formats
