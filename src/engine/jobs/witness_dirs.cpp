// SPDX-License-Identifier: MIT OR Apache-2.0
// The witness directories (see witness_dirs.hpp).
#include "engine/jobs/witness_dirs.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/own_threads.hpp"


namespace cuzk::engine {

namespace {

std::string real_path(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  if (r == nullptr) return {};
  std::string out(r);
  std::free(r);
  return out;
}

struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

// What a piece's read ran into: the first failure wins (the file shrank, or errno).
constexpr int read_ok = 0, read_shrank = -1;

// Bytes [begin, end) of `fd` into `to + begin`, retrying on EINTR and short reads.
int read_piece(int fd, uint8_t* to, std::size_t begin, std::size_t end) {
  for (std::size_t got = begin; got < end;) {
    const ssize_t k = ::pread(fd, to + got, end - got, static_cast<off_t>(got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno != 0 ? errno : EIO;
    if (k == 0) return read_shrank;
    got += static_cast<std::size_t>(k);
  }
  return read_ok;
}

// A file is read in pieces of this many bytes (the last one shorter), by up to
// max_read_threads threads of the read's own: a GiB-sized witness on several cores, one of 8 MiB
// or less on the caller's thread alone.
constexpr std::size_t read_piece_bytes = std::size_t{8} << 20;
constexpr unsigned max_read_threads = 8;

// The whole of `fd` (`size` bytes) into `to`: read_ok, read_shrank, or the first errno. The
// threads are the read's own, not the global pool's: that pool runs one loop at a time, and a
// proof's synthesis and value copies would wait behind a read of GiBs (the engine reads the next
// batch's witnesses while this one proves).
int read_whole(int fd, uint8_t* to, std::size_t size) {
  std::atomic<int> failure{read_ok};
  run_chunks_on_own_threads(size, read_piece_bytes, max_read_threads, [&](std::size_t begin, std::size_t end) {
    if (failure.load(std::memory_order_relaxed) != read_ok) return;
    const int got = read_piece(fd, to, begin, end);
    int none = read_ok;
    if (got != read_ok) failure.compare_exchange_strong(none, got);
  });
  return failure.load();
}

}  // namespace

result<witness_dirs> witness_dirs::create(const std::vector<std::string>& dirs, const std::string& config_key) {
  witness_dirs w;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string name = config_key + "[" + std::to_string(i) + "]";
    if (dirs[i].empty() || dirs[i][0] != '/')
      return status(errc::invalid_argument,
                    name + ": expected an absolute directory path, found \"" + dirs[i] + "\"");
    const std::string r = real_path(dirs[i]);
    struct stat st {};
    if (r.empty() || ::stat(r.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return status(errc::invalid_argument, name + ": \"" + dirs[i] + "\": expected a directory");
    w.dirs_.push_back(r);
  }
  return w;
}

bool witness_dirs::allows(const std::string& p) const {
  for (const auto& d : dirs_) {
    if (d == "/") return true;
    if (p.size() > d.size() && p.compare(0, d.size(), d) == 0 && p[d.size()] == '/') return true;
  }
  return false;
}

bool witness_dirs::allows_file(const std::string& path) const {
  const std::string r = real_path(path);
  if (r.empty() || !allows(r)) return false;
  const int fd = ::open(r.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  fd_closer closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  char link[PATH_MAX];
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(proc.c_str(), link, sizeof link);
  return n > 0 && static_cast<std::size_t>(n) < sizeof link && allows(std::string(link, static_cast<std::size_t>(n)));
}

result<bulk_array<uint8_t>> witness_dirs::read(const std::string& path, uint64_t max_bytes, std::size_t lead) const {
  const std::string quoted = "witness path \"" + path + "\"";
  if (dirs_.empty())
    return status(errc::failed_precondition,
                  quoted +
                      ": refused: witness paths are off (witness_dirs is empty in the daemon's config); "
                      "send the witness's bytes");
  const status refused(errc::failed_precondition,
                       quoted +
                           ": refused: the daemon reads a witness path only when it names a readable "
                           "regular file under one of its witness_dirs");
  const std::string r = real_path(path);
  if (r.empty() || !allows(r)) return refused;
  const int fd = ::open(r.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return refused;
  fd_closer closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return refused;
  char link[PATH_MAX];
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(proc.c_str(), link, sizeof link);
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof link ||
      !allows(std::string(link, static_cast<std::size_t>(n))))
    return refused;

  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    return status(errc::resource_exhausted, quoted + ": " + std::to_string(size) +
                                                " bytes, more than a witness of this circuit can be (" +
                                                std::to_string(max_bytes) + ")");
  // Into memory left uninitialized, in pieces on several threads: before, one pread into a
  // zero-filled vector filled every page on one thread, then copied into it on one thread.
  bulk_array<uint8_t> out(lead + static_cast<std::size_t>(size));
  const int failed = read_whole(fd, out.data() + lead, static_cast<std::size_t>(size));
  if (failed == read_shrank) return status(errc::io_error, quoted + ": the file shrank while it was read");
  if (failed != read_ok) return status(errc::io_error, path + ": read failed: " + std::strerror(failed));
  return out;
}

}  // namespace cuzk::engine
