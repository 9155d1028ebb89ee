// SPDX-License-Identifier: MIT OR Apache-2.0
// The real daemon binary (`cuzk daemon`) on a temporary socket and data dir, driven through the
// generated gRPC stub: a proof that verifies, bad requests answered with clear errors and the
// matching gRPC codes while another job completes (and counted by reason, not by the made-up
// circuit), the client verbs' messages and exit status, cancel of a queued and of a running job,
// idempotent resubmission, the HTTP endpoints, kill -9 with queued jobs followed by a restart that
// delivers every proof, a CRITICAL job overtaking queued NORMAL ones, a partial batch flushed on
// its timeout, a job failed past its deadline, preload/evict seen in the status key tier,
// `cuzk bench batch` and `cuzk bench upload` against the daemon, HTTP's /status without request
// ids or paths, and a message over the derived size limit refused before the engine sees it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "base/poll_until.hpp"
#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

using namespace test;

const std::string other_wtns = data_dir + "/snarkjs/bn128/circuit.wtns";  // another circuit: wrong length

// One daemon process on a fresh data dir (kept across restart()).
struct daemon_proc {
  std::string dir, sock, config;
  int http_port = 0;
  pid_t pid = -1;
  std::unique_ptr<v1::ProvingEngine::Stub> stub;

  // `extra`: more top-level TOML keys (batching, budgets) for one test.
  explicit daemon_proc(const std::string& name, int workers = 1, const std::string& extra = {}) {
    dir = (fs::temp_directory_path() / ("cuzk-daemon-" + name + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    sock = dir + "/d.sock";
    http_port = free_port();
    config = dir + "/cuzk.toml";
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock
                          << "\"\nhttp = \"127.0.0.1:" << http_port << "\"\nworkers = " << workers
                          << "\nlog_level = \"warn\"\nwitness_dirs = [\"" << data_dir << "\", \"" << dir
                          << "\"]\nkey_dirs = [\"" << data_dir << "\", \"" << dir << "\"]\n"
                          << extra << "[[circuit]]\nid = \"poseidon\"\nzkey = \"" << poseidon_zkey << "\"\n";
    start();
  }
  ~daemon_proc() {
    kill9();
    fs::remove_all(dir);
  }
  void start() {
    pid = start_daemon(config);
    auto ch = connect(sock, "");
    ASSERT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s)) << "daemon did not come up";
    stub = make_stub(ch);
  }
  void kill9() { test::kill9(pid); }
  int term() { return terminate(pid); }

  grpc::Status submit_request(const v1::SubmitProofRequest& r, uint64_t& id) {
    v1::SubmitProofResponse resp;
    grpc::ClientContext ctx;
    auto s = stub->SubmitProof(&ctx, r, &resp);
    id = resp.job_id();
    return s;
  }
  grpc::Status submit(const std::string& wtns_bytes, uint64_t& id, const std::string& request_id = {},
                      const std::string& circuit = "poseidon", v1::Priority prio = v1::PRIORITY_UNSPECIFIED,
                      int partitions = 1) {
    v1::SubmitProofRequest r;
    r.set_circuit(circuit);
    r.set_request_id(request_id);
    r.set_priority(prio);
    for (int i = 0; i < partitions; ++i) r.add_partitions()->set_wtns(wtns_bytes);
    return submit_request(r, id);
  }
  grpc::Status cancel(uint64_t id) {
    v1::CancelProofRequest c;
    c.set_job_id(id);
    v1::CancelProofResponse cr;
    grpc::ClientContext ctx;
    return stub->CancelProof(&ctx, c, &cr);
  }
  grpc::Status await_status(uint64_t id, uint64_t timeout_ms, v1::ProofResult& out) {
    v1::AwaitProofRequest r;
    r.set_job_id(id);
    r.set_timeout_ms(timeout_ms);
    grpc::ClientContext ctx;
    return stub->AwaitProof(&ctx, r, &out);
  }
  std::string metrics() {
    v1::GetMetricsResponse m;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub->GetMetrics(&ctx, {}, &m).ok());
    return m.text();
  }
  // `cuzk <verb> --socket <this daemon's> <args>`.
  std::pair<int, std::string> cli(const std::string& verb_and_args) {
    return run_command(std::string(CUZK_BIN) + " " + verb_and_args + " --socket " + sock);
  }
  nlohmann::json status() {
    v1::GetStatusResponse st;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub->GetStatus(&ctx, {}, &st).ok());
    return nlohmann::json::parse(st.json());
  }
  // The tier the status document reports for the circuit's key ("cold" when it lists none).
  std::string key_tier(const std::string& circuit = "poseidon") {
    const auto st = status();  // named: a loop over status()["keys"] would outlive the document
    for (const auto& k : st["keys"])
      if (k["circuit"] == circuit) return k["tier"].get<std::string>();
    return "cold";
  }
  grpc::Status key_op(bool preload, const std::string& tier, const std::string& circuit = "poseidon") {
    v1::KeyRequest r;
    r.set_circuit(circuit);
    r.set_tier(tier);
    v1::KeyResponse resp;
    grpc::ClientContext ctx;
    return preload ? stub->PreloadKey(&ctx, r, &resp) : stub->EvictKey(&ctx, r, &resp);
  }
  v1::ProofResult await(uint64_t id) {
    v1::ProofResult out;
    auto s = await_status(id, 60000, out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }
};

