// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine with a backend that only waits: priority order, FIFO, idempotent submit, cancel,
// batching, deadlines, bad requests, drain, and recovery of a crash image of the SQLite store.
#include "engine/engine.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/engine_test_util.hpp"
#include "engine/jobs/memory_job_store.hpp"
#include "engine/jobs/sqlite_job_store.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/jobs/witness_spool.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

// The engine most tests here drive: the small circuit registered as "small", jobs spooled under
// a fresh directory unless `o` names a spool or a store.
gated_engine make(engine_options o, std::unique_ptr<gated_backend> b,
                  std::shared_ptr<job_store> store = nullptr) {
  if (o.spool_dir.empty() && o.store_path.empty()) o.spool_dir = temp_dir("spool");
  gated_engine h(std::move(o), std::move(b), std::move(store));
  if (h.eng) {
    EXPECT_TRUE(h.eng->register_circuit("small", small_zkey).is_ok());
  }
  return h;
}

job_result await_end(engine& e, job_id id) {
  auto r = e.await(id, 20s);
  EXPECT_TRUE(r.is_ok()) << r.error().to_string();
  EXPECT_TRUE(is_terminal(r->state)) << job_state_name(r->state);
  return r.value();
}

// The order in which jobs reached a worker, from the timeline.
std::vector<job_id> dispatch_order(const engine& e) {
  std::vector<job_id> out;
  for (const auto& ev : e.recent_events())
    if (ev.kind == event_kind::dispatched) out.push_back(ev.job);
  return out;
}

TEST(engine, critical_job_starts_before_every_queued_normal_job) {
  auto h = make({}, std::make_unique<gated_backend>(0ms, false));
  std::vector<job_id> normal;
  for (int i = 0; i < 20; ++i) normal.push_back(h.eng->submit(request("small", 1, priority::normal)).value());
  ASSERT_TRUE(h.backend->wait_calls(1));  // the first NORMAL job is running
  const job_id crit = h.eng->submit(request("small", 1, priority::critical)).value();
  h.backend->open();
  for (auto id : normal) EXPECT_EQ(await_end(*h.eng, id).state, job_state::done);
  EXPECT_EQ(await_end(*h.eng, crit).state, job_state::done);

  std::vector<job_id> expect = {normal[0], crit};
  expect.insert(expect.end(), normal.begin() + 1, normal.end());  // and FIFO within NORMAL
  EXPECT_EQ(dispatch_order(*h.eng), expect);
}

TEST(engine, idempotent_resubmission_returns_the_existing_job) {
  auto h = make({}, std::make_unique<gated_backend>());
  auto r = request("small");
  r.request_id = "sector-42";
  const job_id a = h.eng->submit(r).value();
  const job_id b = h.eng->submit(r).value();
  EXPECT_EQ(a, b);
  EXPECT_EQ(await_end(*h.eng, a).state, job_state::done);
  EXPECT_EQ(h.eng->submit(r).value(), a);  // also after it ended
  ASSERT_TRUE(h.eng->register_circuit("other", small_zkey).is_ok());
  auto clash = request("other");
  clash.request_id = "sector-42";
  auto c = h.eng->submit(clash);
  ASSERT_FALSE(c.is_ok());
  EXPECT_EQ(c.error().code(), errc::already_exists);
  EXPECT_NE(c.error().message().find("sector-42"), std::string::npos);
  const auto m = h.eng->snapshot().counters;
  EXPECT_EQ(m.total.submitted, 1u);
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::request_id_conflict)], 1u);
}

