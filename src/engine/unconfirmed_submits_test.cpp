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

// Neither test's store says "not stored": nothing may be discarded.
void nothing_discarded(const job_record& rec, const begun_files&) {
  ADD_FAILURE() << "job " << rec.info.id << "'s files discarded";
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
  EXPECT_TRUE(kept.settle(store, nothing_discarded, [&](const std::string& l) { lines.push_back(l); }));
  EXPECT_FALSE(kept.pending());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("job=7, not settled"), std::string::npos) << lines[0];
  EXPECT_TRUE(std::ifstream(rec.witness_paths[0]).good());
}

// A store that never answers cannot grow the list without end: past max_kept the oldest goes, and
// add() names it.
TEST(unconfirmed_submits, keeps_at_most_max_kept) {
  unconfirmed_submits kept;
  job_record rec;
  std::vector<job_id> dropped;
  for (std::size_t i = 0; i < unconfirmed_submits::max_kept + 3; ++i)
    if (const job_id d = kept.add(rec, unknown_outcome(i + 1), {}); d != 0) dropped.push_back(d);
  EXPECT_EQ(kept.size(), unconfirmed_submits::max_kept);
  EXPECT_EQ(dropped, (std::vector<job_id>{1, 2, 3}));
}

// A store out of reach: one look per round, not one per kept submit (each would wait for a
// connection), and every one is kept for the next round.
class unreachable_store final : public job_store {
 public:
  int asked = 0;
  result<submit_fate> settle(const job_record&, const insert_outcome&) override {
    ++asked;
    return down();
  }
  result<insert_outcome> insert(const job_record&) override { return down(); }
  status update_state(job_id, job_state, uint32_t) override { return down(); }
  status finish(const job_result&) override { return down(); }
  result<std::optional<job_record>> get(job_id) override { return down(); }
  result<std::optional<job_id>> find_request(const std::string&) override { return down(); }
  result<std::vector<job_record>> unfinished() override { return down(); }
  result<std::vector<std::string>> purge_finished_before(wall_time) override { return down(); }
  status remove(job_id) override { return down(); }
  status put_circuit(const circuit_record&) override { return down(); }
  status remove_circuit(const std::string&) override { return down(); }
  result<std::vector<circuit_record>> circuits() override { return down(); }

 private:
  static status down() { return status(errc::unavailable, "postgresql host=db: cannot connect: timeout expired"); }
};

TEST(unconfirmed_submits, a_store_out_of_reach_is_asked_once_a_round_and_every_submit_kept) {
  auto spool = witness_spool::open(test::temp_dir("unconfirmed-unreachable")).value();
  unreachable_store store;
  unconfirmed_submits kept;
  std::vector<job_record> recs;
  for (job_id id = 1; id <= 3; ++id) {
    recs.push_back(spooled_job(spool, id));
    kept.add(recs.back(), unknown_outcome(id), {});
  }
  std::vector<std::string> lines;
  EXPECT_FALSE(kept.settle(store, nothing_discarded, [&](const std::string& l) { lines.push_back(l); }));
  EXPECT_EQ(store.asked, 1);
  EXPECT_EQ(kept.size(), 3u);
  EXPECT_TRUE(lines.empty());
  for (const auto& r : recs) EXPECT_TRUE(std::ifstream(r.witness_paths[0]).good());
}

}  // namespace
}  // namespace cuzk::engine
