// SPDX-License-Identifier: MIT OR Apache-2.0
// unconfirmed_submits on its own: the bound on what it keeps, and a store that cannot be asked.
#include "engine/unconfirmed_submits.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/engine_test_util.hpp"
#include "engine/jobs/memory_job_store.hpp"

namespace cuzk::engine {
namespace {

// A record naming one spooled file of its own, written.
job_record spooled_job(witness_spool& spool, job_id id) {
  const std::vector<uint8_t> bytes{1, 2, 3};
  job_record r;
  r.info.id = id;
  r.witness_paths = {spool.write(bytes).value()};
  r.spooled = {true};
  return r;
}

insert_outcome unknown_outcome(job_id id) {
  insert_outcome o{id, insert_effect::outcome_unknown, status(errc::unavailable, "lost")};
  o.pending = std::to_string(id);
  return o;
}

// A store whose inserts always know their outcome refuses the question (job_store's default): the
// submit is let go, its file left for the next start's sweep, and the line says so.
TEST(unconfirmed_submits, a_store_that_cannot_be_asked_lets_the_submit_go_and_keeps_its_files) {
  auto spool = witness_spool::open(test::temp_dir("unconfirmed-refused")).value();
  memory_job_store store;
  unconfirmed_submits kept;
  const job_record rec = spooled_job(spool, 7);
  kept.add(rec, unknown_outcome(7), {});
  EXPECT_TRUE(kept.pending());
  std::vector<std::string> lines;
  EXPECT_TRUE(kept.settle(store, spool, [&](const std::string& l) { lines.push_back(l); }));
  EXPECT_FALSE(kept.pending());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("job=7, not settled"), std::string::npos) << lines[0];
  EXPECT_TRUE(std::ifstream(rec.witness_paths[0]).good());
}

// A store that never answers cannot grow the list without end: past max_kept the oldest goes.
TEST(unconfirmed_submits, keeps_at_most_max_kept) {
  unconfirmed_submits kept;
  job_record rec;
  for (std::size_t i = 0; i < unconfirmed_submits::max_kept + 3; ++i) kept.add(rec, unknown_outcome(i + 1), {});
  EXPECT_EQ(kept.size(), unconfirmed_submits::max_kept);
}

}  // namespace
}  // namespace cuzk::engine