// docs/HARDENING.md, finding 16: a request id reused for another request was answered with the
// first job. Each change below is refused with the id named; the same request again, also once its
// spooled witness is gone, still gets the first job.
TEST(engine, a_request_id_reused_for_another_request_is_refused) {
  auto h = make({}, std::make_unique<gated_backend>());
  auto r = request("small");
  r.request_id = "sector-7";
  const job_id a = h.eng->submit(r).value();
  EXPECT_EQ(await_end(*h.eng, a).state, job_state::done);
  EXPECT_EQ(h.eng->submit(r).value(), a);
  auto bytes = r;
  bytes.partitions[0].owned.back() ^= 1;
  auto two = request("small", 2);
  two.request_id = r.request_id;
  auto prio = r;
  prio.prio = priority::critical;
  auto dl = r;
  dl.deadline = wall_clock::now() + 1h;
  job_request by_path;
  by_path.circuit = "small";
  by_path.request_id = r.request_id;
  by_path.partitions.push_back(witness_input::from_path(small_wtns));
  for (const auto& [what, other] :
       std::vector<std::pair<std::string, job_request>>{{"another witness for partition 0", bytes},
                                                        {"of 1 partitions, not 2", two},
                                                        {"of priority", prio},
                                                        {"with another deadline", dl},
                                                        {"another witness for partition 0", by_path}}) {
    auto c = h.eng->submit(other);
    ASSERT_FALSE(c.is_ok()) << what;
    EXPECT_EQ(c.error().code(), errc::already_exists);
    EXPECT_NE(c.error().message().find("request id \"sector-7\" was used for job " + std::to_string(a) + " "),
              std::string::npos)
        << c.error().to_string();
    EXPECT_NE(c.error().message().find(what), std::string::npos) << c.error().to_string();
  }
  EXPECT_EQ(h.eng->submit(r).value(), a);
  EXPECT_EQ(h.eng->snapshot().counters.total.submitted, 1u);
}

// A malformed request is refused as malformed whatever its request id names: its shape is checked
// before the request id is looked up, so a request id in use does not turn it into a conflict.
TEST(engine, a_malformed_request_under_a_request_id_in_use_is_refused_as_malformed) {
  auto h = make({}, std::make_unique<gated_backend>());
  auto r = request("small");
  r.request_id = "sector-9";
  const job_id a = h.eng->submit(r).value();  // in the store, under its request id, once submit returns
  auto none = r;
  none.partitions.clear();
  auto both = r;
  both.partitions[0].path = small_wtns;
  auto nul = r;
  nul.partitions[0] = witness_input::from_path(small_wtns + std::string("\0/etc/passwd", 12));
  for (const auto& [what, bad] :
       std::vector<std::pair<std::string, job_request>>{{"expected at least one partition", none},
                                                        {"partition 0: expected the .wtns bytes", both},
                                                        {"partition 0: expected a path without NUL bytes", nul}}) {
    auto s = h.eng->submit(bad);
    ASSERT_FALSE(s.is_ok()) << what;
    EXPECT_EQ(s.error().code(), errc::invalid_argument) << s.error().to_string();
    EXPECT_NE(s.error().message().find(what), std::string::npos) << s.error().to_string();
  }
  const auto m = h.eng->snapshot().counters;
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::malformed_request)], 3u);
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::request_id_conflict)], 0u);
  EXPECT_EQ(h.eng->submit(r).value(), a);
}

// docs/HARDENING.md, finding 16: 4 MB request ids and paths with NUL bytes were accepted.
TEST(engine, request_ids_and_paths_are_limited) {
  auto h = make({}, std::make_unique<gated_backend>());
  auto r = request("small");
  r.request_id = std::string(4 << 20, 'x');
  auto big = h.eng->submit(r);
  ASSERT_FALSE(big.is_ok());
  EXPECT_EQ(big.error().code(), errc::invalid_argument);
  EXPECT_NE(big.error().message().find("request id: expected at most 256 bytes, found 4194304"),
            std::string::npos)
      << big.error().to_string();
  r.request_id = std::string("id\0x", 4);
  EXPECT_FALSE(h.eng->submit(r).is_ok());
  r.request_id = std::string(256, 'x');
  EXPECT_TRUE(h.eng->submit(r).is_ok());

  job_request nul;
  nul.circuit = "small";
  nul.partitions.push_back(witness_input::from_path(small_wtns + std::string("\0/etc/passwd", 12)));
  auto n = h.eng->submit(nul);
  ASSERT_FALSE(n.is_ok());
  EXPECT_NE(n.error().message().find("partition 0: expected a path without NUL bytes"), std::string::npos)
      << n.error().to_string();
  auto reg = h.eng->register_circuit("nul", small_zkey + std::string(1, '\0') + "x");
  ASSERT_FALSE(reg.is_ok());
  EXPECT_NE(reg.message().find("zkey path: expected a path without NUL bytes"), std::string::npos)
      << reg.to_string();
}

