// SPDX-License-Identifier: MIT OR Apache-2.0
// A SQLite daemon whose disk fills and then goes read-only in the middle of a job (docs/HARDENING.md,
// finding 24, with a real daemon; engine/engine_store_failure_test.cpp holds the engine alone through
// the same faults). One `cuzk daemon` process, CPU backend, SQLite store, its data_dir (the store, its
// mark, the spool, the lock) on an ext4 image of 8 MiB loop-mounted for the test. A job of 10
// partitions of the multiplier circuit, each with a witness of its own (d = 7 + k, so its public
// signals name it), is submitted through the `cuzk` command under a request id. Once its worker is
// past the first partition the daemon is frozen (SIGSTOP), as the cluster tests freeze a node holding
// a job: a partition of that circuit takes milliseconds, and the freeze holds the job in flight while
// the file system is filled. Let go, the job's end meets the full disk; then every file of the
// data_dir is made immutable, as a read-only file system refuses writes (Linux refuses to remount
// read-only under files open for writing; engine_store_failure_test.cpp says more). Meanwhile an await
// that runs out of time is answered UNAVAILABLE, never an end, the request id submitted again returns
// the job, a new request is refused UNAVAILABLE (docs/HARDENING.md, finding 31: the spool on that disk
// had answered FAILED_PRECONDITION), and the daemon answers /healthz and its status. Write access and
// room come back: the await under way returns the job DONE with 10 proofs, each verified by cuzk and
// by snarkjs's library (tests/cluster/verify_proofs.js, where tools/node/node_modules has snarkjs),
// the request id returns the same job again, the request refused meanwhile is proved when sent again,
// and after a kill -9 and a start on the same data_dir the job is DONE with the same proofs (bytes:
// not proved again); its witnesses have left the spool. Root only (a loop mount, chattr), as CI runs;
// skipped elsewhere with the reason.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/poll_until.hpp"
#include "engine/engine_test_util.hpp"
#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

using namespace test;
using steady = std::chrono::steady_clock;

const std::string mul_zkey = data_dir + "/snarkjs/bn128/circuit.zkey";
const std::string mul_wtns = data_dir + "/snarkjs/bn128/circuit.wtns";
const std::string mul_vk = data_dir + "/snarkjs/bn128/verification_key.json";
const std::string snarkjs = std::string(CUZK_SOURCE_DIR) + "/tools/node/node_modules/snarkjs";
const std::string verify_script = std::string(CUZK_SOURCE_DIR) + "/tests/cluster/verify_proofs.js";

constexpr int partitions = 10;

// An ext4 image of `mib` MiB mounted at `at`, unmounted (its files' immutable flags cleared first)
// when this goes. `why_not` says what is missing where it could not be made.
struct small_file_system {
  std::string at, why_not;
  bool mounted = false;

  small_file_system(const std::string& image, const std::string& mount_point, int mib) : at(mount_point) {
    fs::create_directories(at);
    if (run_command("truncate -s " + std::to_string(mib) + "M " + image + " && mkfs.ext4 -q -F " + image)
            .first != 0) {
      why_not = "cannot make an ext4 image here (no mkfs.ext4: Debian's e2fsprogs)";
      return;
    }
    if (run_command("mount -o loop " + image + " " + at).first != 0) {
      why_not = "cannot loop-mount a file system image here (no loop device, or no CAP_SYS_ADMIN)";
      return;
    }
    mounted = true;
  }
  ~small_file_system() {
    if (mounted) (void)run_command("chattr -R -i " + at + "; umount -l " + at);
  }
  small_file_system(const small_file_system&) = delete;
  small_file_system& operator=(const small_file_system&) = delete;

  // Every file and folder under it immutable (`on`) or writable again; whether chattr did it.
  bool immutable(bool on) const {
    return run_command(std::string("chattr -R ") + (on ? "+i " : "-i ") + at).first == 0;
  }
  // One file written under it until a write meets ENOSPC; its path, whose removal gives the room back.
  std::string fill() const {
    const std::string filler = at + "/filler";
    std::ofstream out(filler, std::ios::binary);
    const std::vector<char> block(4096, 'x');
    while (out.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
    return filler;
  }
};

// The daemon: its config, its stderr (the log, at info, so that the store's refusals show), and a
// client of its socket.
struct sqlite_daemon {
  std::string config, log, sock;
  int http_port = 0, starts = 0;
  pid_t pid = -1;
  std::unique_ptr<v1::ProvingEngine::Stub> stub;