void expect_valid(const v1::ProofResult& r) {
  ASSERT_EQ(r.state(), v1::DONE) << r.error();
  ASSERT_EQ(r.proofs_size(), 1);
  EXPECT_EQ(proof_check(poseidon_vk, r.proofs(0).proof_json(), r.proofs(0).public_json()), "");
}

TEST(daemon, proves_and_the_proof_verifies_and_http_answers) {
  daemon_proc d("prove");
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.add_partitions()->set_path(poseidon_wtns);  // by path on the daemon's disk
  v1::ProofResult r;
  grpc::ClientContext ctx;
  ASSERT_TRUE(d.stub->Prove(&ctx, req, &r).ok());
  expect_valid(r);
  EXPECT_GT(r.timings().total(), 0);
  EXPECT_GT(r.timings().prove(), 0);
  EXPECT_GT(r.timings().witness(), 0);  // the file's read, a phase of its own

  httplib::Client http("127.0.0.1", d.http_port);
  auto h = http.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  auto st = http.Get("/status");
  ASSERT_TRUE(st);
  EXPECT_NE(st->body.find("\"keys\""), std::string::npos);
  EXPECT_NE(st->body.find("\"poseidon\""), std::string::npos);
  auto m = http.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("cuzk_jobs_completed_total{circuit=\"poseidon\"} 1"), std::string::npos);
  EXPECT_NE(m->body.find("cuzk_phase_seconds_bucket{circuit=\"poseidon\",phase=\"total\",le=\"+Inf\"} 1"),
            std::string::npos);
  EXPECT_NE(m->body.find("cuzk_phase_seconds_bucket{circuit=\"poseidon\",phase=\"witness\",le=\"+Inf\"} 1"),
            std::string::npos);
  EXPECT_NE(st->body.find("\"witness\""), std::string::npos);
  auto t = http.Get("/trace");
  ASSERT_TRUE(t);
  EXPECT_NE(t->body.find("traceEvents"), std::string::npos);
  EXPECT_NE(t->body.find("\"cat\":\"witness\""), std::string::npos) << t->body;
  EXPECT_EQ(d.term(), 0);  // SIGTERM drains and exits 0
}

// A Prove call (submit and await in one) whose job is still queued when the daemon drains is
// answered UNAVAILABLE naming the job, which the daemon keeps: its client has no other way to learn
// the id, and without it would submit again and prove twice (docs/HARDENING.md, finding 41).
TEST(daemon, a_prove_call_cut_short_by_a_drain_names_the_job_it_leaves_queued) {
  daemon_proc d("prove-drain", 1, "drain_grace_s = 0\n");
  v1::SubmitProofRequest many;  // a job that keeps the one worker busy: 400 partitions by path
  many.set_circuit("poseidon");
  for (int i = 0; i < 400; ++i) many.add_partitions()->set_path(poseidon_wtns);
  uint64_t busy = 0;
  const grpc::Status stored = d.submit_request(many, busy);
  ASSERT_TRUE(stored.ok()) << stored.error_message();
  grpc::Status prove_status;
  std::thread prove([&] {
    v1::SubmitProofRequest req;
    req.set_circuit("poseidon");
    req.add_partitions()->set_wtns(read_file(poseidon_wtns));
    v1::ProofResult r;
    grpc::ClientContext ctx;
    prove_status = d.stub->Prove(&ctx, req, &r);
  });
  const uint64_t queued = busy + 1;
  const bool seen = poll_until(
      [&] {
        v1::ProofResult r;
        return d.await_status(queued, 1, r).ok();
      },
      20s);
  EXPECT_TRUE(seen) << "the Prove call's job was never stored";
  EXPECT_EQ(d.term(), 0);
  prove.join();
  EXPECT_EQ(prove_status.error_code(), grpc::StatusCode::UNAVAILABLE) << prove_status.error_message();
  EXPECT_NE(prove_status.error_message().find("job " + std::to_string(queued) + " is kept"), std::string::npos)
      << prove_status.error_message();
}