TEST(engine, cancel_a_queued_and_a_running_job) {
  auto h = make({}, std::make_unique<gated_backend>(0ms, false));
  const job_id running = h.eng->submit(request("small", 3)).value();
  const job_id queued = h.eng->submit(request("small")).value();
  ASSERT_TRUE(h.backend->wait_calls(1));
  ASSERT_TRUE(h.eng->cancel(queued).is_ok());
  const auto q = h.eng->await(queued, 1s).value();
  EXPECT_EQ(q.state, job_state::cancelled);
  EXPECT_EQ(q.error.code(), errc::cancelled);
  EXPECT_EQ(q.attempts, 0u);  // never reached a worker
  EXPECT_EQ(h.eng->unregister_circuit("small").code(), errc::failed_precondition);  // a job uses it

  ASSERT_TRUE(h.eng->cancel(running).is_ok());
  h.backend->open();
  const auto r = await_end(*h.eng, running);
  EXPECT_EQ(r.state, job_state::cancelled);
  EXPECT_EQ(r.error.code(), errc::cancelled);
  EXPECT_TRUE(r.proofs.empty());
  EXPECT_EQ(h.backend->calls.load(), 1);                                // abandoned after its first partition
  EXPECT_EQ(h.eng->cancel(running).code(), errc::failed_precondition);  // already ended
  EXPECT_EQ(h.eng->cancel(9999).code(), errc::not_found);
  EXPECT_EQ(h.eng->snapshot().counters.total.cancelled, 2u);
  // The lease is held by the worker's batch and released when the worker leaves it, just after
  // the job's end is published: wait for that rather than race it.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (h.eng->snapshot().keys.at(0).users != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(h.eng->snapshot().keys.at(0).users, 0u);  // the lease was released
}

TEST(engine, batch_flushes_on_timeout_and_on_size) {
  {
    engine_options o;
    o.scheduling = {.max_batch_size = 4, .max_batch_wait = 300ms};
    auto h = make(o, std::make_unique<gated_backend>());
    const job_id a = h.eng->submit(request("small")).value();
    const job_id b = h.eng->submit(request("small")).value();
    const auto ra = await_end(*h.eng, a);
    const auto rb = await_end(*h.eng, b);
    EXPECT_GE(ra.times[phase::queue_wait], 0.29);
    EXPECT_EQ(rb.times[phase::key_load], 0.0);  // the batch leased the key once
  }
  {
    engine_options o;
    o.scheduling = {.max_batch_size = 2, .max_batch_wait = 30s};
    auto h = make(o, std::make_unique<gated_backend>());
    const job_id a = h.eng->submit(request("small")).value();
    const job_id b = h.eng->submit(request("small")).value();
    EXPECT_LT(await_end(*h.eng, a).times[phase::queue_wait], 5.0);
    EXPECT_EQ(await_end(*h.eng, b).state, job_state::done);
  }
}

TEST(engine, deadlines_are_reported_and_optionally_enforced) {
  {
    auto h = make({}, std::make_unique<gated_backend>(60ms));
    auto r = request("small");
    r.deadline = wall_clock::now() + 5ms;
    const auto res = await_end(*h.eng, h.eng->submit(r).value());
    EXPECT_EQ(res.state, job_state::done);
    EXPECT_TRUE(res.deadline_missed);
    EXPECT_EQ(h.eng->snapshot().counters.total.deadline_misses, 1u);
  }
  {
    engine_options o;
    o.fail_expired_jobs = true;
    auto h = make(o, std::make_unique<gated_backend>());
    auto r = request("small");
    r.deadline = wall_clock::now() - 1s;
    const auto res = await_end(*h.eng, h.eng->submit(r).value());
    EXPECT_EQ(res.state, job_state::failed);
    EXPECT_EQ(res.error.code(), errc::deadline_exceeded);
    EXPECT_NE(res.error.message().find("deadline"), std::string::npos);
  }
}

