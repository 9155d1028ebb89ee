// SPDX-License-Identifier: MIT OR Apache-2.0
// witness_spool: whole files under their final names, and a begun file that a crash interrupted
// told apart from one that was completed.
#include "engine/jobs/witness_spool.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

std::string contents(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(witness_spool, write_leaves_the_whole_file_under_its_final_name_only) {
  auto spool = witness_spool::open(temp_dir("spool-write") + "/nested/spool").value();
  const auto path = spool.write(bytes_of("the witness")).value();
  EXPECT_EQ(contents(path), "the witness");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_FALSE(witness_spool::interrupted(path));
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

TEST(witness_spool, a_begun_file_is_interrupted_until_it_is_completed) {
  auto spool = witness_spool::open(temp_dir("spool-begin")).value();
  const auto p = spool.begin().value();
  EXPECT_TRUE(fs::exists(p.tmp()));
  EXPECT_FALSE(fs::exists(p.path));
  EXPECT_TRUE(witness_spool::interrupted(p.path));
  ASSERT_TRUE(spool.complete(p, bytes_of("later bytes")).is_ok());
  EXPECT_EQ(contents(p.path), "later bytes");
  EXPECT_FALSE(fs::exists(p.tmp()));
  EXPECT_FALSE(witness_spool::interrupted(p.path));
  // Names are unique: a second begin does not touch the first file.
  const auto q = spool.begin().value();
  EXPECT_NE(q.path, p.path);
  spool.abandon(q);
  EXPECT_FALSE(fs::exists(q.tmp()));
  EXPECT_FALSE(witness_spool::interrupted(q.path));  // neither name: nothing was begun there
}

TEST(witness_spool, completing_a_file_whose_temporary_is_gone_fails_and_leaves_nothing) {
  auto spool = witness_spool::open(temp_dir("spool-gone")).value();
  const auto p = spool.begin().value();
  fs::remove(p.tmp());
  const status s = spool.complete(p, bytes_of("x"));
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("cannot open the spool file"), std::string::npos) << s.to_string();
  EXPECT_FALSE(fs::exists(p.path));
}

TEST(witness_spool, sweep_removes_what_is_not_kept_temporaries_included) {
  auto spool = witness_spool::open(temp_dir("spool-sweep")).value();
  const auto kept = spool.write(bytes_of("kept")).value();
  const auto dropped = spool.write(bytes_of("dropped")).value();
  const auto begun = spool.begin().value();
  std::ofstream(spool.dir() + "/not-a-spool-file") << "left alone";
  EXPECT_EQ(spool.sweep({kept}), 2u);
  EXPECT_TRUE(fs::exists(kept));
  EXPECT_FALSE(fs::exists(dropped));
  EXPECT_FALSE(fs::exists(begun.tmp()));
  EXPECT_TRUE(fs::exists(spool.dir() + "/not-a-spool-file"));
}

// docs/HARDENING.md, finding 31: a write the file system refuses for now is a fault that passes
// (unavailable), as the job store says of the same disk; a spool that is not a directory's any
// more stays io_error. A full file system: a small tmpfs filled by one file (root only, as CI
// runs; skipped elsewhere).
TEST(witness_spool, a_full_file_system_is_a_fault_that_passes) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string mnt = temp_dir("spool-full");
  if (std::system(("mount -t tmpfs -o size=64k cuzk-test " + mnt + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?)";
  struct unmount {
    std::string at;
    ~unmount() { (void)std::system(("umount -l " + at + " && rmdir " + at).c_str()); }
  } guard{mnt};
  auto spool = witness_spool::open(mnt + "/spool").value();
  const auto begun = spool.begin().value();  // an empty file takes no room
  {
    std::ofstream filler(mnt + "/filler", std::ios::binary);
    const std::vector<char> block(4096, 'x');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  const std::string bytes(16384, 'w');
  const auto written = spool.write(bytes_of(bytes));
  ASSERT_FALSE(written.is_ok());
  EXPECT_EQ(written.error().code(), errc::unavailable) << written.error().to_string();
  const status completed = spool.complete(begun, bytes_of(bytes));
  EXPECT_EQ(completed.code(), errc::unavailable) << completed.to_string();
  EXPECT_NE(completed.message().find("No space left on device"), std::string::npos) << completed.to_string();
  EXPECT_EQ(spool.put_result(7, bytes_of(bytes)).code(), errc::unavailable);

  fs::remove(mnt + "/filler");
  EXPECT_TRUE(spool.write(bytes_of(bytes)).is_ok());
  EXPECT_TRUE(spool.complete(begun, bytes_of(bytes)).is_ok());
}

// Read-only: the spool directory made immutable (chattr +i), which refuses every new file as a
// read-only file system does (EPERM).
TEST(witness_spool, a_directory_that_refuses_writes_is_a_fault_that_passes) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a directory immutable";
  auto spool = witness_spool::open(temp_dir("spool-immutable")).value();
  if (std::system(("chattr +i " + spool.dir() + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "cannot make a directory immutable here (no chattr, or a file system without the flag)";
  struct writable_again {
    std::string dir;
    ~writable_again() { (void)std::system(("chattr -i " + dir).c_str()); }
  } guard{spool.dir()};
  const auto begun = spool.begin();
  ASSERT_FALSE(begun.is_ok());
  EXPECT_EQ(begun.error().code(), errc::unavailable) << begun.error().to_string();
  const auto written = spool.write(bytes_of("the witness"));
  ASSERT_FALSE(written.is_ok());
  EXPECT_EQ(written.error().code(), errc::unavailable) << written.error().to_string();
  EXPECT_EQ(spool.put_result(7, bytes_of("an outcome")).code(), errc::unavailable);

  ASSERT_EQ(std::system(("chattr -i " + spool.dir()).c_str()), 0);
  EXPECT_TRUE(spool.write(bytes_of("the witness")).is_ok());
  // A spool whose directory is gone is the daemon's set-up, not a fault that passes by waiting.
  fs::remove_all(spool.dir());
  std::ofstream(spool.dir()) << "a file where the spool directory was";
  const auto misplaced = spool.write(bytes_of("the witness"));
  ASSERT_FALSE(misplaced.is_ok());
  EXPECT_EQ(misplaced.error().code(), errc::io_error) << misplaced.error().to_string();
  fs::remove(spool.dir());
}

}  // namespace
}  // namespace cuzk::engine
