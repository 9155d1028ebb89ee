// SPDX-License-Identifier: MIT OR Apache-2.0
// witness_spool: whole files under their final names, and a begun file that a crash interrupted
// told apart from one that was completed.
#include "engine/jobs/witness_spool.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cuzk::engine