TEST(engine, bad_requests_get_clear_errors_while_other_jobs_run) {
  engine_options o;
  o.witness_dirs = {data_dir};  // for the submit by path below
  auto h = make(o, std::make_unique<gated_backend>(20ms));
  const job_id good = h.eng->submit(request("small", 2)).value();

  auto unknown = h.eng->submit(request("nope"));
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_EQ(unknown.error().code(), errc::not_found);
  EXPECT_NE(unknown.error().message().find("nope"), std::string::npos);

  job_request none;
  none.circuit = "small";
  auto n = h.eng->submit(none);
  ASSERT_FALSE(n.is_ok());
  EXPECT_EQ(n.error().code(), errc::invalid_argument);

  job_request garbage;
  garbage.circuit = "small";
  garbage.partitions.push_back(witness_input::from_bytes({'n', 'o', 't', ' ', 'a', ' ', 'w', 't', 'n', 's'}));
  auto g = h.eng->submit(garbage);
  ASSERT_FALSE(g.is_ok());
  EXPECT_NE(g.error().message().find("partition 0"), std::string::npos) << g.error().to_string();

  auto wrong_len = h.eng->submit(request("small", 1, std::nullopt, poseidon_wtns));
  ASSERT_FALSE(wrong_len.is_ok());
  EXPECT_NE(wrong_len.error().message().find("partition 0"), std::string::npos)
      << wrong_len.error().to_string();

  auto wrong_curve = h.eng->submit(request("small", 1, std::nullopt, bls_wtns));
  ASSERT_FALSE(wrong_curve.is_ok());

  job_request both = request("small");
  both.partitions[0].path = small_wtns;
  auto b = h.eng->submit(both);
  ASSERT_FALSE(b.is_ok());
  EXPECT_EQ(b.error().code(), errc::invalid_argument);

  job_request by_path;
  by_path.circuit = "small";
  by_path.partitions.push_back(witness_input::from_path(small_wtns));
  const job_id path_job = h.eng->submit(by_path).value();

  auto not_zkey = h.eng->register_circuit("bad", small_wtns);
  ASSERT_FALSE(not_zkey.is_ok());
  EXPECT_NE(not_zkey.message().find("circuit.wtns"), std::string::npos) << not_zkey.to_string();
  EXPECT_FALSE(h.eng->register_circuit("bad id/with slash", small_zkey).is_ok());

  EXPECT_EQ(await_end(*h.eng, good).state, job_state::done);
  EXPECT_EQ(await_end(*h.eng, good).proofs.size(), 2u);
  EXPECT_EQ(await_end(*h.eng, path_job).state, job_state::done);
  EXPECT_TRUE(std::filesystem::exists(small_wtns));  // a caller's witness is never deleted
  EXPECT_EQ(h.eng->await(123456, 10ms).error().code(), errc::not_found);
  EXPECT_EQ(h.eng->preload("nope").code(), errc::not_found);
  EXPECT_EQ(h.eng->evict("nope").code(), errc::not_found);

  // Refusals are counted by reason; the made-up circuit id is no metric label.
  const auto m = h.eng->snapshot().counters;
  EXPECT_EQ(m.rejected_total(), 6u);
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::unknown_circuit)], 1u);
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::malformed_request)], 2u);  // none, both
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::bad_witness)], 3u);        // garbage, length, curve
  EXPECT_EQ(m.circuits.count("nope"), 0u);
  EXPECT_EQ(m.circuits.size(), 1u);  // "small" only
}

