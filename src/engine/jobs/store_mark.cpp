// SPDX-License-Identifier: MIT OR Apache-2.0
// The job store's high-water mark (see store_mark.hpp).
#include "engine/jobs/store_mark.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace cuzk::engine {

namespace {

// One line of fixed width, so that every write covers the one before it whole.
constexpr std::size_t record_bytes =
    sizeof("cuzk job store mark 1 last_id=") - 1 + 20 + sizeof(" ended=") - 1 + 20 + sizeof("\n") - 1;

}  // namespace

result<mark_counts> store_mark::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return mark_counts{};
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  mark_counts m;
  if (text.size() != record_bytes ||
      std::sscanf(text.c_str(), "cuzk job store mark 1 last_id=%" SCNd64 " ended=%" SCNd64, &m.last_id,
                  &m.ended) != 2 ||
      m.last_id < 0 || m.ended < 0)
    return status(errc::format_error, path + ": not a job store mark: expected one line 'cuzk job store mark 1 "
                                             "last_id=N ended=M' of " + std::to_string(record_bytes) +
                                             " bytes, found " + std::to_string(text.size()) +
                                             " bytes of something else. Nothing was changed; move it away to "
                                             "open the job database without this check");
  return m;
}

store_mark::~store_mark() {
  if (fd_ >= 0) ::close(fd_);
}

status store_mark::open(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) return status(errc::io_error, path + ": cannot open the job store's mark: " + std::strerror(errno));
  return status::ok();
}

void store_mark::write() noexcept {
  if (fd_ < 0) return;
  char buf[record_bytes + 1];
  const int n = std::snprintf(buf, sizeof buf, "cuzk job store mark 1 last_id=%020" PRId64 " ended=%020" PRId64 "\n",
                              last_id < 0 ? 0 : last_id, ended < 0 ? 0 : ended);
  if (n != static_cast<int>(record_bytes)) return;
  (void)::pwrite(fd_, buf, record_bytes, 0);
}

}  // namespace cuzk::engine