  sqlite_daemon(const std::string& root, const std::string& data) {
    config = root + "/cuzk.toml";
    // Off the small file system: a Unix socket made immutable refuses connect(), and the socket
    // is not what is under test.
    sock = root + "/d.sock";
    http_port = free_port();
    // One worker, one proving thread: the test machine has two cores. Every proof verified by the
    // daemon before it is returned (verify_proofs). A job waits up to 2 s in the queue for a second
    // one to batch with (max_batch_*), so that the submit has returned before it starts: the submit
    // stores its ten witnesses in the spool (an fsync each, 0.2 s here), and the job proves in 0.07 s.
    std::ofstream(config) << "data_dir = \"" << data << "\"\nsocket = \"" << sock
                          << "\"\nhttp = \"127.0.0.1:" << http_port
                          << "\"\nlog_level = \"info\"\nbackend = \"cpu\"\nworkers = 1\nthreads = 1\n"
                             "verify_proofs = true\nmax_batch_size = 2\nmax_batch_wait_ms = 2000\n"
                             "[[circuit]]\nid = \"mul\"\nzkey = \""
                          << mul_zkey << "\"\n";
  }
  ~sqlite_daemon() { kill9(); }
  sqlite_daemon(const sqlite_daemon&) = delete;
  sqlite_daemon& operator=(const sqlite_daemon&) = delete;

  bool start() {
    // Each start's log a file of its own: a start truncates the file it writes.
    log = fs::path(config).parent_path().string() + "/daemon-" + std::to_string(++starts) + ".log";
    pid = start_daemon(config, log);
    auto ch = connect(sock, "");
    stub = make_stub(ch);
    return ch->WaitForConnected(std::chrono::system_clock::now() + 20s);
  }
  void kill9() { test::kill9(pid); }
  // Whether the process is still there (not exited, not killed by a signal); a child that ended is
  // left unreaped (WNOWAIT), for kill9() to reap.
  bool alive() const {
    siginfo_t info{};
    return pid > 0 && ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == 0;
  }
  std::pair<int, std::string> cli(const std::string& verb_and_args) const {
    return run_command(std::string(CUZK_BIN) + " " + verb_and_args + " --socket " + sock);
  }
  grpc::Status await(uint64_t id, uint64_t timeout_ms, v1::ProofResult& out) const {
    v1::AwaitProofRequest r;
    r.set_job_id(id);
    r.set_timeout_ms(timeout_ms);
    grpc::ClientContext ctx;
    return stub->AwaitProof(&ctx, r, &out);
  }
  // The status document, or a discarded one where the call failed.
  nlohmann::json status() const {
    v1::GetStatusResponse st;
    grpc::ClientContext ctx;
    if (!stub->GetStatus(&ctx, {}, &st).ok()) return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(st.json(), nullptr, false);
  }
  int healthz() const {
    httplib::Client http("127.0.0.1", http_port);
    http.set_connection_timeout(2s);
    http.set_read_timeout(2s);
    const auto h = http.Get("/healthz");
    return h ? h->status : -1;
  }
  // The partition the worker proving job `id` is on; -1 while no worker shows it.
  int partition_of(uint64_t id) const {
    const auto st = status();
    if (st.is_discarded() || !st.contains("workers")) return -1;
    for (const auto& w : st["workers"])
      if (w["busy"] == true && w["job"] == id) return w["partition"].get<int>();
    return -1;
  }
};

// The first line a `cuzk` verb printed.
std::string first_line(const std::string& out) { return out.substr(0, out.find('\n')); }

std::string describe(const grpc::Status& s, const v1::ProofResult& r) {
  return "code " + std::to_string(s.error_code()) + " \"" + s.error_message() + "\", state " +
         std::to_string(r.state()) + ", " + std::to_string(r.proofs_size()) + " proofs, error \"" +
         r.error() + "\"";
}

// While the store cannot take the job's end: every await that runs out of time is told UNAVAILABLE
// (await again), never an end, and the daemon is alive and answers. Awaits of half a second until
// one names `fault`, the store's last refusal (its retries wait 250 ms, doubling up to 8 s);
// whether one did within 12 s.
bool awaits_are_told_to_wait_until(const sqlite_daemon& d, uint64_t id, const std::string& fault) {
  SCOPED_TRACE(fault);
  for (auto until = steady::now() + 12s; steady::now() < until;) {
    v1::ProofResult r;
    const grpc::Status s = d.await(id, 500, r);
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE ||
        s.error_message().find("await again") == std::string::npos) {
      ADD_FAILURE() << "an await answered other than UNAVAILABLE, await again: " << describe(s, r);
      return false;
    }
    if (!d.alive()) {
      ADD_FAILURE() << "the daemon is gone";
      return false;
    }
    EXPECT_EQ(d.healthz(), 200);
    EXPECT_FALSE(d.status().is_discarded()) << "no status answer";
    if (s.error_message().find(fault) != std::string::npos) return true;
  }
  return false;
}