// docs/HARDENING.md, finding 14: an inline witness was written to the spool and fsync'd before its
// header was read. It is checked in the request's bytes first now. With the spool unwritable (its
// directory replaced by a file), a witness of another circuit, of another curve, larger than the
// key's witness can be, or with a value >= r is refused for what it is; only a good one reaches the
// spool.
TEST(engine, an_inline_witness_is_checked_against_the_key_before_it_is_spooled) {
  engine_options o;
  o.spool_dir = temp_dir("unwritable-spool");
  auto h = make(o, std::make_unique<gated_backend>());
  std::filesystem::remove_all(o.spool_dir);
  std::ofstream(o.spool_dir) << "a file where the spool directory was";

  auto refused = [&](job_request r, errc code, const std::string& needle) {
    auto id = h.eng->submit(std::move(r));
    ASSERT_FALSE(id.is_ok());
    EXPECT_EQ(id.error().code(), code) << id.error().to_string();
    EXPECT_NE(id.error().message().find(needle), std::string::npos) << id.error().to_string();
    EXPECT_NE(id.error().message().find("partition 0"), std::string::npos) << id.error().to_string();
  };
  refused(request("small", 1, std::nullopt, poseidon_wtns), errc::invalid_argument, "witness length mismatch");
  refused(request("small", 1, std::nullopt, bls_wtns), errc::invalid_argument, "witness, but the circuit's key");
  job_request big = request("small");
  big.partitions[0].owned.resize(big.partitions[0].owned.size() + (std::size_t{2} << 20));
  refused(std::move(big), errc::invalid_argument, "inline witness: expected at most");
  job_request high = request("small");
  std::fill(high.partitions[0].owned.end() - 32, high.partitions[0].owned.end(), uint8_t{0xff});
  refused(std::move(high), errc::out_of_range, "is not below r");

  // A good witness passes the checks and fails at the spool, so the ones above never got there;
  // the client is told why, not where the spool is (docs/HARDENING.md, finding 15).
  refused(request("small"), errc::io_error, "partition 0: inline witness: ");
  auto spool_fail = h.eng->submit(request("small"));
  ASSERT_FALSE(spool_fail.is_ok());
  EXPECT_EQ(spool_fail.error().message().find(o.spool_dir), std::string::npos) << spool_fail.error().to_string();
  const auto m = h.eng->snapshot().counters;
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::bad_witness)], 4u);
  EXPECT_EQ(m.rejected[static_cast<int>(reject_reason::spool_failed)], 2u);
  std::filesystem::remove(o.spool_dir);
}

// docs/HARDENING.md, finding 15: a spooled witness that failed when its job ran was named by its
// spool path, which lies in the daemon's data directory. It is named as at submit now: "partition
// N: inline witness". Partition 0 is held in the backend while the spooled files change underneath:
// replaced by another circuit's witness (its header fails), or deleted (its open fails).
TEST(engine, a_spooled_witness_that_fails_at_run_time_is_not_named_by_its_path) {
  const std::string other = temp_dir("spool-other") + "/other.wtns";
  for (const bool remove : {false, true}) {
    engine_options o;
    o.spool_dir = temp_dir(remove ? "spool-removed" : "spool-replaced");
    auto h = make(o, std::make_unique<gated_backend>(0ms, false));
    // A job holds the only worker at the gate, so the next one's witnesses are not read yet (a
    // running job reads its next partition's ahead).
    ASSERT_TRUE(h.eng->submit(request("small")).is_ok());
    ASSERT_TRUE(h.backend->wait_calls(1));
    const job_id id = h.eng->submit(request("small", 2)).value();
    // Its partition 1's spool file: the last one made (the spool numbers its files in order,
    // w-<time>-<pid>-<n>).
    std::filesystem::path last;
    uint64_t newest = 0, files = 0;
    for (const auto& f : std::filesystem::directory_iterator(o.spool_dir)) {
      const std::string name = f.path().filename().string();
      const uint64_t n = std::strtoull(name.c_str() + name.rfind('-') + 1, nullptr, 10);
      if (last.empty() || n > newest) {
        newest = n;
        last = f.path();
      }
      ++files;
    }
    ASSERT_EQ(files, 3u);
    if (remove) {
      std::filesystem::remove(last);
    } else {  // a new file renamed over it
      std::filesystem::copy_file(poseidon_wtns, other, std::filesystem::copy_options::overwrite_existing);
      std::filesystem::rename(other, last);
    }
    h.backend->open();
    const auto r = await_end(*h.eng, id);
    ASSERT_EQ(r.state, job_state::failed);
    const std::string& m = r.error.message();
    EXPECT_EQ(m.rfind("partition 1: inline witness: ", 0), 0u) << m;
    EXPECT_NE(m.find(remove ? "cannot open" : "witness length mismatch"), std::string::npos) << m;
    EXPECT_EQ(m.find(o.spool_dir), std::string::npos) << m;
    EXPECT_EQ(m.find("w-"), std::string::npos) << m;  // nor the spool file's own name
  }
}

