// SPDX-License-Identifier: MIT OR Apache-2.0
// arriving_witnesses: a worker reads the request's bytes only while the submit holds them, and a job's
// end learns whether its witnesses were accepted.
#include "engine/jobs/arriving_witnesses.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using test::read_bytes;
using test::small_wtns;
using test::small_zkey;

TEST(arriving_witnesses, reads_the_held_bytes_checked_until_the_submit_settles) {
  const auto key = read_key_summary(small_zkey).value();
  const auto good = read_bytes(small_wtns);
  auto bad = good;
  bad.resize(bad.size() - 32);  // one value short
  arriving_witnesses a({good, {}, bad});
  const auto read = a.read(0, key);
  ASSERT_TRUE(read.has_value());
  ASSERT_TRUE(read->is_ok()) << read->error().to_string();
  const auto expected = read_witness(formats::wtns::open(small_wtns).value(), key).value();
  EXPECT_TRUE(std::ranges::equal(read->value().values, expected.values));
  EXPECT_FALSE(a.read(1, key).has_value());  // given by path
  EXPECT_FALSE(a.read(3, key).has_value());  // no such partition
  const auto short_one = a.read(2, key);
  ASSERT_TRUE(short_one.has_value());
  ASSERT_FALSE(short_one->is_ok());
  EXPECT_EQ(short_one->error().message().rfind("partition 2: inline witness", 0), 0u)
      << short_one->error().to_string();
  a.settle(true);
  EXPECT_FALSE(a.read(0, key).has_value());  // the submit returned: the bytes are not its to read
  EXPECT_TRUE(a.wait_accepted());
}

TEST(arriving_witnesses, the_end_waits_for_the_submit_and_hears_a_failure) {
  arriving_witnesses a({});
  auto ended = std::async(std::launch::async, [&] { return a.wait_accepted(); });
  EXPECT_EQ(ended.wait_for(50ms), std::future_status::timeout);
  a.settle(false);
  EXPECT_FALSE(ended.get());
}

// The submit's check and the job share the reads of files named by path: the check takes the job's
// word for a file it passed, waits for one it is reading, and reads itself one the job failed,
// never began, or claimed after the check had begun it.
TEST(arriving_witnesses, the_check_takes_the_jobs_word_for_the_files_it_read) {
  arriving_witnesses a({});
  a.job_reads(0, 4);
  a.job_read_ended(0, true);
  EXPECT_TRUE(a.passed_by_job(0));
  auto waited = std::async(std::launch::async, [&] { return a.passed_by_job(1); });
  EXPECT_EQ(waited.wait_for(50ms), std::future_status::timeout);  // the job's read of 1 still runs
  a.job_read_ended(1, true);
  EXPECT_TRUE(waited.get());
  EXPECT_FALSE(a.failed_by_job().has_value());
  a.job_read_ended(2, false);  // failed: the check reads it (next) and says why
  EXPECT_EQ(a.failed_by_job(), std::optional<std::size_t>{2});
  EXPECT_FALSE(a.passed_by_job(2));
  a.job_reads_over(0, 4);  // 3 never read (an earlier read failed, or the batch ended)
  EXPECT_FALSE(a.passed_by_job(3));
  EXPECT_FALSE(a.passed_by_job(6));  // never claimed: the check's
  a.job_reads(6, 1);                 // the check began it first: the job's read does not count
  a.job_read_ended(6, true);
  EXPECT_FALSE(a.passed_by_job(6));
  a.job_reads(8, 2);
  a.job_read_ended(9, true);  // out of order: each partition on its own
  EXPECT_TRUE(a.passed_by_job(9));
  a.job_reads_over(8, 2);
  EXPECT_FALSE(a.passed_by_job(8));
}

}  // namespace
}  // namespace cuzk::engine
