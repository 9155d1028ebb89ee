// SPDX-License-Identifier: MIT OR Apache-2.0
// check_witness_paths_from_last, the submit's check of a job already proving: every file the job
// has not passed is checked, from the last partition back; a partition the job's read refused is
// checked next and ends the reads after it; the first refusal in partition order is the answer.
#include "engine/jobs/request_checks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <utility>
#include <set>
#include <string>
#include <vector>

#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace cuzk::engine::test;
namespace fs = std::filesystem;

struct paths_job {
  std::string dir;
  job_request req;
  witness_dirs dirs;
  key_summary key;
};

// n partitions by path under a witness dir; those in `refused` name a file outside it.
paths_job make_job(const std::string& name, std::size_t n, const std::set<std::size_t>& refused) {
  paths_job j;
  j.dir = temp_dir(name);
  const std::string outside = temp_dir(name + "-outside");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  j.req.circuit = "small";
  for (std::size_t k = 0; k < n; ++k) {
    const std::string path = j.dir + "/p" + std::to_string(k) + ".wtns";
    if (refused.contains(k))
      fs::create_symlink(outside + "/secret.wtns", path);
    else
      fs::copy_file(small_wtns, path);
    j.req.partitions.push_back(witness_input::from_path(path));
  }
  j.dirs = witness_dirs::create({j.dir}, "witness_dirs").value();
  j.key = read_key_summary(small_zkey).value();
  return j;
}

// The check's answer, and the partitions it asked about in its order; none passed by the job, and
// `failed` the job's failed read, if any.
std::pair<status, std::vector<std::size_t>> check_asking(const paths_job& j, std::optional<std::size_t> failed) {
  std::vector<std::size_t> asked;
  const status s = check_witness_paths_from_last(
      j.req, j.key, j.dirs,
      [&](std::size_t k) {
        asked.push_back(k);
        return false;
      },
      [failed] { return failed; });
  return {s, asked};
}

TEST(request_checks, from_the_last_back_skipping_what_the_job_passed) {
  auto j = make_job("checks-from-last", 5, {});
  std::vector<std::size_t> asked;
  const status s = check_witness_paths_from_last(
      j.req, j.key, j.dirs,
      [&](std::size_t k) {
        asked.push_back(k);
        return k < 2;  // the job has read 0 and 1
      },
      [] { return std::nullopt; });
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(asked, (std::vector<std::size_t>{4, 3, 2, 1, 0}));
}

TEST(request_checks, the_first_refusal_in_order_is_named_though_found_last) {
  auto j = make_job("checks-first-refusal", 6, {1, 4});
  const status s = check_witness_paths_from_last(
      j.req, j.key, j.dirs, [](std::size_t) { return false; }, [] { return std::nullopt; });
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message().rfind("partition 1: ", 0), 0u) << s.to_string();
}

// The job's read of partition 0 failed: the check reads it at once, and no file after it.
TEST(request_checks, a_partition_the_jobs_read_refused_is_checked_first_and_ends_the_rest) {
  auto j = make_job("checks-failed-first", 8, {0});
  const auto [s, asked] = check_asking(j, 0);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message().rfind("partition 0: ", 0), 0u) << s.to_string();
  EXPECT_EQ(asked, (std::vector<std::size_t>{0}));
}

// A failed read the check finds good (the file put right since): the check goes on with the rest.
TEST(request_checks, a_failed_read_the_check_passes_leaves_the_others_to_check) {
  auto j = make_job("checks-failed-then-good", 4, {3});
  const auto [s, asked] = check_asking(j, 1);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message().rfind("partition 3: ", 0), 0u) << s.to_string();
  EXPECT_EQ(asked, (std::vector<std::size_t>{1, 3, 2, 0}));
}

}  // namespace
}  // namespace cuzk::engine