TEST(engine, a_step_that_fails_after_a_cancel_ends_cancelled) {
  // A backend that honours the token abandons its proof with an error: the job ends as the caller
  // asked, not as a failure.
  auto h = make({}, std::make_unique<gated_backend>(0ms, false));
  const job_id id = h.eng->submit(request("small", 2)).value();
  ASSERT_TRUE(h.backend->wait_calls(1));
  ASSERT_TRUE(h.eng->cancel(id).is_ok());
  h.backend->abort();  // prove() returns an error now
  const auto r = await_end(*h.eng, id);
  EXPECT_EQ(r.state, job_state::cancelled) << r.error.to_string();
  EXPECT_EQ(r.error.code(), errc::cancelled);
  const auto m = h.eng->snapshot().counters.total;
  EXPECT_EQ(m.cancelled, 1u);
  EXPECT_EQ(m.failed, 0u);
}

TEST(engine, await_timeout_returns_the_current_state) {
  auto h = make({}, std::make_unique<gated_backend>(0ms, false));
  const job_id a = h.eng->submit(request("small")).value();
  ASSERT_TRUE(h.backend->wait_calls(1));
  const auto r = h.eng->await(a, 30ms).value();
  EXPECT_EQ(r.state, job_state::proving);
  const auto s = h.eng->snapshot();
  ASSERT_EQ(s.workers.size(), 1u);
  EXPECT_TRUE(s.workers[0].busy);
  EXPECT_EQ(s.workers[0].job, a);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.keys.at(0).users, 1u);
  EXPECT_EQ(s.backend, "test");
  h.backend->open();
  EXPECT_EQ(await_end(*h.eng, a).state, job_state::done);
  EXPECT_NE(h.eng->chrome_trace().find("traceEvents"), std::string::npos);
}

TEST(engine, drain_refuses_new_jobs_and_requeues_running_ones) {
  auto store = std::make_shared<memory_job_store>();
  engine_options o;
  o.spool_dir = temp_dir("drain-spool");  // shared by both engines, as beside a real store
  auto h = make(o, std::make_unique<gated_backend>(0ms, false), store);
  const job_id a = h.eng->submit(request("small", 2)).value();
  const job_id b = h.eng->submit(request("small")).value();
  ASSERT_TRUE(h.backend->wait_calls(1));
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    h.backend->open();
  });
  h.eng->drain(10ms);
  opener.join();
  EXPECT_FALSE(h.eng->accepting());
  auto refused = h.eng->submit(request("small"));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().code(), errc::unavailable);
  EXPECT_EQ(h.eng->snapshot().counters.rejected[static_cast<int>(reject_reason::draining)], 1u);
  EXPECT_EQ(h.eng->await(b, 0ms).value().state, job_state::queued);  // does not wait forever
  // Both jobs are queued again in the store for the next start.
  auto un = store->unfinished().value();
  ASSERT_EQ(un.size(), 2u);
  EXPECT_EQ(un[0].info.id, a);
  EXPECT_EQ(un[0].info.state, job_state::queued);
  EXPECT_EQ(un[1].info.id, b);

  // The next engine on the same store proves them.
  auto h2 = make(o, std::make_unique<gated_backend>(), store);
  EXPECT_EQ(await_end(*h2.eng, a).state, job_state::done);
  EXPECT_EQ(await_end(*h2.eng, b).state, job_state::done);
}

TEST(engine, a_crash_image_of_the_store_resumes_every_job) {
  const std::string dir = temp_dir("crash");
  const std::string db = dir + "/jobs.db";
  const std::string backup = temp_dir("crash-image");
  engine_options o;
  o.store_path = db;
  std::vector<job_id> ids;
  {
    auto h = make(o, std::make_unique<gated_backend>(0ms, false));
    for (int i = 0; i < 4; ++i) ids.push_back(h.eng->submit(request("small")).value());
    ASSERT_TRUE(h.backend->wait_calls(1));  // job 1 is mid-proof
    // What kill -9 leaves behind: the database with its WAL, and the spooled witnesses.
    std::filesystem::copy(dir, backup, std::filesystem::copy_options::recursive);
    h.backend->abort();
  }
  std::filesystem::remove_all(dir);
  std::filesystem::copy(backup, dir, std::filesystem::copy_options::recursive);

  auto h = make(o, std::make_unique<gated_backend>());
  for (auto id : ids) {
    const auto r = await_end(*h.eng, id);
    EXPECT_EQ(r.state, job_state::done) << r.error.to_string();
  }
  EXPECT_EQ(h.eng->get(ids[0]).value().attempts, 2u);  // interrupted once, then proved
  EXPECT_EQ(h.eng->get(ids[1]).value().attempts, 1u);
  EXPECT_EQ(h.eng->snapshot().counters.total.recovered, 4u);
  // Results are durable too, and the spooled witnesses are gone once their jobs ended.
  h.eng.reset();
  auto store = sqlite_job_store::open(db).value();
  EXPECT_EQ(store->get(ids[3]).value()->info.state, job_state::done);
  std::size_t spooled = 0;
  for (const auto& e : std::filesystem::directory_iterator(db + ".spool")) spooled += e.is_regular_file();
  EXPECT_EQ(spooled, 0u);
}

