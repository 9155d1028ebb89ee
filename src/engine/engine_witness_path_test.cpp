// SPDX-License-Identifier: MIT OR Apache-2.0
// Witness paths: refused unless they lie under the configured witness_dirs, and then only for
// regular files, with one message for every refusal (docs/HARDENING.md, finding 2: a path was
// opened with the daemon's rights, so a local user could read any file through it or test whether
// it exists).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;
namespace fs = std::filesystem;

gated_engine make(std::vector<std::string> dirs, bool gate_open = true) {
  engine_options o;
  o.spool_dir = temp_dir("witness-path-spool");
  o.witness_dirs = std::move(dirs);
  gated_engine h(std::move(o), std::make_unique<gated_backend>(0ms, gate_open));
  if (h.eng) {
    EXPECT_TRUE(h.eng->register_circuit("small", small_zkey).is_ok());
  }
  return h;
}

job_request by_path(const std::string& path) {
  job_request r;
  r.circuit = "small";
  r.partitions.push_back(witness_input::from_path(path));
  return r;
}

// The refusal with the client's own path taken out: what it says about the file system.
std::string refusal_of(engine& e, const std::string& path) {
  auto id = e.submit(by_path(path));
  if (id.is_ok()) return "accepted";
  EXPECT_EQ(id.error().code(), errc::failed_precondition) << id.error().to_string();
  std::string m = id.error().message();
  const auto at = m.find(path);
  if (at != std::string::npos) m.replace(at, path.size(), "P");
  return m;
}

// An engine over `dir` whose first "job queued" line (the submit's thread, before its checks) waits
// until the job's worker is at the gate, then runs `then`: the submit's checks run while the job
// proves. Whatever fails, the worker is let go at the end, so that the engine can stop.
struct paused_at_queue {
  gated_backend* gate = nullptr;
  std::atomic<bool> reached{false};
  std::atomic<job_id> queued_id{0};
  std::function<void()> then;
  std::unique_ptr<gated_engine> h;
  ~paused_at_queue() {
    if (h && h->backend) h->backend->open();
  }
};

std::unique_ptr<paused_at_queue> pause_at_queue(const std::string& name, const std::string& dir,
                                                std::function<void()> then = {}) {
  auto p = std::make_unique<paused_at_queue>();
  p->then = std::move(then);
  engine_options o;
  o.spool_dir = temp_dir(name + "-spool");
  o.witness_dirs = {dir};
  o.log = [at = p.get()](log_level, const std::string& line) {
    if (line.rfind("engine: job queued id=", 0) != 0 || at->reached.exchange(true)) return;
    at->queued_id.store(std::stoull(line.substr(line.find("id=") + 3)));
    EXPECT_TRUE(at->gate->wait_calls(1)) << "the queued job did not reach a worker";
    if (at->then) at->then();
  };
  p->h = std::make_unique<gated_engine>(std::move(o), std::make_unique<gated_backend>(0ms, false));
  p->gate = p->h->backend;
  if (p->h->eng) {
    EXPECT_TRUE(p->h->eng->register_circuit("small", small_zkey).is_ok());
  }
  return p;
}

TEST(engine_witness_path, paths_are_refused_by_default_and_inline_witnesses_still_work) {
  auto h = make({});
  ASSERT_TRUE(h.eng);
  auto id = h.eng->submit(by_path(small_wtns));
  ASSERT_FALSE(id.is_ok());
  EXPECT_EQ(id.error().code(), errc::failed_precondition);
  EXPECT_NE(id.error().message().find("witness_dirs is empty"), std::string::npos) << id.error().to_string();
  auto inline_id = h.eng->submit(request("small"));
  ASSERT_TRUE(inline_id.is_ok()) << inline_id.error().to_string();
  EXPECT_EQ(h.eng->await(*inline_id, 20s).value().state, job_state::done);
}