// docs/HARDENING.md, finding 13: connections that open and send nothing held every HTTP thread, so
// 8 or 16 of them delayed /healthz by 8.7 s or 19.8 s.
TEST(daemon, idle_http_connections_do_not_delay_healthz) {
  daemon_proc d("http-idle");
  std::vector<int> idle;
  for (int i = 0; i < 32; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(d.http_port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
    idle.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);  // every one accepted and waiting on a server thread
  httplib::Client http("127.0.0.1", d.http_port);
  http.set_connection_timeout(5, 0);
  http.set_read_timeout(5, 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto h = http.Get("/healthz");
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  EXPECT_LT(took, 1s) << std::chrono::duration<double>(took).count() << " s";
  // And the server lets go of them: an idle connection is closed after its wait for a request.
  timeval limit{5, 0};
  ::setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  char byte;
  EXPECT_EQ(::recv(idle[0], &byte, 1, 0), 0) << std::strerror(errno);
  for (int fd : idle) ::close(fd);
}

TEST(daemon, bad_requests_get_clear_errors_while_another_job_completes) {
  daemon_proc d("bad");
  uint64_t good = 0, id = 0;
  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), good).ok());

  // Made-up circuit ids: refused, and counted under a fixed reason rather than as a label each.
  grpc::Status s;
  for (const char* made_up : {"nope", "made-up-1", "made-up-2"}) {
    s = d.submit(read_file(poseidon_wtns), id, "", made_up);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
    EXPECT_NE(s.error_message().find("not registered"), std::string::npos) << s.error_message();
  }

  // An id of 100 KB no circuit may have: said by its size, not quoted (quoted, the message overflowed
  // gRPC's metadata and the client got RESOURCE_EXHAUSTED: docs/HARDENING.md, finding 22).
  const std::string huge_id(100 << 10, 'x');
  s = d.submit(read_file(poseidon_wtns), id, "", huge_id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message().substr(0, 200);
  EXPECT_NE(s.error_message().find("circuit id: expected 1 to 128 characters, found 102400"), std::string::npos)
      << s.error_message().substr(0, 200);
  for (const bool preload : {true, false})
    EXPECT_EQ(d.key_op(preload, "warm", huge_id).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  s = d.submit("not a witness file", id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("partition 0"), std::string::npos) << s.error_message();

  s = d.submit(read_file(other_wtns), id);  // a witness of another circuit: wrong length
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();

  v1::SubmitProofRequest by_path;
  by_path.set_circuit("poseidon");
  by_path.add_partitions()->set_path(d.dir + "/no-such.wtns");
  s = d.submit_request(by_path, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_NE(s.error_message().find("no-such.wtns"), std::string::npos) << s.error_message();

  // A string field that is not UTF-8 fails protobuf's parse before any handler runs: named by its
  // field and byte, not an empty INTERNAL (docs/HARDENING.md, finding 27). (The client's protobuf
  // logs that it sends such a string, and sends it.)
  v1::SubmitProofRequest latin1;
  latin1.set_circuit("poseidon");
  latin1.add_partitions()->set_wtns(read_file(poseidon_wtns));
  latin1.add_partitions()->set_input_json("{\"k\": \"12345\xff\"}");
  s = d.submit_request(latin1, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(s.error_message(), "partition 1: input JSON: not UTF-8 at byte 12");
  latin1.Clear();
  latin1.set_circuit("pos\xc3(eidon");
  s = d.submit_request(latin1, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(s.error_message(), "circuit: not UTF-8 at byte 3");

  v1::ProofResult r;
  s = d.await_status(987654, 10, r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  EXPECT_NE(s.error_message().find("987654"), std::string::npos) << s.error_message();
  EXPECT_EQ(d.cancel(987654).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(d.key_op(true, "warm", "nope").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(d.key_op(true, "lukewarm").error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  v1::RegisterCircuitRequest reg;
  reg.set_id("fake");
  reg.set_zkey_path(poseidon_wtns);  // not a zkey
  v1::RegisterCircuitResponse rr;
  grpc::ClientContext ctx;
  s = d.stub->RegisterCircuit(&ctx, reg, &rr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(poseidon_wtns), std::string::npos) << s.error_message();

  // A request id reused for another circuit (the same key, registered under a second id).
  reg.set_id("poseidon-too");
  reg.set_zkey_path(poseidon_zkey);
  grpc::ClientContext ctx2;
  ASSERT_TRUE(d.stub->RegisterCircuit(&ctx2, reg, &rr).ok());
  uint64_t first = 0;
  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), first, "sector-9").ok());
  s = d.submit(read_file(poseidon_wtns), id, "sector-9", "poseidon-too");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS) << s.error_message();

  expect_valid(d.await(good));
  expect_valid(d.await(first));
  s = d.cancel(good);  // already done
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();

  const std::string m = d.metrics();
  EXPECT_NE(m.find("cuzk_jobs_rejected_total{reason=\"unknown_circuit\"} 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_jobs_rejected_total{reason=\"bad_witness\"} 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_jobs_rejected_total{reason=\"request_id_conflict\"} 1\n"), std::string::npos) << m;
  for (const char* made_up : {"nope", "made-up-1", "made-up-2"}) {
    EXPECT_EQ(m.find(std::string("\"") + made_up + "\""), std::string::npos) << made_up << " in\n" << m;
    EXPECT_FALSE(d.status()["circuit_counters"].contains(made_up)) << made_up;
  }
  EXPECT_EQ(d.status()["rejected_by_reason"]["unknown_circuit"], 3);
}

TEST(daemon, client_verbs_print_the_engine_code_and_exit_1_on_errors) {
  daemon_proc d("cli");
  auto [rc, out] = d.cli("await 987654");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cuzk: error: daemon: not_found: job 987654: unknown"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("cancel 987654");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("daemon: not_found: job 987654"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("submit -c nope " + poseidon_wtns);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("daemon: not_found: circuit \"nope\": not registered"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("submit -c poseidon " + other_wtns);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("daemon: "), std::string::npos) << out;
  EXPECT_NE(out.find("partition 0"), std::string::npos) << out;

  std::tie(rc, out) = d.cli("submit -c poseidon " + poseidon_wtns);
  ASSERT_EQ(rc, 0) << out;
  const std::string job = out.substr(0, out.find('\n'));
  std::tie(rc, out) = d.cli("await " + job + " -o " + d.dir + "/out");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("state=done"), std::string::npos) << out;
  EXPECT_NE(out.find("s witness="), std::string::npos) << out;  // after key_load, before synthesis
  EXPECT_LT(out.find(" witness="), out.find(" synthesis="));
  EXPECT_TRUE(fs::exists(d.dir + "/out/proof.json"));
  std::tie(rc, out) = d.cli("cancel " + job);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("daemon: failed_precondition: job " + job + ": already done"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("status");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"rejected_by_reason\""), std::string::npos) << out;

  // An id re-pointed at another key only with --replace (docs/HARDENING.md, finding 5); the same
  // key is fine.
  const std::string small_zkey = data_dir + "/snarkjs/bn128/circuit.zkey";
  std::tie(rc, out) = d.cli("register poseidon " + poseidon_zkey);
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = d.cli("register poseidon " + small_zkey);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("daemon: already_exists: circuit poseidon: already registered with another key"),
            std::string::npos)
      << out;
  std::tie(rc, out) = d.cli("register poseidon --replace " + small_zkey);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("registered poseidon (replacing its key): bn128, "), std::string::npos) << out;
  EXPECT_NE(out.find("zkey " + small_zkey), std::string::npos) << out;

  // No daemon on the socket: gRPC's own UNAVAILABLE, still a clear message and exit 1.
  std::tie(rc, out) =
      run_command(std::string(CUZK_BIN) + " status --socket " + d.dir + "/nobody-listens.sock");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cuzk: error: daemon: unavailable: "), std::string::npos) << out;
}