// A submit with an inline witness queues its job before the witness is on disk and returns once it
// is (arriving_witnesses.hpp). Killed in between, it leaves the job's row and the spool file's begun
// temporary: the submit never returned, so the job goes at the next start, and the client's retry
// under the same request id makes a new one rather than finding a job with no witness.
TEST(engine, a_submit_stopped_while_storing_its_witness_leaves_no_job) {
  const std::string db = temp_dir("interrupted-submit") + "/jobs.db";
  engine_options o;
  o.store_path = db;
  job_id id = 0;
  witness_spool::pending begun;
  {
    auto store = sqlite_job_store::open(db).value();
    auto spool = witness_spool::open(db + ".spool").value();
    begun = spool.begin().value();
    job_record r;
    r.info.request_id = "retried";
    r.info.circuit = "small";
    r.info.partitions = 1;
    r.info.submitted_at = wall_clock::now();
    r.witness_paths = {begun.path};
    r.spooled = {true};
    r.witness_digests = {witness_digest(read_bytes(small_wtns))};
    id = store->insert(r).value().id;
  }
  auto h = make(o, std::make_unique<gated_backend>());
  const auto gone = h.eng->get(id);
  ASSERT_FALSE(gone.is_ok());
  EXPECT_EQ(gone.error().code(), errc::not_found) << gone.error().to_string();
  EXPECT_FALSE(std::filesystem::exists(begun.tmp()));
  auto retry = request("small");
  retry.request_id = "retried";
  const job_id again = h.eng->submit(retry).value();
  EXPECT_GT(again, id);
  EXPECT_EQ(await_end(*h.eng, again).state, job_state::done);
  // Its witness was on disk when the submit returned, and is gone with the job's end.
  EXPECT_TRUE(std::filesystem::is_empty(db + ".spool"));
}

// The same submit completed: its file is whole under its final name before submit() returns, while
// the job may already be proving from the request's bytes (held at the backend's gate here).
TEST(engine, an_inline_witness_is_on_disk_when_its_submit_returns) {
  engine_options o;
  o.spool_dir = temp_dir("on-disk-spool");
  auto h = make(o, std::make_unique<gated_backend>(0ms, false));
  const job_id id = h.eng->submit(request("small")).value();
  std::vector<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(o.spool_dir)) files.push_back(f.path().string());
  ASSERT_EQ(files.size(), 1u);  // the final file alone: no temporary left beside it
  EXPECT_TRUE(files[0].ends_with(".wtns")) << files[0];
  EXPECT_FALSE(witness_spool::interrupted(files[0]));
  EXPECT_EQ(read_bytes(files[0]), read_bytes(small_wtns));
  h.backend->open();
  EXPECT_EQ(await_end(*h.eng, id).state, job_state::done);
}

// The worker proves from the request's bytes while the submit has yet to write them: held at its
// "job queued" log line (after the queue, before the write), the submit waits until the backend
// has been called; the spool then holds only the begun, empty temporary, so the witness the
// worker proved with came from memory (read from the file it would have failed the job).
TEST(engine, a_queued_job_proves_from_the_request_bytes_before_they_are_written) {
  engine_options o;
  o.spool_dir = temp_dir("early-spool");
  const std::string spool_dir = o.spool_dir;
  auto backend = std::make_unique<gated_backend>();
  gated_backend* b = backend.get();
  std::atomic<bool> reached{false};
  std::vector<std::string> at_call;
  o.log = [&, spool_dir](log_level, const std::string& line) {
    if (line.rfind("engine: job queued", 0) != 0 || reached.exchange(true)) return;
    EXPECT_TRUE(b->wait_calls(1));
    for (const auto& f : std::filesystem::directory_iterator(spool_dir))
      at_call.push_back(f.path().filename().string() + " " + std::to_string(f.file_size()));
  };
  auto h = make(o, std::move(backend));
  const job_id id = h.eng->submit(request("small")).value();
  ASSERT_TRUE(reached.load());
  ASSERT_EQ(at_call.size(), 1u);
  EXPECT_TRUE(at_call[0].ends_with(".wtns.tmp 0")) << at_call[0];
  EXPECT_EQ(await_end(*h.eng, id).state, job_state::done);
}

