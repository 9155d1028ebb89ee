// SPDX-License-Identifier: MIT OR Apache-2.0
// A job store that refuses to store a job's end (a full disk): the job fails visibly in memory and
// await() returns, its witnesses stay, and housekeeping stores the outcome once the store takes
// writes again; a restart before that proves the job again (docs/HARDENING.md, finding 8: the
// result was not stored and await hung until a restart).
//
// The store is the real SQLite one behind a thin wrapper that refuses finish() on demand: the
// engine's seam is the job_store interface, so nothing of SQLite itself is faked.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"
#include "engine/jobs/sqlite_job_store.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

// Forwards to `inner`; finish() fails as SQLite does on a full disk while `refuse` is set.
class refusing_store final : public job_store {
 public:
  explicit refusing_store(std::shared_ptr<job_store> inner) : inner_(std::move(inner)) {}
  std::atomic<bool> refuse{false};
  std::atomic<int> refused{0};

  result<insert_outcome> insert(const job_record& rec) override { return inner_->insert(rec); }
  status update_state(job_id id, job_state s, uint32_t attempts) override {
    return inner_->update_state(id, s, attempts);
  }
  status finish(const job_result& info) override {
    if (refuse) {
      ++refused;
      return status(errc::io_error, "job store: finish: database or disk is full");
    }
    return inner_->finish(info);
  }
  result<std::optional<job_record>> get(job_id id) override { return inner_->get(id); }
  result<std::optional<job_id>> find_request(const std::string& r) override {
    return inner_->find_request(r);
  }
  result<std::vector<job_record>> unfinished() override { return inner_->unfinished(); }
  result<std::vector<std::string>> purge_finished_before(wall_time cutoff) override {
    return inner_->purge_finished_before(cutoff);
  }
  status put_circuit(const circuit_record& c) override { return inner_->put_circuit(c); }
  status remove(job_id id) override { return inner_->remove(id); }
  status remove_circuit(const std::string& id) override { return inner_->remove_circuit(id); }
  result<std::vector<circuit_record>> circuits() override { return inner_->circuits(); }

 private:
  std::shared_ptr<job_store> inner_;
};

struct fixture {
  std::string dir = temp_dir("store-failure");
  std::shared_ptr<job_store> sqlite;
  std::shared_ptr<refusing_store> store;

  fixture() {
    auto s = sqlite_job_store::open(dir + "/jobs.db");
    EXPECT_TRUE(s.is_ok()) << s.error().to_string();
    sqlite = std::shared_ptr<job_store>(std::move(s).value());
    store = std::make_shared<refusing_store>(sqlite);
  }
  std::unique_ptr<engine> start() {
    engine_options o;
    o.verify_proofs = false;
    o.spool_dir = dir + "/spool";
    engine_parts parts;
    parts.backend = std::make_unique<gated_backend>();
    parts.store = store;
    auto e = engine::create(std::move(o), std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    if (!e) return nullptr;
    EXPECT_TRUE((*e)->register_circuit("small", small_zkey).is_ok());
    return std::move(e).value();
  }
  job_state stored_state(job_id id) {
    auto r = sqlite->get(id);
    EXPECT_TRUE(r.is_ok() && r->has_value());
    return r.is_ok() && r->has_value() ? (**r).info.state : job_state::queued;
  }
  std::string witness_path(job_id id) { return sqlite->get(id).value()->witness_paths.at(0); }
};

template <class F>
bool poll_until(F&& done, std::chrono::milliseconds limit = 10s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done())
    if (std::chrono::steady_clock::now() > until)
      return false;
    else
      std::this_thread::sleep_for(10ms);
  return true;
}

TEST(engine_store_failure, an_unstored_result_fails_the_job_and_is_stored_once_the_store_takes_it) {
  fixture f;
  auto eng = f.start();
  ASSERT_TRUE(eng);
  f.store->refuse = true;
  auto id = eng->submit(request("small"));
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();

  // await returns (it waited for good before), with the reason.
  auto r = eng->await(*id, 20s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::failed);
  EXPECT_EQ(r->error.code(), errc::io_error);
  EXPECT_NE(r->error.message().find("the result could not be stored"), std::string::npos)
      << r->error.to_string();
  EXPECT_NE(r->error.message().find("disk is full"), std::string::npos) << r->error.to_string();
  EXPECT_TRUE(r->proofs.empty());
  EXPECT_EQ(eng->get(*id).value().state, job_state::failed);
  EXPECT_EQ(eng->cancel(*id).code(), errc::failed_precondition);

  // Not in the store yet: its witness stays, for a restart to prove the job again.
  EXPECT_FALSE(is_terminal(f.stored_state(*id)));
  const std::string wtns = f.witness_path(*id);
  EXPECT_TRUE(std::filesystem::exists(wtns));
  // Housekeeping keeps trying while the disk is full.
  const int before = f.store->refused.load();
  EXPECT_TRUE(poll_until([&] { return f.store->refused.load() > before; }));

  // Room again: the outcome reaches the store, the witness goes, and await reads the store.
  f.store->refuse = false;
  EXPECT_TRUE(poll_until([&] { return is_terminal(f.stored_state(*id)); }));
  EXPECT_EQ(f.stored_state(*id), job_state::failed);
  EXPECT_TRUE(poll_until([&] { return !std::filesystem::exists(wtns); }));
  r = eng->await(*id, 20s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::failed);
  EXPECT_NE(r->error.message().find("the result could not be stored"), std::string::npos)
      << r->error.to_string();
  EXPECT_TRUE(poll_until([&] { return eng->snapshot().jobs.empty(); }));

  // The next job is stored as usual.
  auto next = eng->submit(request("small"));
  ASSERT_TRUE(next.is_ok());
  EXPECT_EQ(eng->await(*next, 20s).value().state, job_state::done);
  EXPECT_EQ(f.stored_state(*next), job_state::done);
}

TEST(engine_store_failure, a_restart_before_the_outcome_is_stored_proves_the_job_again) {
  fixture f;
  job_id id = 0;
  {
    auto eng = f.start();
    ASSERT_TRUE(eng);
    f.store->refuse = true;
    id = eng->submit(request("small")).value();
    EXPECT_EQ(eng->await(id, 20s).value().state, job_state::failed);
  }  // stopped with the disk still full
  f.store->refuse = false;
  EXPECT_FALSE(is_terminal(f.stored_state(id)));
  auto eng = f.start();
  ASSERT_TRUE(eng);
  auto r = eng->await(id, 20s);
  ASSERT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  EXPECT_EQ(f.stored_state(id), job_state::done);
}

}  // namespace
}  // namespace cuzk::engine