TEST(daemon, cancels_a_queued_job_and_resubmission_is_idempotent) {
  daemon_proc d("cancel");
  const std::string w = read_file(poseidon_wtns);
  std::vector<uint64_t> ids(6);
  for (auto& id : ids) ASSERT_TRUE(d.submit(w, id).ok());
  ASSERT_TRUE(d.cancel(ids.back()).ok());
  const auto cancelled = d.await(ids.back());
  EXPECT_EQ(cancelled.state(), v1::CANCELLED);
  EXPECT_EQ(cancelled.error().rfind("cancelled: ", 0), 0u) << cancelled.error();

  uint64_t a = 0, b = 0;
  ASSERT_TRUE(d.submit(w, a, "sector-7").ok());
  ASSERT_TRUE(d.submit(w, b, "sector-7").ok());
  EXPECT_EQ(a, b);
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) expect_valid(d.await(ids[i]));
  expect_valid(d.await(a));
}

// The key's users as /status reports them (-1 when it lists no such key).
int key_users(daemon_proc& d, const std::string& circuit = "poseidon") {
  const auto st = d.status();
  for (const auto& k : st["keys"])
    if (k["circuit"] == circuit) return k["users"].get<int>();
  return -1;
}

TEST(daemon, cancels_a_running_job_at_its_next_partition_boundary) {
  // A job of 64 partitions (tens of milliseconds each on the CPU prover, seconds in all) is
  // cancelled as soon as /status shows its worker past partition 0: the cancel is accepted at once,
  // the job is still running after it, and it ends cancelled at the next boundary with only the
  // partitions already begun proved. (The worker used to be held at partition 1 by a witness read
  // from a FIFO; inputs that are not regular files are now refused, see formats/file_io.hpp.)
  daemon_proc d("cancel-running");
  const std::string w = read_file(poseidon_wtns);
  constexpr int partitions = 64;
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.set_priority(v1::NORMAL);
  for (int i = 0; i < partitions; ++i) req.add_partitions()->set_path(poseidon_wtns);
  uint64_t job = 0;
  ASSERT_TRUE(d.submit_request(req, job).ok());
  int at = -1;  // the partition the worker was on when the cancel went out
  auto past_first = [&] {
    const auto st = d.status();
    for (const auto& wk : st["workers"])
      if (wk["busy"] == true && wk["job"] == job && wk["partition"].get<int>() >= 1) {
        at = wk["partition"].get<int>();
        return true;
      }
    return false;
  };
  ASSERT_TRUE(poll_until(past_first)) << d.status().dump();

  ASSERT_TRUE(d.cancel(job).ok());
  v1::ProofResult now;
  ASSERT_TRUE(d.await_status(job, 1, now).ok());
  EXPECT_TRUE(now.state() == v1::SYNTHESIZING || now.state() == v1::PROVING) << now.state();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = d.await(job);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(r.state(), v1::CANCELLED) << r.error();
  EXPECT_EQ(r.error().rfind("cancelled: ", 0), 0u) << r.error();
  EXPECT_EQ(r.proofs_size(), 0);
  EXPECT_EQ(r.attempts(), 1u);

  // Its lease is released (just after the end is published: poll, don't race it), nothing past the
  // partition under way at the cancel (or the one it had just reached) was proved, and the daemon
  // goes on proving.
  EXPECT_TRUE(poll_until([&] { return key_users(d) == 0; })) << d.status()["keys"].dump();
  const auto counters = d.status()["circuit_counters"]["poseidon"];
  EXPECT_GE(counters["partitions_proved"].get<int>(), at);
  EXPECT_LE(counters["partitions_proved"].get<int>(), at + 2);
  EXPECT_EQ(counters["cancelled"], 1);
  EXPECT_EQ(counters["failed"], 0);
  uint64_t after = 0;
  ASSERT_TRUE(d.submit(w, after, "", "poseidon", v1::CRITICAL).ok());
  expect_valid(d.await(after));
  EXPECT_EQ(d.cancel(job).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST(daemon, a_job_past_its_deadline_fails_with_deadline_exceeded) {
  daemon_proc d("deadline", 1, "fail_expired_jobs = true\n");
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.add_partitions()->set_wtns(read_file(poseidon_wtns));
  req.set_deadline_unix_ms(1000);  // long past
  uint64_t id = 0;
  ASSERT_TRUE(d.submit_request(req, id).ok());
  const auto r = d.await(id);
  EXPECT_EQ(r.state(), v1::FAILED);
  EXPECT_EQ(r.error().rfind("deadline_exceeded: ", 0), 0u) << r.error();
  EXPECT_TRUE(r.deadline_missed());
  const auto [rc, out] = d.cli("await " + std::to_string(id));
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("state=failed"), std::string::npos) << out;
  EXPECT_NE(out.find("error=deadline_exceeded: "), std::string::npos) << out;
}

TEST(daemon, kill_9_with_queued_jobs_then_restart_delivers_every_proof) {
  daemon_proc d("kill9");
  const std::string w = read_file(poseidon_wtns);
  std::vector<uint64_t> ids(10);
  for (auto& id : ids) ASSERT_TRUE(d.submit(w, id).ok());
  d.kill9();  // most of the 10 are still queued: each proof takes tens of ms
  d.start();
  v1::GetStatusResponse st;
  grpc::ClientContext ctx;
  ASSERT_TRUE(d.stub->GetStatus(&ctx, {}, &st).ok());
  EXPECT_EQ(st.json().find("\"recovered\": 0"), std::string::npos) << "no job was left queued by the kill";
  for (auto id : ids) expect_valid(d.await(id));
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 4: a second daemon on the same data directory, or on the same HTTP or
// gRPC TCP port, stops at start-up with the reason (`timeout` turns one that wrongly keeps running
// into a failure), and the first one keeps proving.
TEST(daemon, a_second_daemon_on_the_same_data_dir_or_port_refuses_to_start) {
  const int grpc_port = free_port();
  daemon_proc d("lock", 1, "listen = \"127.0.0.1:" + std::to_string(grpc_port) + "\"\n");
  auto [rc, out] = run_command("timeout 20 " + std::string(CUZK_BIN) + " daemon --config " + d.config);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("in use by another daemon (pid " + std::to_string(d.pid)), std::string::npos) << out;

  // Another data directory, the same ports: first the HTTP one, then gRPC's alone.
  const std::string other = d.dir + "/other.toml";
  std::ofstream(other) << "data_dir = \"" << d.dir << "/data2\"\nsocket = \"" << d.dir
                       << "/d2.sock\"\nhttp = \"127.0.0.1:" << d.http_port << "\"\nlog_level = \"warn\"\n";
  std::tie(rc, out) = run_command("timeout 20 " + std::string(CUZK_BIN) + " daemon --config " + other);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cannot bind 127.0.0.1:" + std::to_string(d.http_port)), std::string::npos) << out;
  std::ofstream(other) << "data_dir = \"" << d.dir << "/data3\"\nsocket = \"" << d.dir
                       << "/d3.sock\"\nlisten = \"127.0.0.1:" << grpc_port << "\"\nlog_level = \"warn\"\n";
  std::tie(rc, out) = run_command("timeout 20 " + std::string(CUZK_BIN) + " daemon --config " + other);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("cannot listen"), std::string::npos) << out;

  uint64_t id = 0;
  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), id).ok());
  expect_valid(d.await(id));
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 6: a witness path naming a FIFO parked a request thread for good, and
// SIGTERM then never finished. Now it is refused at once (with the one message every refused path
// gets, witness_dirs.hpp in engine/jobs) and the drain exits 0.
TEST(daemon, a_fifo_as_witness_path_is_refused_and_sigterm_still_exits) {
  daemon_proc d("fifo");
  const std::string fifo = d.dir + "/w.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.add_partitions()->set_path(fifo);
  v1::ProofResult r;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + 20s);
  const auto s = d.stub->Prove(&ctx, req, &r);
  EXPECT_NE(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  const std::string all = s.error_message() + r.error();
  EXPECT_NE(
      all.find("w.fifo\": refused: the daemon reads a witness path only when it names a readable regular "
               "file under one of its witness_dirs"),
      std::string::npos)
      << all;
  uint64_t id = 0;
  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), id).ok());
  expect_valid(d.await(id));
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 12: timeout_ms = 2^64 - 1 wrapped to a deadline in the past and
// AwaitProof returned at once with the job still queued; and `cuzk await --timeout-ms` exited 0 for
// a job not finished. Five jobs queue ahead, so the last cannot finish within a millisecond.
TEST(daemon, await_timeouts_saturate_and_an_unfinished_job_is_exit_1) {
  daemon_proc d("await-timeout");
  const std::string w = read_file(poseidon_wtns);
  // A head job of 64 partitions (~2 s on one worker) keeps the awaited job queued behind it while
  // the CLI starts: five single jobs (~0.5 s) once finished first on a loaded machine.
  uint64_t head = 0;
  ASSERT_TRUE(d.submit(w, head, "", "poseidon", v1::NORMAL, 64).ok());
  std::vector<uint64_t> ids(2);
  for (auto& id : ids) ASSERT_TRUE(d.submit(w, id).ok());
  auto [rc, out] = d.cli("await " + std::to_string(ids.back()) + " --timeout-ms 1");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("job " + std::to_string(ids.back()) + ": not finished when the wait ended"),
            std::string::npos)
      << out;
  v1::ProofResult r;
  ASSERT_TRUE(d.await_status(ids.back(), UINT64_MAX, r).ok());
  expect_valid(r);
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 11: `-o` into a folder that cannot be made exited 0 and wrote nothing.
// (A folder under a regular file: a read-only folder does not stop root, who runs some CI.)
TEST(daemon, await_and_prove_remote_out_into_an_unwritable_folder_exit_1) {
  daemon_proc d("out-dir");
  std::ofstream(d.dir + "/a-file") << "x";
  auto [rc, out] = d.cli("prove-remote -c poseidon " + poseidon_wtns + " -o " + d.dir + "/a-file/out");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find(d.dir + "/a-file/out: --out: cannot create the folder"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("submit -c poseidon " + poseidon_wtns);
  ASSERT_EQ(rc, 0) << out;
  const std::string job = out.substr(0, out.find('\n'));
  std::tie(rc, out) = d.cli("await " + job + " -o " + d.dir + "/a-file/out");
  EXPECT_EQ(rc, 1) << out;
  std::tie(rc, out) = d.cli("await " + job + " -o " + d.dir + "/ok");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_GT(fs::file_size(d.dir + "/ok/proof.json"), 0u);
  EXPECT_GT(fs::file_size(d.dir + "/ok/public.json"), 0u);
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 15: the job database (with its -wal while the daemon runs, and its
// mark) is mode 0600 and the data directory 0700. There is no -shm: the store keeps its WAL index
// in memory (finding 20).
TEST(daemon, state_files_are_private_to_the_daemons_user) {
  daemon_proc d("modes");
  uint64_t id = 0;
  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), id).ok());
  expect_valid(d.await(id));
  auto mode = [](const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode(d.dir + "/data"), 0700u);
  for (const char* f :
       {"/data/jobs.sqlite", "/data/jobs.sqlite-wal", "/data/jobs.sqlite.mark", "/data/cuzk.lock"})
    EXPECT_EQ(mode(d.dir + f), 0600u) << f;
  EXPECT_FALSE(fs::exists(d.dir + "/data/jobs.sqlite-shm"));
  EXPECT_EQ(d.term(), 0);
}

