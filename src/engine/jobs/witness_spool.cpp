// Spooled witness files (see witness_spool.hpp).
#include "engine/jobs/witness_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "base/posix_io.hpp"

namespace cuzk::engine {

namespace {

constexpr const char* prefix = "w-";
constexpr const char* suffix = ".wtns";

}  // namespace

result<witness_spool> witness_spool::open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return status(errc::io_error, dir + ": cannot create the witness spool directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec))
    return status(errc::io_error, dir + ": witness spool: expected a directory");
  return witness_spool(dir);
}

result<std::string> witness_spool::write(std::span<const uint8_t> bytes) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string name = std::string(prefix) +
                           std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) +
                           "-" + std::to_string(::getpid()) + "-" + std::to_string(counter_.fetch_add(1)) +
                           suffix;
  const std::string path = dir_ + "/" + name;
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return sys_error(tmp, "cannot create the spool file");
  const bool ok = write_all(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    errno = saved;
    return sys_error(tmp, "cannot write the spool file");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const status s = sys_error(path, "cannot rename the spool file into place");
    ::unlink(tmp.c_str());
    return s;
  }
  // The rename is durable only once the directory entry is on disk.
  const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return path;
}

void witness_spool::remove(const std::string& path) noexcept { ::unlink(path.c_str()); }

std::size_t witness_spool::sweep(const std::set<std::string>& keep) noexcept {
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string full = dir_ + "/" + name;
    if (keep.count(full)) continue;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace cuzk::engine
