// SPDX-License-Identifier: MIT OR Apache-2.0
// The real daemon binary with backend = "gpu": where a CUDA device exists, the snarkjs Poseidon
// fixtures of both curves preloaded onto the device over the API, proved there by two workers,
// every proof checked against snarkjs's verification_key.json, results carrying where they ran and
// the GPU phase times, the status document and metrics naming the device, and a key evicted from
// the device coming back on the next proof; then what the daemon sees of the GPU: kernel-lock
// busy time per slot agreeing with the backend's own count, NVML sampling the device it proves on,
// the gauges in /metrics, a lane per device in /trace, and `cuzk bench`'s memory and GPU lines.
// Where there is none, the daemon refuses to start with backend = "gpu" and says why.
//
// The binaries may run away from their build tree (copied to a machine with an NVIDIA GPU):
// CUZK_BIN and CUZK_TEST_DATA_DIR in the environment override the compiled-in paths.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

using namespace test;

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

const std::string bin = env_or("CUZK_BIN", CUZK_BIN);
const std::string data = env_or("CUZK_TEST_DATA_DIR", CUZK_TEST_DATA_DIR);

// The device nodes the NVIDIA driver creates; without them no CUDA device can answer.
bool gpu_present() { return fs::exists("/dev/nvidiactl") && fs::exists("/dev/nvidia0"); }

struct circuit {
  std::string id, dir;
  bool bls;
};
const circuit bn{"bn", data + "/snarkjs/bn128/poseidon/", false};
const circuit bls{"bls", data + "/snarkjs/bls12381/poseidon/", true};

struct gpu_daemon {
  std::string dir, sock, config, log;
  int http_port = free_port();
  pid_t pid = -1;
  std::unique_ptr<v1::ProvingEngine::Stub> stub;

  explicit gpu_daemon(const std::string& name) {
    dir = (fs::temp_directory_path() / ("cuzk-gpu-daemon-" + name + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    sock = dir + "/d.sock";
    config = dir + "/cuzk.toml";
    log = dir + "/daemon.log";
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock << "\"\nhttp = \"127.0.0.1:"
                          << http_port << "\"\nbackend = \"gpu\"\ngpu_workers_per_device = 2\nlog_level = \"info\"\n"
                          << "[[circuit]]\nid = \"bn\"\nzkey = \"" << bn.dir << "circuit.zkey\"\n"
                          << "[[circuit]]\nid = \"bls\"\nzkey = \"" << bls.dir << "circuit.zkey\"\n";
    pid = start_daemon(config, log, bin);
  }
  ~gpu_daemon() {
    kill9(pid);
    fs::remove_all(dir);
  }
  bool connect_within(std::chrono::seconds s) {
    auto ch = connect(sock, "");
    if (!ch->WaitForConnected(std::chrono::system_clock::now() + s)) return false;
    stub = make_stub(ch);
    return true;
  }
  // The exit code once the process ends within `limit`, or -1.
  int exit_code_within(std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
      }
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }
  nlohmann::json status() {
    v1::GetStatusResponse st;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub->GetStatus(&ctx, {}, &st).ok());
    return nlohmann::json::parse(st.json());
  }
  std::string metrics() {
    v1::GetMetricsResponse m;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub->GetMetrics(&ctx, {}, &m).ok());
    return m.text();
  }
  nlohmann::json key(const std::string& id) {
    const auto st = status();
    for (const auto& k : st["keys"])
      if (k["circuit"] == id) return k;
    return {};
  }
  grpc::Status key_op(bool preload, const std::string& id, const std::string& tier) {
    v1::KeyRequest r;
    r.set_circuit(id);
    r.set_tier(tier);
    v1::KeyResponse resp;
    grpc::ClientContext ctx;
    return preload ? stub->PreloadKey(&ctx, r, &resp) : stub->EvictKey(&ctx, r, &resp);
  }
  v1::ProofResult prove(const circuit& c) {
    v1::SubmitProofRequest r;
    r.set_circuit(c.id);
    r.add_partitions()->set_wtns(read_file(c.dir + "circuit.wtns"));
    v1::ProofResult out;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 60s);
    auto s = stub->Prove(&ctx, r, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }
};