// docs/HARDENING.md, finding 15: /status over HTTP showed request ids and zkey paths to whoever
// reached the port. HTTP serves the public view now; `cuzk status` (gRPC over the 0600 socket) the
// full one.
TEST(daemon, http_status_names_no_request_id_or_path_and_the_socket_status_does) {
  daemon_proc d("private-status");
  const std::string w = read_file(poseidon_wtns);
  std::vector<uint64_t> ids(4);
  for (std::size_t i = 0; i < ids.size(); ++i)
    ASSERT_TRUE(d.submit(w, ids[i], "rid-private-" + std::to_string(i)).ok());
  httplib::Client http("127.0.0.1", d.http_port);
  auto st = http.Get("/status");
  const auto full = d.status();
  ASSERT_TRUE(st);
  ASSERT_EQ(st->status, 200);
  for (const std::string& secret : {std::string("rid-private-"), poseidon_zkey, d.dir})
    EXPECT_EQ(st->body.find(secret), std::string::npos) << secret << " in\n" << st->body;
  const auto pub = nlohmann::json::parse(st->body);
  ASSERT_GE(pub["keys"].size(), 1u);
  EXPECT_EQ(pub["keys"][0]["circuit"], "poseidon");
  EXPECT_TRUE(pub["config"].contains("workers"));
  for (const auto& j : full["jobs"])  // whichever had not ended yet
    EXPECT_EQ(j["request_id"].get<std::string>().rfind("rid-private-", 0), 0u) << j.dump();
  EXPECT_EQ(full["keys"][0]["path"], poseidon_zkey);
  EXPECT_EQ(full["config"]["data_dir"], d.dir + "/data");
  for (auto id : ids) expect_valid(d.await(id));
  for (const char* doc : {"/metrics", "/trace"}) {
    auto r = http.Get(doc);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body.find(d.dir), std::string::npos) << doc;
    EXPECT_EQ(r->body.find("rid-private-"), std::string::npos) << doc;
  }
  EXPECT_EQ(d.term(), 0);
}