TEST(engine_witness_path, only_regular_files_under_the_dirs_are_read_and_every_refusal_reads_the_same) {
  const std::string allowed = temp_dir("witness-allowed");
  const std::string outside = temp_dir("witness-outside");
  fs::copy_file(small_wtns, allowed + "/w.wtns");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  fs::create_symlink(outside + "/secret.wtns", allowed + "/link-out.wtns");
  fs::create_symlink(allowed + "/w.wtns", allowed + "/link-in.wtns");
  fs::create_directory(allowed + "/sub");
  ASSERT_EQ(::mkfifo((allowed + "/fifo.wtns").c_str(), 0600), 0);
  // A directory given with a trailing part that is a sibling's prefix must not match it.
  fs::create_directory(allowed + "-evil");
  fs::copy_file(small_wtns, allowed + "-evil/w.wtns");

  auto h = make({allowed});
  ASSERT_TRUE(h.eng);
  for (const std::string& ok : {allowed + "/w.wtns", allowed + "/link-in.wtns", allowed + "/sub/../w.wtns"}) {
    auto id = h.eng->submit(by_path(ok));
    ASSERT_TRUE(id.is_ok()) << ok << ": " << id.error().to_string();
    EXPECT_EQ(h.eng->await(*id, 20s).value().state, job_state::done) << ok;
  }

  const std::string first = refusal_of(*h.eng, allowed + "/missing.wtns");
  EXPECT_NE(first.find("witness_dirs"), std::string::npos) << first;
  for (const std::string& bad : {
           outside + "/secret.wtns",    // exists, readable by the daemon, outside
           outside + "/missing.wtns",   // does not exist, outside
           allowed + "/link-out.wtns",  // inside, a symlink leading out
           allowed + "/../" + fs::path(outside).filename().string() + "/secret.wtns",  // ".." out
           allowed + "/sub",                                                           // a directory
           allowed + "/fifo.wtns",    // a FIFO (must not block)
           allowed + "-evil/w.wtns",  // a sibling sharing the prefix
           std::string("/etc/passwd"),
           std::string("relative.wtns"),
       })
    EXPECT_EQ(refusal_of(*h.eng, bad), first) << bad;
}

TEST(engine_witness_path, a_path_that_changes_after_the_submit_is_checked_again_when_read) {
  const std::string allowed = temp_dir("witness-swap");
  const std::string outside = temp_dir("witness-swap-outside");
  fs::copy_file(small_wtns, allowed + "/w.wtns");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  auto h = make({allowed}, false);
  ASSERT_TRUE(h.eng);
  auto running = h.eng->submit(request("small"));  // holds the only worker at the gate
  ASSERT_TRUE(running.is_ok());
  ASSERT_TRUE(h.backend->wait_calls(1));
  auto id = h.eng->submit(by_path(allowed + "/w.wtns"));
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  fs::remove(allowed + "/w.wtns");
  fs::create_symlink(outside + "/secret.wtns", allowed + "/w.wtns");
  h.backend->open();
  auto r = h.eng->await(*id, 20s);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->state, job_state::failed);
  EXPECT_EQ(r->error.code(), errc::failed_precondition) << r->error.to_string();
  EXPECT_NE(r->error.message().find("witness_dirs"), std::string::npos) << r->error.to_string();
}

// The next partition's witness is read while the one before proves: a file removed once its
// read-ahead is done no longer matters, and one that changed before is refused by the same check,
// the job failing with that partition named.
TEST(engine_witness_path, the_next_partitions_witness_is_read_while_the_one_before_proves) {
  const std::string dir = temp_dir("witness-ahead");
  const std::string outside = temp_dir("witness-ahead-outside");
  for (const char* name : {"p0.wtns", "p1.wtns", "q0.wtns", "q1.wtns"}) fs::copy_file(small_wtns, dir + "/" + name);
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  auto h = make({dir}, false);
  ASSERT_TRUE(h.eng);
  auto two = [&](const char* a, const char* b) {
    job_request r = by_path(dir + "/" + a);
    r.partitions.push_back(witness_input::from_path(dir + "/" + b));
    return r;
  };
  auto first = h.eng->submit(two("p0.wtns", "p1.wtns"));
  ASSERT_TRUE(first.is_ok()) << first.error().to_string();
  ASSERT_TRUE(h.backend->wait_calls(1));  // partition 0 at the gate; partition 1 read meanwhile
  std::this_thread::sleep_for(300ms);     // a 364-byte read: long done
  fs::remove(dir + "/p1.wtns");
  auto second = h.eng->submit(two("q0.wtns", "q1.wtns"));
  ASSERT_TRUE(second.is_ok()) << second.error().to_string();
  fs::remove(dir + "/q1.wtns");  // before its job starts: its read-ahead sees the change
  fs::create_symlink(outside + "/secret.wtns", dir + "/q1.wtns");
  h.backend->open();
  auto r = h.eng->await(*first, 20s);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  EXPECT_EQ(r->proofs.size(), 2u);
  r = h.eng->await(*second, 20s);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->state, job_state::failed);
  EXPECT_NE(r->error.message().find("partition 1"), std::string::npos) << r->error.to_string();
  EXPECT_NE(r->error.message().find("witness_dirs"), std::string::npos) << r->error.to_string();
}