template <class C>
void expect_verifies_as(const v1::ProofResult& r, const circuit& c) {
  const auto& p = r.proofs(0);
  EXPECT_EQ(proof_check<C>(c.dir + "verification_key.json", p.proof_json(), p.public_json()), "");
  EXPECT_EQ(p.public_json(), read_file(c.dir + "public.json"));
}

void expect_verifies(const v1::ProofResult& r, const circuit& c) {
  ASSERT_EQ(r.state(), v1::DONE) << r.error();
  ASSERT_EQ(r.proofs_size(), 1);
  if (c.bls)
    expect_verifies_as<bls12_381>(r, c);
  else
    expect_verifies_as<bn254>(r, c);
}

TEST(daemon_gpu, proves_on_the_device_and_reports_where_and_how_long) {
  if (!gpu_present()) GTEST_SKIP() << "no NVIDIA device nodes (/dev/nvidiactl): the gpu tests need an NVIDIA GPU";
  gpu_daemon d("prove");
  ASSERT_TRUE(d.connect_within(60s)) << "daemon did not come up:\n" << read_file(d.log);
  auto st = d.status();
  EXPECT_EQ(st["backend"], "gpu");
  ASSERT_GE(st["devices"].size(), 1u) << st.dump(2);
  EXPECT_EQ(st["devices"][0]["name"], "device:0");
  EXPECT_GT(st["devices"][0]["key_budget_bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(st["workers"].size(), 2 * st["devices"].size());
  EXPECT_EQ(st["workers"][0]["device"], "device:0");

  for (const auto* c : {&bn, &bls}) ASSERT_TRUE(d.key_op(true, c->id, "device:0").ok());
  EXPECT_EQ(d.key("bn")["tier"], "device:0");
  EXPECT_GT(d.key("bls")["device_bytes"].get<uint64_t>(), 0u);

  for (int i = 0; i < 6; ++i) {
    const circuit& c = i % 2 == 0 ? bn : bls;
    SCOPED_TRACE(c.id + " " + std::to_string(i));
    const auto r = d.prove(c);
    expect_verifies(r, c);
    EXPECT_EQ(r.ran_on(), "device:0");
    EXPECT_GT(r.timings().h2d(), 0);
    EXPECT_GT(r.timings().h2d_gb_per_s(), 0);
    EXPECT_GT(r.timings().msm_h(), 0);
    EXPECT_GT(r.timings().msm_b2(), 0);
    EXPECT_GT(r.timings().gpu_busy(), 0);
  }
  const auto k = d.key("bls");
  ASSERT_EQ(k["devices"].size(), 1u) << k.dump(2);
  EXPECT_EQ(k["devices"][0]["uploads"], 1);
  EXPECT_EQ(k["devices"][0]["users"], 0);
  EXPECT_GT(k["devices"][0]["last_use_unix_ms"].get<int64_t>(), 0);
  // How the budget laid the copy out, in words (gpu_device_key::placement).
  EXPECT_EQ(k["devices"][0]["placement"].get<std::string>().rfind("streamed: ", 0), 0u) << k.dump(2);

  const std::string m = d.metrics();
  EXPECT_NE(m.find("cuzk_phase_seconds_count{circuit=\"bn\",phase=\"msm_h\"} 3"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_device_proofs_total{device=\"device:0\"} 6"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_device_busy_seconds_total{device=\"device:0\"}"), std::string::npos) << m;

  // Evicted from the device (the host copy stays), back on the next proof.
  ASSERT_TRUE(d.key_op(false, "bls", "device:0").ok());
  EXPECT_EQ(d.key("bls")["tier"], "warm");
  const auto again = d.prove(bls);
  expect_verifies(again, bls);
  EXPECT_EQ(again.ran_on(), "device:0");
  EXPECT_EQ(d.key("bls")["devices"][0]["uploads"], 2);
  EXPECT_EQ(d.key_op(true, "bls", "device:9").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(daemon_gpu, sees_kernel_busy_nvml_device_lanes_and_bench_lines) {
  if (!gpu_present()) GTEST_SKIP() << "no NVIDIA device nodes (/dev/nvidiactl): the gpu tests need an NVIDIA GPU";
  gpu_daemon d("observe");
  ASSERT_TRUE(d.connect_within(60s)) << "daemon did not come up:\n" << read_file(d.log);
  ASSERT_TRUE(d.key_op(true, bn.id, "device:0").ok());
  const auto [rc, out] =
      run_command(bin + " bench single --socket " + d.sock + " --circuit bn --count 8 " + bn.dir + "circuit.wtns");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("memory rss_peak="), std::string::npos) << out;
  EXPECT_NE(out.find("device:0 gpu_busy="), std::string::npos) << out;
  EXPECT_NE(out.find("device:0 nvml gpu="), std::string::npos) << out;
  EXPECT_EQ(out.find("no GPU"), std::string::npos) << out;
  std::printf("%s", out.c_str());

  const auto st = d.status();
  const auto& dev = st["devices"][0];
  const auto& kb = dev["kernel_busy"];
  // At least one held interval per proof: the union of its two sides' (gpu_prover_impl.hpp,
  // add_held_union), one where they overlapped, two otherwise.
  EXPECT_GE(kb["intervals"].get<uint64_t>(), 8u) << dev.dump(2);
  EXPECT_GT(kb["busy_s"].get<double>(), 0);
  EXPECT_LE(kb["ratio"].get<double>(), 1.0);
  EXPECT_LE(kb["window_ratio"].get<double>(), 1.0);
  // The same lock intervals the backend sums per proof (lock_held_ms), to the microsecond per span.
  EXPECT_NEAR(kb["busy_s"].get<double>(), dev["busy_s"].get<double>(), 1e-3) << dev.dump(2);
  EXPECT_GE(st["memory"]["rss_peak_bytes"].get<uint64_t>(), st["memory"]["rss_bytes"].get<uint64_t>());
  const auto& g = st["gpu_utilization"];
  ASSERT_EQ(g["monitor"], "running") << g.dump(2);
  ASSERT_TRUE(dev["nvml_index"].is_number_integer()) << dev.dump(2);
  const auto& n = g["devices"][dev["nvml_index"].get<int>()];
  EXPECT_GT(n["samples"].get<uint64_t>(), 0u);
  EXPECT_GT(n["memory_used_bytes"].get<uint64_t>(), 0u);
  EXPECT_GE(n["memory_used_peak_bytes"].get<uint64_t>(), n["memory_used_bytes"].get<uint64_t>());
  EXPECT_GT(n["memory_total_bytes"].get<uint64_t>(), n["memory_used_bytes"].get<uint64_t>());
  EXPECT_EQ(n["slots"][0], "device:0");

  const std::string m = d.metrics();
  EXPECT_NE(m.find("cuzk_gpu_nvml_up 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_gpu_sm_busy_ratio{gpu=\""), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_gpu_memory_used_bytes{gpu=\""), std::string::npos) << m;
  EXPECT_NE(m.find("cuzk_gpu_kernel_busy_seconds_total{device=\"device:0\",gpu=\""), std::string::npos) << m;

  httplib::Client http("127.0.0.1", d.http_port);
  auto t = http.Get("/trace");
  ASSERT_TRUE(t);
  const auto trace = nlohmann::json::parse(t->body);
  std::string lane;
  std::set<std::string> names;
  std::size_t held = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 100) lane = e["args"]["name"];
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("tid")) << e.dump();
    names.insert(e["name"].get<std::string>());
    held += e["cat"] == "kernel_lock";
  }
  EXPECT_EQ(lane.rfind("device:0 (", 0), 0u) << lane;
  EXPECT_GE(held, 8u);
  for (const char* part : {"msm_abc", "ntt_h", "msm_a", "msm_b1", "msm_b2", "msm_c", "synthesis", "ntt", "msm_h"})
    EXPECT_TRUE(names.count(part)) << part;
}

TEST(daemon_gpu, backend_gpu_without_a_device_refuses_to_start) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present: the refusal is for machines without one";
  gpu_daemon d("nodevice");
  EXPECT_EQ(d.exit_code_within(30s), 1);
  const std::string log = read_file(d.log);
  EXPECT_NE(log.find("backend gpu"), std::string::npos) << log;
}

}  // namespace
}  // namespace cuzk::service