TEST(daemon_store_faults, a_full_then_read_only_data_dir_loses_no_proof_of_a_job_in_flight) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a file system image and make files immutable";
  const auto t0 = steady::now();
  const std::string root =
      (fs::temp_directory_path() / ("cuzk-store-faults-" + std::to_string(::getpid()))).string();
  fs::remove_all(root);
  for (const char* d : {"/witnesses", "/proofs"}) fs::create_directories(root + d);
  struct removed_at_end {
    std::string dir;
    ~removed_at_end() { fs::remove_all(dir); }
  } cleanup{root};  // after the file system below is unmounted
  small_file_system disk(root + "/fs.img", root + "/fs", 8);
  if (!disk.mounted) GTEST_SKIP() << disk.why_not;

  std::string witnesses;
  for (int k = 0; k < partitions; ++k) {
    const auto bytes = engine::test::multiplier_witness(mul_wtns, static_cast<unsigned>(k));
    const std::string path = root + "/witnesses/" + std::to_string(k) + ".wtns";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    witnesses += " " + path;
  }
  sqlite_daemon d(root, disk.at + "/data");
  ASSERT_TRUE(d.start()) << "the daemon did not come up: " << read_file(d.log);
  const std::string submit = "submit -c mul --request-id full-then-read-only-1" + witnesses;
  // Another request, submitted while the faults last: refused as a fault that passes
  // (docs/cluster.md, "When the database is out of reach": submits are answered UNAVAILABLE), and
  // proved once it is submitted again afterwards.
  const std::string other = "submit -c mul --request-id during-the-faults-1" + witnesses;
  auto expect_refused_for_now = [&](const char* when) {
    const auto [orc, oout] = d.cli(other);
    EXPECT_EQ(orc, 1) << when << ": " << oout;
    EXPECT_NE(oout.find("daemon: unavailable: "), std::string::npos) << when << ": " << oout;
  };

  // Submitted (the witnesses' bytes, spooled on the small disk), and held in flight.
  auto [rc, out] = d.cli(submit);
  ASSERT_EQ(rc, 0) << out;
  const uint64_t id = std::stoull(out);
  int held_at = -1;
  ASSERT_TRUE(poll_until([&] {
    const int p = d.partition_of(id);
    if (p < 1 || p > partitions - 3) return false;  // past the first, and at least two to go
    ::kill(d.pid, SIGSTOP);
    held_at = p;
    return true;
  })) << "job "
      << id << " was not seen past its first partition: "
      << d.cli("await --timeout-ms 1 " + std::to_string(id)).second;

  const std::string filler = disk.fill();
  ::kill(d.pid, SIGCONT);
  // Its end meets the full disk: logged, and held.
  EXPECT_TRUE(poll_until([&] {
    return read_file(d.log).find("its result waits for the job store") != std::string::npos;
  })) << read_file(d.log);
  EXPECT_TRUE(awaits_are_told_to_wait_until(d, id, "database or disk is full"));
  // A client that started waiting now, for longer than the faults last: it must see the end.
  auto long_await = std::async(std::launch::async, [&] {
    v1::ProofResult r;
    grpc::Status s = d.await(id, 60000, r);
    return std::make_pair(s, r);
  });
  // The request id is not burnt: the same request again is the same job.
  auto again = d.cli(submit);
  EXPECT_EQ(again.first, 0) << again.second;
  EXPECT_EQ(first_line(again.second), std::to_string(id));
  expect_refused_for_now("the disk full");

  // Read-only too: the retries meet another fault that passes.
  ASSERT_TRUE(disk.immutable(true));
  EXPECT_TRUE(awaits_are_told_to_wait_until(d, id, "disk I/O error"));  // the write refused (EPERM)
  again = d.cli(submit);
  EXPECT_EQ(again.first, 0) << again.second;
  EXPECT_EQ(first_line(again.second), std::to_string(id));
  expect_refused_for_now("the disk full and read-only");

  // Write access back, then the room: the job ends DONE.
  ASSERT_TRUE(disk.immutable(false));
  fs::remove(filler);
  const auto room_back = steady::now();
  ASSERT_EQ(long_await.wait_for(20s), std::future_status::ready) << "no end 20 s after the room came back";
  const double stored_after = std::chrono::duration<double>(steady::now() - room_back).count();
  auto [s, r] = long_await.get();
  ASSERT_TRUE(s.ok()) << describe(s, r);
  ASSERT_EQ(r.state(), v1::DONE) << describe(s, r);
  ASSERT_EQ(r.proofs_size(), partitions);
  for (int k = 0; k < partitions; ++k) {
    EXPECT_EQ(proof_check(mul_vk, r.proofs(k).proof_json(), r.proofs(k).public_json()), "")
        << "partition " << k;
    EXPECT_EQ(nlohmann::json::parse(r.proofs(k).public_json()),
              nlohmann::json::parse(engine::test::multiplier_public(static_cast<unsigned>(k))))
        << "partition " << k;
    std::ofstream(root + "/proofs/" + std::to_string(k) + ".json") << nlohmann::json{
        {"proof", nlohmann::json::parse(r.proofs(k).proof_json())},
        {"publicSignals",
         nlohmann::json::parse(r.proofs(k).public_json())}}.dump();
  }
  again = d.cli(submit);
  EXPECT_EQ(again.first, 0) << again.second;
  EXPECT_EQ(first_line(again.second), std::to_string(id));
  v1::ProofResult after;
  EXPECT_TRUE(d.await(id, 5000, after).ok());
  EXPECT_EQ(after.state(), v1::DONE);
  // The request refused meanwhile is a new job now (its request id was not taken by the refusals).
  const auto [orc, oout] = d.cli(other);
  ASSERT_EQ(orc, 0) << oout;
  const uint64_t other_id = std::stoull(oout);
  EXPECT_NE(other_id, id);
  v1::ProofResult other_end;
  const grpc::Status os = d.await(other_id, 20000, other_end);
  EXPECT_TRUE(os.ok() && other_end.state() == v1::DONE && other_end.proofs_size() == partitions)
      << describe(os, other_end);

  // Its witnesses leave the spool with it.
  std::vector<std::string> left;
  EXPECT_TRUE(poll_until([&] {
    left.clear();
    for (const auto& e : fs::recursive_directory_iterator(disk.at + "/data/spool"))
      if (e.is_regular_file()) left.push_back(e.path().filename().string());
    return left.empty();
  })) << left.size()
      << " files left in the spool, " << left.front();

  // A crash and a start on the same data_dir: the job is still DONE, with the same proofs.
  d.kill9();
  ASSERT_TRUE(d.start()) << "the daemon did not come up again: " << read_file(d.log);
  v1::ProofResult restarted;
  const grpc::Status rs = d.await(id, 10000, restarted);
  ASSERT_TRUE(rs.ok()) << describe(rs, restarted);
  EXPECT_EQ(restarted.state(), v1::DONE) << describe(rs, restarted);
  ASSERT_EQ(restarted.proofs_size(), partitions);
  for (int k = 0; k < partitions; ++k)
    EXPECT_EQ(restarted.proofs(k).proof_json(), r.proofs(k).proof_json()) << "partition " << k;
  again = d.cli(submit);
  EXPECT_EQ(first_line(again.second), std::to_string(id)) << again.second;

  std::string snarkjs_said = "snarkjs not installed (cd tools/node && npm ci): its check skipped";
  if (fs::exists(snarkjs + "/package.json")) {
    auto [vrc, vout] =
        run_command("node " + verify_script + " " + snarkjs + " " + mul_vk + " " + root + "/proofs");
    EXPECT_EQ(vrc, 0) << vout;
    EXPECT_NE(vout.find("verified 10 of 10"), std::string::npos) << vout;
    snarkjs_said = "snarkjs: " + vout.substr(0, vout.find('\n'));
  }
  std::cout << "[ store faults ] held at partition " << held_at << "; stored " << stored_after
            << " s after the room came back (the retry wait doubles up to 8 s); " << snarkjs_said << "; "
            << std::chrono::duration<double>(steady::now() - t0).count() << " s in all\n";
  if (HasFailure())
    for (int k = 1; k <= d.starts; ++k)
      std::cout << "[ store faults ] the daemon's log, start " << k << ":\n"
                << read_file(root + "/daemon-" + std::to_string(k) + ".log");
  d.kill9();
}

}  // namespace
}  // namespace cuzk::service