// The write fails after the job was queued (a full disk; here the process's file size limit, which
// binds root too): the submit fails without naming the spool, the job is gone from the store, the
// queue and the spool, and a retry under its request id is told to submit again, then succeeds.
TEST(engine, a_submit_whose_witness_cannot_be_stored_withdraws_its_queued_job) {
  auto store = std::make_shared<memory_job_store>();  // no file of its own under the limit
  engine_options o;
  o.spool_dir = temp_dir("full-spool");
  auto h = make(o, std::make_unique<gated_backend>(0ms, false), store);
  const auto witness_bytes = read_bytes(small_wtns).size();
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = witness_bytes / 2;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto req = request("small");
  req.request_id = "full";
  const auto refused = h.eng->submit(req);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &before), 0);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(refused.is_ok());
  const std::string m = refused.error().to_string();
  EXPECT_NE(m.find("cannot write the spool file"), std::string::npos) << m;
  EXPECT_EQ(m.find(o.spool_dir), std::string::npos) << m;
  EXPECT_TRUE(store->unfinished().value().empty());
  EXPECT_FALSE(store->find_request("full").value().has_value());
  h.backend->open();  // a worker that took it up meanwhile drops it at its end
  for (int i = 0; i < 200 && !h.eng->snapshot().jobs.empty(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(h.eng->snapshot().jobs.empty());
  EXPECT_TRUE(std::filesystem::is_empty(o.spool_dir));
  // Nor is it in the trace: not its queued event, nor what a worker that had it recorded.
  for (const auto& e : h.eng->recent_events())
    ADD_FAILURE() << "an event of the withdrawn job " << e.job << ": " << event_kind_name(e.kind);
  const job_id again = h.eng->submit(req).value();
  EXPECT_EQ(await_end(*h.eng, again).state, job_state::done);
  EXPECT_EQ(h.eng->snapshot().counters.total.submitted, 1u);
  for (const auto& e : h.eng->recent_events()) EXPECT_EQ(e.job, again) << event_kind_name(e.kind);
}

TEST(engine, a_job_that_keeps_crashing_the_daemon_fails_after_max_attempts) {
  auto store = std::make_shared<memory_job_store>();
  {
    auto h = make({}, std::make_unique<gated_backend>(), store);
    h.eng->drain(0ms);
  }
  // A row left "proving" three times over.
  job_record r;
  r.info.circuit = "small";
  r.info.partitions = 1;
  r.info.submitted_at = wall_clock::now();
  r.witness_paths = {small_wtns};
  r.spooled = {false};
  const job_id id = store->insert(r).value().id;
  ASSERT_TRUE(store->update_state(id, job_state::proving, 3).is_ok());
  auto h = make({}, std::make_unique<gated_backend>(), store);
  const auto res = await_end(*h.eng, id);
  EXPECT_EQ(res.state, job_state::failed);
  EXPECT_NE(res.error.message().find("interrupted 3 times"), std::string::npos) << res.error.to_string();
}

TEST(engine, results_expire_after_the_retention) {
  engine_options o;
  o.result_retention = std::chrono::seconds(0);
  auto h = make(o, std::make_unique<gated_backend>());
  const job_id a = h.eng->submit(request("small")).value();
  EXPECT_EQ(await_end(*h.eng, a).state, job_state::done);
  std::this_thread::sleep_for(400ms);  // the housekeeper runs every 100 ms at this retention
  EXPECT_EQ(h.eng->get(a).error().code(), errc::not_found);
}

}  // namespace
}  // namespace cuzk::engine