// A submit's witness files are checked a few at a time; of two that are refused, the submit names
// the first in partition order, and nothing of the job is kept.
TEST(engine_witness_path, of_two_refused_paths_in_one_submit_the_first_is_named) {
  const std::string dir = temp_dir("witness-submit-many");
  const std::string outside = temp_dir("witness-submit-many-outside");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  auto h = make({dir});
  ASSERT_TRUE(h.eng);
  job_request r;
  r.circuit = "small";
  for (int k = 0; k < 6; ++k) {
    const std::string path = dir + "/p" + std::to_string(k) + ".wtns";
    if (k == 2 || k == 4)
      fs::create_symlink(outside + "/secret.wtns", path);
    else
      fs::copy_file(small_wtns, path);
    r.partitions.push_back(witness_input::from_path(path));
  }
  auto id = h.eng->submit(r);
  ASSERT_FALSE(id.is_ok());
  EXPECT_EQ(id.error().message().rfind("partition 2: ", 0), 0u) << id.error().to_string();
  fs::remove(dir + "/p2.wtns");
  fs::copy_file(small_wtns, dir + "/p2.wtns");
  fs::remove(dir + "/p4.wtns");
  fs::copy_file(small_wtns, dir + "/p4.wtns");
  id = h.eng->submit(r);
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  auto done = h.eng->await(*id, 20s);
  ASSERT_TRUE(done.is_ok());
  EXPECT_EQ(done->state, job_state::done) << done->error.to_string();
  EXPECT_EQ(done->proofs.size(), 6u);
}

// On a daemon alone a job named by path is queued before its files are read (a PoRep job's ten
// files of GiBs each took its submit seconds) and proves while its submit checks them: a refused
// file still reaches the client from the submit, with the message it always had, and the job that
// was queued is withdrawn from the worker proving it and the store. A retry under the request id
// hears the same refusal; counted as one refused witness each, never as a submitted job.
TEST(engine_witness_path, a_job_proves_while_its_files_are_checked_and_is_withdrawn_when_one_is_refused) {
  const std::string dir = temp_dir("witness-while-proving");
  const std::string outside = temp_dir("witness-while-proving-outside");
  fs::copy_file(small_wtns, dir + "/p0.wtns");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  fs::create_symlink(outside + "/secret.wtns", dir + "/p1.wtns");
  auto p = pause_at_queue("witness-while-proving", dir);
  ASSERT_TRUE(p->h->eng);
  gated_engine& h = *p->h;
  job_request r = by_path(dir + "/p0.wtns");
  r.partitions.push_back(witness_input::from_path(dir + "/p1.wtns"));
  r.request_id = "while-proving";
  auto refused = h.eng->submit(r);
  ASSERT_TRUE(p->reached.load()) << "the job was not queued before its files were checked";
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().code(), errc::failed_precondition) << refused.error().to_string();
  EXPECT_EQ(refused.error().message().rfind("partition 1: ", 0), 0u) << refused.error().to_string();
  EXPECT_NE(refused.error().message().find("witness_dirs"), std::string::npos) << refused.error().to_string();
  // The worker, let go, ends the job without a word: nothing of it is kept, in the store or the
  // job table.
  h.backend->open();
  auto gone = h.eng->await(p->queued_id.load(), 20s);
  ASSERT_FALSE(gone.is_ok());
  EXPECT_EQ(gone.error().code(), errc::not_found) << gone.error().to_string();
  EXPECT_TRUE(h.eng->snapshot().jobs.empty());
  // The same request again (its request id free: the withdrawn job's row is gone) is refused the
  // same way.
  auto again = h.eng->submit(r);
  ASSERT_FALSE(again.is_ok());
  EXPECT_EQ(again.error().to_string(), refused.error().to_string());
  const auto counted = h.eng->snapshot().counters;
  EXPECT_EQ(counted.rejected[static_cast<int>(reject_reason::bad_witness)], 2u);
  EXPECT_EQ(counted.total.submitted, 0u);
  // With the file put right, it proves.
  fs::remove(dir + "/p1.wtns");
  fs::copy_file(small_wtns, dir + "/p1.wtns");
  auto id = h.eng->submit(r);
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  auto done = h.eng->await(*id, 20s);
  ASSERT_TRUE(done.is_ok());
  EXPECT_EQ(done->state, job_state::done) << done->error.to_string();
  EXPECT_EQ(done->proofs.size(), 2u);
}

