// The real daemon binary (`cuzk daemon`) on a temporary socket and data dir, driven through the
// generated gRPC stub: a proof that verifies, bad requests answered with clear errors while another
// job completes, cancel, idempotent resubmission, the HTTP endpoints, kill -9 with queued jobs
// followed by a restart that delivers every proof, a CRITICAL job overtaking queued NORMAL ones, a
// partial batch flushed on its timeout, preload/evict seen in the status key tier, and
// `cuzk bench batch` against the daemon.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/client.hpp"

namespace cuzk::service {
namespace {

namespace v1 = cuzk::v1;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string data = CUZK_TEST_DATA_DIR;
const std::string zkey = data + "/snarkjs/bn128/poseidon/circuit.zkey";
const std::string wtns = data + "/snarkjs/bn128/poseidon/circuit.wtns";
const std::string vk = data + "/snarkjs/bn128/poseidon/verification_key.json";
const std::string other_wtns = data + "/snarkjs/bn128/circuit.wtns";  // another circuit: wrong length

std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(s);
  return ntohs(a.sin_port);
}

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
                          << "\nlog_level = \"warn\"\n"
                          << extra << "[[circuit]]\nid = \"poseidon\"\nzkey = \"" << zkey << "\"\n";
    start();
  }
  ~daemon_proc() {
    kill9();
    fs::remove_all(dir);
  }
  void start() {
    pid = ::fork();
    if (pid == 0) {
      ::execl(CUZK_BIN, CUZK_BIN, "daemon", "--config", config.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    auto ch = connect(sock, "");
    ASSERT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s)) << "daemon did not come up";
    stub = make_stub(ch);
  }
  void kill9() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  int term() {
    int st = 0;
    ::kill(pid, SIGTERM);
    ::waitpid(pid, &st, 0);
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  grpc::Status submit(const std::string& wtns_bytes, uint64_t& id, const std::string& request_id = {},
                      const std::string& circuit = "poseidon", v1::Priority prio = v1::PRIORITY_UNSPECIFIED,
                      int partitions = 1) {
    v1::SubmitProofRequest r;
    r.set_circuit(circuit);
    r.set_request_id(request_id);
    r.set_priority(prio);
    for (int i = 0; i < partitions; ++i) r.add_partitions()->set_wtns(wtns_bytes);
    v1::SubmitProofResponse resp;
    grpc::ClientContext ctx;
    auto s = stub->SubmitProof(&ctx, r, &resp);
    id = resp.job_id();
    return s;
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
    v1::AwaitProofRequest r;
    r.set_job_id(id);
    r.set_timeout_ms(60000);
    v1::ProofResult out;
    grpc::ClientContext ctx;
    auto s = stub->AwaitProof(&ctx, r, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }
};

void expect_valid(const v1::ProofResult& r) {
  ASSERT_EQ(r.state(), v1::DONE) << r.error();
  ASSERT_EQ(r.proofs_size(), 1);
  auto key = formats::verification_key_from_json<bn254>(read_file(vk), "verification_key.json");
  auto proof = formats::proof_from_json<bn254>(r.proofs(0).proof_json(), "proof_json");
  auto pub = formats::public_from_json<bn254>(r.proofs(0).public_json(), "public_json");
  ASSERT_TRUE(key && proof && pub);
  EXPECT_TRUE(groth16::verify<bn254>(*key, *pub, *proof).is_ok());
}

TEST(daemon, proves_and_the_proof_verifies_and_http_answers) {
  daemon_proc d("prove");
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.add_partitions()->set_path(wtns);  // by path on the daemon's disk
  v1::ProofResult r;
  grpc::ClientContext ctx;
  ASSERT_TRUE(d.stub->Prove(&ctx, req, &r).ok());
  expect_valid(r);
  EXPECT_GT(r.timings().total(), 0);
  EXPECT_GT(r.timings().prove(), 0);

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
  auto t = http.Get("/trace");
  ASSERT_TRUE(t);
  EXPECT_NE(t->body.find("traceEvents"), std::string::npos);
  EXPECT_EQ(d.term(), 0);  // SIGTERM drains and exits 0
}

TEST(daemon, bad_requests_get_clear_errors_while_another_job_completes) {
  daemon_proc d("bad");
  uint64_t good = 0, id = 0;
  ASSERT_TRUE(d.submit(read_file(wtns), good).ok());

  auto s = d.submit(read_file(wtns), id, "", "nope");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("not registered"), std::string::npos) << s.error_message();

  s = d.submit("not a witness file", id);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("partition 0"), std::string::npos) << s.error_message();

  s = d.submit(read_file(other_wtns), id);  // a witness of another circuit: wrong length
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();

  v1::RegisterCircuitRequest reg;
  reg.set_id("fake");
  reg.set_zkey_path(wtns);  // not a zkey
  v1::RegisterCircuitResponse rr;
  grpc::ClientContext ctx;
  s = d.stub->RegisterCircuit(&ctx, reg, &rr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(wtns), std::string::npos) << s.error_message();

  expect_valid(d.await(good));
}

TEST(daemon, cancels_a_queued_job_and_resubmission_is_idempotent) {
  daemon_proc d("cancel");
  const std::string w = read_file(wtns);
  std::vector<uint64_t> ids(6);
  for (auto& id : ids) ASSERT_TRUE(d.submit(w, id).ok());
  v1::CancelProofRequest c;
  c.set_job_id(ids.back());
  v1::CancelProofResponse cr;
  grpc::ClientContext ctx;
  ASSERT_TRUE(d.stub->CancelProof(&ctx, c, &cr).ok());
  EXPECT_EQ(d.await(ids.back()).state(), v1::CANCELLED);

  uint64_t a = 0, b = 0;
  ASSERT_TRUE(d.submit(w, a, "sector-7").ok());
  ASSERT_TRUE(d.submit(w, b, "sector-7").ok());
  EXPECT_EQ(a, b);
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) expect_valid(d.await(ids[i]));
  expect_valid(d.await(a));
}

TEST(daemon, kill_9_with_queued_jobs_then_restart_delivers_every_proof) {
  daemon_proc d("kill9");
  const std::string w = read_file(wtns);
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

// When a job began running, in Unix ms: its submission plus the time it waited in the queue.
double started_ms(const v1::ProofResult& r) {
  return static_cast<double>(r.submitted_unix_ms()) + r.timings().queue_wait() * 1e3;
}

TEST(daemon, a_critical_job_overtakes_every_queued_normal_job) {
  daemon_proc d("critical");
  const std::string w = read_file(wtns);
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
  const std::string w = read_file(wtns);
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
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
}

TEST(daemon, bench_batch_reports_twenty_verified_proofs) {
  daemon_proc d("bench", 1, "max_batch_size = 4\nmax_batch_wait_ms = 20\n");
  const std::string cmd = std::string(CUZK_BIN) + " bench batch --socket " + d.sock +
                          " --circuit poseidon --count 20 --concurrency 4 --priority-mix CRITICAL:1,NORMAL:3 " +
                          wtns + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = ::pclose(p);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << out;
  EXPECT_NE(out.find("mode=batch proofs=20 verified=20 failed=0"), std::string::npos) << out;
  EXPECT_NE(out.find("CRITICAL"), std::string::npos) << out;
  EXPECT_NE(out.find("p99_ms"), std::string::npos) << out;
}

}  // namespace
}  // namespace cuzk::service
