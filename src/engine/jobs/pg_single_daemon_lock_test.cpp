// The one-daemon lock on a job database, on the throwaway server (pg_test_cluster.hpp).
#include "engine/jobs/pg_single_daemon_lock.hpp"

#include <gtest/gtest.h>

#include "engine/jobs/pg_test_cluster.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;

TEST(pg_single_daemon_lock, a_second_daemon_is_refused_until_the_first_ends) {
  pg_test_cluster* cluster = pg_test_cluster::shared();
  if (!cluster) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  const auto db = cluster->fresh_database("lock");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();
  const auto other = cluster->fresh_database("lock_other");
  ASSERT_TRUE(other.is_ok()) << other.error().to_string();

  auto first = pg_single_daemon_lock::acquire(*db, 0ms);
  ASSERT_TRUE(first.is_ok()) << first.error().to_string();
  auto second = pg_single_daemon_lock::acquire(*db, 100ms);
  ASSERT_FALSE(second.is_ok());
  EXPECT_EQ(second.error().code(), errc::failed_precondition);
  EXPECT_NE(second.error().message().find("another cuzk daemon uses this job database"), std::string::npos)
      << second.error().to_string();
  // Another database on the same server is another queue.
  EXPECT_TRUE(pg_single_daemon_lock::acquire(*other, 0ms).is_ok());

  // The first ends: its session ends with it, and the next daemon gets the lock within its wait.
  first.value().reset();
  auto third = pg_single_daemon_lock::acquire(*db, 5s);
  EXPECT_TRUE(third.is_ok()) << third.error().to_string();
}

}  // namespace
}  // namespace cuzk::engine
