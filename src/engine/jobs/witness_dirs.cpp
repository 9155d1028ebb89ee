// The witness directories (see witness_dirs.hpp).
#include "engine/jobs/witness_dirs.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "base/posix_io.hpp"

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

}  // namespace

result<witness_dirs> witness_dirs::create(const std::vector<std::string>& dirs) {
  witness_dirs w;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const std::string name = "witness_dirs[" + std::to_string(i) + "]";
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

result<std::vector<uint8_t>> witness_dirs::read(const std::string& path, uint64_t max_bytes) const {
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
  std::vector<uint8_t> out(static_cast<std::size_t>(size));
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t k = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return sys_error(path, "read failed");
    if (k == 0) return status(errc::io_error, quoted + ": the file shrank while it was read");
    got += static_cast<std::size_t>(k);
  }
  return out;
}

}  // namespace cuzk::engine
