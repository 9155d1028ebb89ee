// SPDX-License-Identifier: MIT OR Apache-2.0
// POSIX implementations of file_io.hpp.
#include "formats/file_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

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

result<mapped_file> mapped_file::map_fd(int fd, std::size_t size, const std::string& path) {
  mapped_file m;
  m.size_ = size;
  if (m.size_ > 0) {
    void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return sys_error(path, "cannot map");
    m.data_ = static_cast<const uint8_t*>(p);
  }
  return m;
}

namespace {

// Closes a descriptor on every path out of a function.
struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` read-only and checks that it is a regular file. O_NONBLOCK so that a FIFO cannot
// block the open itself; the flag means nothing for the regular files that pass the check.
result<int> open_regular(const std::string& path, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return sys_error(path, "cannot open");
  if (::fstat(fd, &st) != 0) {
    const status s = sys_error(path, "cannot stat");
    ::close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file";
    return status(errc::io_error, path + ": not a regular file (" + kind + "); expected a regular file");
  }
  return fd;
}

// Up to `limit` bytes of `fd` from its start; `expected` (the file's size) sizes the string once.
result<std::string> read_fd(int fd, std::size_t limit, const std::string& path, std::size_t expected = 0) {
  std::string out;
  out.reserve(std::min(limit, expected));
  char buf[1 << 16];
  while (out.size() < limit) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error(path, "read failed");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// An unnamed file in `dir` for the private copy.
result<int> unnamed_file(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    return sys_error(dir, "cannot create a file in");
  std::string tmp = dir + "/.cuzk-key.XXXXXX";
  fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return sys_error(tmp, "cannot create");
  ::unlink(tmp.c_str());
  return fd;
}

// Writes all of `data` at `offset` of `fd` (the copy is written at explicit offsets throughout:
// copy_file_range with offsets leaves the file position where it was).
bool pwrite_all(int fd, const char* data, std::size_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

// Copies `size` bytes of `in` from `in_at` to `out` at `out_at`: copy_file_range (a reflink or an
// in-kernel copy), and pread/pwrite where the kernel refuses it (another file system, an old
// kernel). false with errno, or with errno 0 when the source ended early.
bool copy_bytes(int in, uint64_t in_at, int out, uint64_t out_at, uint64_t size) {
  auto in_off = static_cast<off_t>(in_at), out_off = static_cast<off_t>(out_at);
  const uint64_t end = in_at + size;
  bool plain = false;
  std::vector<char> buf;
  while (static_cast<uint64_t>(in_off) < end) {
    const std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(end - in_off, 1u << 30));
    ssize_t n;
    if (!plain) {
      n = ::copy_file_range(in, &in_off, out, &out_off, want, 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
        plain = true;
        buf.resize(1 << 20);
        continue;
      }
    } else {
      n = ::pread(in, buf.data(), std::min(want, buf.size()), in_off);
      if (n > 0) {
        if (!pwrite_all(out, buf.data(), static_cast<std::size_t>(n), static_cast<uint64_t>(out_off))) return false;
        in_off += n;
        out_off += n;
      }
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = 0;
      return false;
    }
  }
  return true;
}

}  // namespace

result<mapped_file> mapped_file::open(const std::string& path) {
  struct stat st {};
  auto fd = open_regular(path, st);
  if (!fd) return fd.error();
  fd_closer c{*fd};  // the mapping keeps the file open
  return map_fd(*fd, static_cast<std::size_t>(st.st_size), path);
}

result<mapped_file> mapped_file::open_private_copy(const std::string& path, const std::string& dir) {
  return open_private_copy(path, dir, [](const source_reader&, uint64_t size) -> result<std::vector<copy_piece>> {
    return std::vector<copy_piece>{copy_piece{0, size, {}}};
  });
}

result<mapped_file> mapped_file::open_private_copy(const std::string& path, const std::string& dir,
                                                   const copy_layout& layout) {
  struct stat st {};
  auto in = open_regular(path, st);
  if (!in) return in.error();
  fd_closer ci{*in};
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const source_reader read = [&](uint64_t offset, std::size_t n) -> result<std::string> {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(*in, out.data() + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return sys_error(path, "read failed");
      if (r == 0) break;
      got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
  };
  auto pieces = layout(read, size);
  if (!pieces) return pieces.error();
  auto out = unnamed_file(dir);
  if (!out) return out.error().with_context(path + ": a private copy");
  fd_closer co{*out};
  uint64_t at = 0;
  for (const copy_piece& p : *pieces) {
    if (!p.bytes.empty()) {
      if (!pwrite_all(*out, p.bytes.data(), p.bytes.size(), at)) return sys_error(path, "cannot copy into the data directory");
      at += p.bytes.size();
      continue;
    }
    if (p.from > size || p.size > size - p.from)
      return status(errc::internal, path + ": a private copy's piece at " + std::to_string(p.from) + " (" +
                                        std::to_string(p.size) + " bytes) lies past the file's " +
                                        std::to_string(size) + " bytes");
    if (!copy_bytes(*in, p.from, *out, at, p.size)) {
      if (errno == 0)
        return status(errc::io_error, path + ": the file shrank while it was copied (expected " +
                                          std::to_string(size) + " bytes)");
      return sys_error(path, "cannot copy into the data directory");
    }
    at += p.size;
  }
  // A writer that changed the file while it was copied may have left a mix of two versions.
  struct stat after {};
  if (::fstat(*in, &after) != 0) return sys_error(path, "cannot stat");
  if (after.st_size != st.st_size || after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
      after.st_mtim.tv_nsec != st.st_mtim.tv_nsec)
    return status(errc::io_error, path + ": the file changed while it was copied (" + std::to_string(size) +
                                      " bytes before, " + std::to_string(after.st_size) + " after)");
  return map_fd(*out, static_cast<std::size_t>(at), path);
}

result<std::string> read_text_file(const std::string& path) {
  struct stat st {};
  auto fd = open_regular(path, st);
  if (!fd) return fd.error();
  fd_closer c{*fd};
  return read_fd(*fd, SIZE_MAX, path, static_cast<std::size_t>(st.st_size));
}

result<std::string> read_text_file(const std::string& path, uint64_t max_bytes, std::string_view kind) {
  struct stat st {};
  auto fd = open_regular(path, st);
  if (!fd) return fd.error();
  fd_closer c{*fd};
  const auto too_large = [&](uint64_t found) {
    return status(errc::resource_exhausted, path + ": file size: expected at most " + std::to_string(max_bytes) +
                                                " bytes (" + std::string(kind) + "), found " +
                                                std::to_string(found));
  };
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) return too_large(size);
  // One byte past the limit tells a file that grew while it was read.
  auto text = read_fd(*fd, static_cast<std::size_t>(max_bytes) + 1, path, static_cast<std::size_t>(size));
  if (text && text->size() > max_bytes) return too_large(text->size());
  return text;
}

result<std::string> read_file_head(const std::string& path, std::size_t n) {
  struct stat st {};
  auto fd = open_regular(path, st);
  if (!fd) return fd.error();
  fd_closer c{*fd};
  return read_fd(*fd, n, path);
}

status write_file_atomically(const std::string& path, std::string_view content, flush_to_disk flush) {
  return write_file_atomically(path, std::span<const std::string_view>(&content, 1), flush);
}

status write_file_atomically(const std::string& path, std::span<const std::string_view> parts, flush_to_disk flush) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return sys_error(tmp, "cannot create");
  bool ok = ::fchmod(fd, 0644) == 0;
  for (std::size_t i = 0; ok && i < parts.size(); ++i) ok = write_all(fd, parts[i].data(), parts[i].size());
  ok = ok && (flush == flush_to_disk::no || ::fsync(fd) == 0);
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