// A 200 MB inline witness once cost the daemon 586 MB before its size was checked. The message
// limit is derived from the registered keys (4 MiB here: the Poseidon key's witness is 17 kB), and
// a larger message is refused before the engine sees it: no job, no refusal counted by the engine,
// and the client names the limit and the key that admits it (this daemon has witness_dirs, so a
// path is offered too); one far larger is cut off while it arrives, the daemon's peak growing by
// less than the message. Under the limit the engine checks the witness against its key, as before.
TEST(daemon, an_inline_witness_over_the_derived_message_limit_is_refused_before_the_engine) {
  daemon_proc d("message-limit", 1, "request_memory_mib = 40\n");
  std::string big = read_file(poseidon_wtns);
  big.resize(std::size_t{5} << 20);
  uint64_t id = 0;
  auto s = d.submit(big, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_message().find("the daemon's message limit"), std::string::npos) << s.error_message();
  auto st = d.status();
  EXPECT_EQ(st["counters"]["submitted"], 0);
  EXPECT_EQ(st["counters"]["rejected"], 0);  // the engine never saw it

  std::ofstream(d.dir + "/big.wtns", std::ios::binary) << big;
  const auto [rc, out] = d.cli("submit -c poseidon " + d.dir + "/big.wtns");
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("resource_exhausted: message: expected at most 4194304 bytes (the daemon's "
                     "message limit), found 5242"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("set max_message_mib = 6 in the daemon's config to admit it, or send the witness by path "
                     "(--path) from one of its witness_dirs"),
            std::string::npos)
      << out;

  // Far past the limit, the transport's quota (request_memory_mib = 40) cuts the message off while
  // it arrives: gRPC alone would have read all 100 MB before refusing it.
  const auto peak_kb = [&] {
    const std::string proc = read_file("/proc/" + std::to_string(d.pid) + "/status");
    return std::stoll(proc.substr(proc.find("VmHWM:") + 6));
  };
  const long long before_kb = peak_kb();
  std::string huge = read_file(poseidon_wtns);
  huge.resize(std::size_t{100} << 20);
  s = d.submit(huge, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_LT(peak_kb() - before_kb, 60 * 1024) << "the daemon's peak grew by " << peak_kb() - before_kb << " kB";
  huge = {};
  EXPECT_EQ(d.status()["counters"]["rejected"], 0);

  big.resize(std::size_t{3} << 20);  // under the limit, over what the key's witness can be
  s = d.submit(big, id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("partition 0: inline witness: expected at most"), std::string::npos)
      << s.error_message();
  EXPECT_EQ(d.status()["counters"]["rejected"], 1);

  ASSERT_TRUE(d.submit(read_file(poseidon_wtns), id).ok());
  expect_valid(d.await(id));
  EXPECT_EQ(d.term(), 0);
}

// When a job began running, in Unix ms: its submission plus the time it waited in the queue.
double started_ms(const v1::ProofResult& r) {
  return static_cast<double>(r.submitted_unix_ms()) + r.timings().queue_wait() * 1e3;
}

TEST(daemon, a_critical_job_overtakes_every_queued_normal_job) {
  daemon_proc d("critical");
  const std::string w = read_file(poseidon_wtns);
  // A slow head job (16 partitions, ~0.5 s) keeps the one worker busy while the rest queue up.
  uint64_t head = 0;
  ASSERT_TRUE(d.submit(w, head, "", "poseidon", v1::NORMAL, 16).ok());
  std::vector<uint64_t> normal(20);
  for (auto& id : normal) ASSERT_TRUE(d.submit(w, id, "", "poseidon", v1::NORMAL).ok());
  uint64_t crit = 0;
  ASSERT_TRUE(d.submit(w, crit, "", "poseidon", v1::CRITICAL).ok());

  const auto c = d.await(crit);
  expect_valid(c);
  int behind = 0;
  for (auto id : normal) {
    const auto n = d.await(id);
    expect_valid(n);
    // A NORMAL job that had not started when the CRITICAL one arrived must start after it.
    if (started_ms(n) > static_cast<double>(c.submitted_unix_ms()) + 1.0) {
      // Its start, not the CRITICAL job's finish: the worker may begin the next job while the
      // previous one's result is still being recorded.
      EXPECT_GT(started_ms(n), started_ms(c))
          << "job " << id << " started " << started_ms(n) - started_ms(c) << " ms after the CRITICAL job";
      ++behind;
    }
  }
  const auto h = d.await(head);
  EXPECT_EQ(h.state(), v1::DONE) << h.error();
  EXPECT_EQ(h.proofs_size(), 16);
  EXPECT_GE(behind, 15) << "the head job did not hold the queue: the test proves little";
}

TEST(daemon, a_partial_batch_is_flushed_when_its_wait_runs_out) {
  daemon_proc d("batch", 1, "max_batch_size = 8\nmax_batch_wait_ms = 400\n");
  const std::string w = read_file(poseidon_wtns);
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(d.submit(w, a).ok());
  ASSERT_TRUE(d.submit(w, b).ok());
  for (auto id : {a, b}) {
    const auto r = d.await(id);
    expect_valid(r);
    // Two of eight: the batch left on its timeout, not before it, and not long after.
    EXPECT_GE(r.timings().queue_wait(), 0.3) << "job " << id;
    EXPECT_LT(r.timings().total(), 5.0) << "job " << id;
  }
}

TEST(daemon, preload_and_evict_show_in_the_status_key_tier) {
  daemon_proc d("keys", 1, "hot_budget_mib = 16\n");  // the default hot budget is 0: no hot tier
  EXPECT_EQ(d.key_tier().rfind("hot", 0), std::string::npos) << d.key_tier();
  auto s = d.key_op(true, "hot");
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(d.key_tier().rfind("hot", 0), 0u) << d.status()["keys"].dump();  // "hot" or "hot(pageable)"
  ASSERT_TRUE(d.key_op(false, "warm").ok());
  EXPECT_EQ(d.key_tier(), "warm");
  ASSERT_TRUE(d.key_op(false, "cold").ok());
  EXPECT_EQ(d.key_tier(), "cold");
  s = d.key_op(true, "hot", "nope");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
}

// docs/HARDENING.md, finding 21: a zkey overwritten in place with another key of the same circuit
// (the same sizes) was loaded again under its id after an evict or a restart, and its proofs passed
// the daemon's own check but verified only under the new key. Now every load checks the file
// against the digest registered, and the id's jobs fail naming the file and both digests until the
// file is registered again with --replace.
TEST(daemon, a_key_overwritten_under_its_id_fails_its_jobs_until_registered_again) {
  daemon_proc d("key-changed", 1);
  const std::string key = d.dir + "/k.zkey", other = d.dir + "/other.zkey";
  fs::copy_file(poseidon_zkey, key);
  // Another key of the same circuit: the same nVars, nPublic and domain, other points.
  auto [rc, out] = run_command(std::string(CUZK_BIN) + " setup --cpu " + data_dir +
                               "/snarkjs/bn128/poseidon/circuit.r1cs " + other);
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = d.cli("register k " + key);
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = d.cli("prove-remote -c k " + poseidon_wtns);
  ASSERT_EQ(rc, 0) << out;
  fs::copy_file(other, key, fs::copy_options::overwrite_existing);  // in place: the same inode
  ASSERT_TRUE(d.key_op(false, "cold", "k").ok());
  const auto changed = [&](const std::string& what) {
    const auto [prc, pout] = d.cli("prove-remote -c k " + poseidon_wtns);
    EXPECT_EQ(prc, 1) << what << ": " << pout;
    EXPECT_NE(pout.find(key + ": the key changed since it was registered (digest fnv1a64:"), std::string::npos)
        << what << ": " << pout;
    const auto first = pout.find("fnv1a64:"), second = pout.find("fnv1a64:", first + 1);
    ASSERT_NE(second, std::string::npos) << what << ": " << pout;
    EXPECT_NE(pout.substr(first, 24), pout.substr(second, 24)) << what << ": " << pout;
    EXPECT_NE(pout.find("--replace"), std::string::npos) << what << ": " << pout;
  };
  changed("after an evict");
  // A restart restores the id with the digest registered, not the file's.
  EXPECT_EQ(d.term(), 0);
  d.start();
  changed("after a restart");
  // The same file again without --replace is another key; with it, the id proves with the new key.
  std::tie(rc, out) = d.cli("register k " + key);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("already registered with another key"), std::string::npos) << out;
  std::tie(rc, out) = d.cli("register k " + key + " --replace");
  ASSERT_EQ(rc, 0) << out;
  std::tie(rc, out) = d.cli("prove-remote -c k " + poseidon_wtns);
  EXPECT_EQ(rc, 0) << out;
}

