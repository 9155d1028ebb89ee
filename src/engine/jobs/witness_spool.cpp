// SPDX-License-Identifier: MIT OR Apache-2.0
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
constexpr const char* result_prefix = "r-";
constexpr const char* result_suffix = ".result";

}  // namespace

result<witness_spool> witness_spool::open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return status(errc::io_error, dir + ": cannot create the witness spool directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec))
    return status(errc::io_error, dir + ": witness spool: expected a directory");
  return witness_spool(dir);
}

namespace {

// A write the spool's file system refuses: io_error naming the file and the system's reason, or
// unavailable where the refusal passes once the operator makes room or gives write access back (a
// full disk or quota, a file system gone read-only, an immutable file or folder, an I/O error), as
// the job store says of the same disk (sqlite_job_store.cpp, classify()). The spool lies in the
// daemon's data directory: a client told FAILED_PRECONDITION there would take it for its own
// request's fault and not send it again (docs/HARDENING.md, finding 31). Call it right after the
// failing call, as sys_error.
status write_error(const std::string& path, const char* what) {
  const int e = errno;
  status s = sys_error(path, what);
  switch (e) {
    case ENOSPC:
    case EDQUOT:
    case EROFS:
    case EPERM:
    case EIO:
      return status(errc::unavailable, s.message());
    default:
      return s;
  }
}

// The directory's entries (a creation, a rename) are durable only once the directory is synced.
bool sync_dir(const std::string& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return false;
  const bool ok = ::fsync(dfd) == 0;
  ::close(dfd);
  return ok;
}

}  // namespace

result<witness_spool::pending> witness_spool::create_temporary() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  pending p{dir_ + "/" + prefix +
            std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) + "-" +
            std::to_string(::getpid()) + "-" + std::to_string(counter_.fetch_add(1)) + suffix};
  const int fd = ::open(p.tmp().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return write_error(p.tmp(), "cannot create the spool file");
  ::close(fd);
  return p;
}

result<witness_spool::pending> witness_spool::begin() {
  auto p = create_temporary();
  if (!p) return p.error();
  if (!sync_dir(dir_)) {
    const status s = write_error(dir_, "cannot sync the spool directory");
    abandon(*p);
    return s;
  }
  return p;
}

status witness_spool::complete(const pending& p, std::span<const uint8_t> bytes) {
  const std::string tmp = p.tmp();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return write_error(tmp, "cannot open the spool file");
  const bool ok = write_all(fd, bytes.data(), bytes.size()) && ::fsync(fd) == 0;
  const int saved = errno;
  if (!ok) {
    // Emptied, not removed: it marks the row that names it as a submit that did not complete
    // until the caller has removed that row (abandon()).
    (void)::ftruncate(fd, 0);
    ::close(fd);
    errno = saved;
    return write_error(tmp, "cannot write the spool file");
  }
  ::close(fd);
  if (::rename(tmp.c_str(), p.path.c_str()) != 0)
    return write_error(p.path, "cannot rename the spool file into place");
  if (!sync_dir(dir_)) {
    // The rename may not be durable: the file goes back under its temporary name.
    const status s = write_error(dir_, "cannot sync the spool directory");
    (void)::rename(p.path.c_str(), tmp.c_str());
    return s;
  }
  return status::ok();
}

void witness_spool::abandon(const pending& p) noexcept { ::unlink(p.tmp().c_str()); }

bool witness_spool::interrupted(const std::string& path) noexcept {
  return ::access(path.c_str(), F_OK) != 0 && ::access((path + ".tmp").c_str(), F_OK) == 0;
}

result<std::string> witness_spool::write(std::span<const uint8_t> bytes) {
  // The temporary's name need not be durable on its own here: no row names it before the rename.
  auto p = create_temporary();
  if (!p) return p.error();
  if (status s = complete(*p, bytes); !s) {
    abandon(*p);
    return s;
  }
  return p->path;
}

void witness_spool::remove(const std::string& path) noexcept { ::unlink(path.c_str()); }

std::size_t witness_spool::sweep(const std::set<std::string>& keep) noexcept {
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 && name.rfind(result_prefix, 0) != 0) continue;
    const std::string full = dir_ + "/" + name;
    if (keep.count(full)) continue;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  return removed;
}

std::string witness_spool::result_path(uint64_t id) const {
  return dir_ + "/" + result_prefix + std::to_string(id) + result_suffix;
}

status witness_spool::put_result(uint64_t id, std::span<const uint8_t> bytes) {
  const pending p{result_path(id)};
  // Truncated, not refused, when a temporary is left from a write that stopped.
  const int fd = ::open(p.tmp().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return write_error(p.tmp(), "cannot create the parked result file");
  ::close(fd);
  if (status s = complete(p, bytes); !s) {
    abandon(p);
    return s;
  }
  return status::ok();
}

result<std::optional<std::string>> witness_spool::read_result(uint64_t id) const {
  const std::string path = result_path(id);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return sys_error(path, "cannot open the parked result file");
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const status s = sys_error(path, "cannot read the parked result file");
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_result_bytes) {
      ::close(fd);
      return status(errc::io_error, path + ": parked result: expected at most " +
                                        std::to_string(max_result_bytes) + " bytes, found more");
    }
  }
  ::close(fd);
  return std::optional<std::string>(std::move(out));
}

void witness_spool::remove_result(uint64_t id) noexcept { ::unlink(result_path(id).c_str()); }

}  // namespace cuzk::engine
