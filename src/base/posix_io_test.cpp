// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/posix_io.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

namespace cuzk {
namespace {

// More than a pipe's default 64 KiB buffer, so the writer blocks and write(2) returns short
// counts while the reader drains it: the loop has to resume where it stopped.
TEST(PosixIo, WriteAllWritesEveryByteThroughAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string sent(1 << 20, '\0');
  for (std::size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<char>(i * 131 + 7);
  std::string got;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  });
  const bool ok = write_all(fds[1], sent.data(), sent.size());
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  EXPECT_TRUE(ok);
  EXPECT_EQ(got, sent);
}

TEST(PosixIo, WriteAllReportsFailureWithErrno) {
  errno = 0;
  EXPECT_FALSE(write_all(-1, "x", 1));
  EXPECT_EQ(errno, EBADF);
  EXPECT_TRUE(write_all(-1, "", 0));  // nothing to write: no call is made
}

TEST(PosixIo, SysErrorNamesThePathWhatAndTheSystemsReason) {
  errno = ENOENT;
  const status s = sys_error("/no/such", "cannot open");
  EXPECT_EQ(s.code(), errc::io_error);
  EXPECT_EQ(s.message(), std::string("/no/such: cannot open: ") + std::strerror(ENOENT));
}

}  // namespace
}  // namespace cuzk