TEST(daemon, bench_batch_reports_twenty_verified_proofs) {
  daemon_proc d("bench", 1, "max_batch_size = 4\nmax_batch_wait_ms = 20\n");
  const auto [rc, out] = d.cli("bench batch --circuit poseidon --count 20 --concurrency 4 "
                               "--priority-mix CRITICAL:1,NORMAL:3 " + poseidon_wtns);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("mode=batch proofs=20 verified=20 failed=0"), std::string::npos) << out;
  EXPECT_NE(out.find("CRITICAL"), std::string::npos) << out;
  EXPECT_NE(out.find("p99_ms"), std::string::npos) << out;
  // The hardware lines: a CPU daemon says it has no GPU instead of printing zeros.
  EXPECT_NE(out.find("\nmemory rss_peak="), std::string::npos) << out;
  EXPECT_NE(out.find("\ngpu: no GPU (backend cpu)\n"), std::string::npos) << out;
}

TEST(daemon, bench_upload_times_two_refused_calls_and_makes_no_job) {
  daemon_proc d("upload", 1);
  const auto [rc, out] = d.cli("bench upload --circuit poseidon --count 3 " + poseidon_wtns);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("upload bytes="), std::string::npos) << out;
  EXPECT_NE(out.find("\nno such circuit "), std::string::npos) << out;
  EXPECT_NE(out.find("\nlast value >= r "), std::string::npos) << out;
  const auto st = d.status();
  EXPECT_EQ(st["counters"]["submitted"], 0) << st["counters"].dump();
  EXPECT_EQ(st["rejected_by_reason"]["unknown_circuit"], 3) << st["rejected_by_reason"].dump();
  EXPECT_EQ(st["rejected_by_reason"]["bad_witness"], 3) << st["rejected_by_reason"].dump();
  // A witness of another curve is refused on its header, not by the value check the call is for:
  // the bench says so and fails rather than time the wrong thing.
  const auto [rc2, out2] = d.cli("bench upload --circuit poseidon --count 1 " + data_dir +
                                 "/snarkjs/bls12381/poseidon/circuit.wtns");
  EXPECT_EQ(rc2, 1) << out2;
  EXPECT_NE(out2.find("a bls12-381 witness, but the circuit's key is a bn254 key"), std::string::npos) << out2;
}

}  // namespace
}  // namespace cuzk::service