// A file the job has read and passed is not read again by the submit's check (arriving_witnesses.hpp):
// each 2 GiB file of a PoRep job was read twice at the job's start. Here partition 0's file is
// replaced by one outside witness_dirs once the job has proven from it: a check that read it again
// would refuse the submit of a job that proves what it read.
TEST(engine_witness_path, the_submits_check_takes_the_jobs_word_for_a_file_the_job_has_read) {
  const std::string dir = temp_dir("witness-read-once");
  const std::string outside = temp_dir("witness-read-once-outside");
  fs::copy_file(small_wtns, dir + "/p0.wtns");
  fs::copy_file(small_wtns, dir + "/p1.wtns");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  // Partition 0 read and passed by the job, which proves it at the gate; then the file changes.
  auto p = pause_at_queue("witness-read-once", dir, [&] {
    fs::remove(dir + "/p0.wtns");
    fs::create_symlink(outside + "/secret.wtns", dir + "/p0.wtns");
  });
  ASSERT_TRUE(p->h->eng);
  gated_engine& h = *p->h;
  job_request r = by_path(dir + "/p0.wtns");
  r.partitions.push_back(witness_input::from_path(dir + "/p1.wtns"));
  auto id = h.eng->submit(r);
  ASSERT_TRUE(p->reached.load()) << "the job was not queued before its files were checked";
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  h.backend->open();
  auto done = h.eng->await(*id, 20s);
  ASSERT_TRUE(done.is_ok());
  EXPECT_EQ(done->state, job_state::done) << done->error.to_string();
  EXPECT_EQ(done->proofs.size(), 2u);
  // The same request now reads partition 0's file at its check, before anything is proven.
  auto again = h.eng->submit(r);
  ASSERT_FALSE(again.is_ok());
  EXPECT_EQ(again.error().message().rfind("partition 0: ", 0), 0u) << again.error().to_string();
}

// A refused inline witness after a path: the path, checked while the job would prove, is still the
// first refusal in partition order, as when every file was checked before the job was stored.
TEST(engine_witness_path, a_refused_path_before_a_refused_inline_witness_is_the_one_named) {
  const std::string dir = temp_dir("witness-path-then-inline");
  const std::string outside = temp_dir("witness-path-then-inline-outside");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  fs::create_symlink(outside + "/secret.wtns", dir + "/p0.wtns");
  auto h = make({dir});
  ASSERT_TRUE(h.eng);
  job_request r = by_path(dir + "/p0.wtns");
  auto garbage = read_bytes(small_wtns);
  garbage.resize(garbage.size() - 32);
  r.partitions.push_back(witness_input::from_bytes(garbage));
  auto refused = h.eng->submit(r);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message().rfind("partition 0: ", 0), 0u) << refused.error().to_string();
  EXPECT_NE(refused.error().message().find("witness_dirs"), std::string::npos) << refused.error().to_string();
  EXPECT_TRUE(h.eng->snapshot().jobs.empty());
  r.partitions[0] = witness_input::from_path(dir + "/p0.wtns");
  fs::remove(dir + "/p0.wtns");
  fs::copy_file(small_wtns, dir + "/p0.wtns");
  refused = h.eng->submit(r);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message().rfind("partition 1: inline witness", 0), 0u) << refused.error().to_string();
}

TEST(engine_witness_path, a_witness_dir_that_is_not_a_directory_is_a_start_error) {
  engine_options o;
  o.spool_dir = temp_dir("witness-bad-dir-spool");
  o.witness_dirs = {small_wtns};
  engine_parts parts;
  parts.backend = std::make_unique<gated_backend>();
  auto e = engine::create(std::move(o), std::move(parts));
  ASSERT_FALSE(e.is_ok());
  EXPECT_NE(e.error().message().find("witness_dirs[0]"), std::string::npos) << e.error().to_string();
}

}  // namespace
}  // namespace cuzk::engine
