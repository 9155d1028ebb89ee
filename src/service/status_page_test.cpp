// SPDX-License-Identifier: MIT OR Apache-2.0
// The status page (GET /) in a real browser: a CPU daemon proves two jobs of the small bn128
// fixture, fails one from input JSON that the circuit's assert refuses, runs one whose witness
// code never ends (it stays in its witness phase) and holds one queued behind it; headless
// Chromium from Debian loads the page and runs its script, and the DOM it leaves shows the numbers
// /status reports (version, completed count, the circuit id, the recent jobs with their witness
// time), the failed job's reason and a row for the running and the queued job. Also: / is HTML,
// HEAD / answers, and an unknown path gets a 404 page that lists the endpoints. Skips when no
// Chromium or no wasm2c is installed (scripts/setup.sh installs both for CI). With
// CUZK_STATUS_PAGE_SCREENSHOT=<file.png> it also saves what the browser drew there (the picture in
// docs/status_page.png is made so).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

using namespace test;

const std::string circuit_id = "status-page-fixture";  // distinctive, so finding it in the DOM means something
const std::string witness_data = data_dir + "/witness/bn128";

// One `cuzk daemon` with HTTP on a free port and the fixture registered; killed at the end.
struct page_daemon {
  std::string dir, sock;
  int http_port = free_port();
  pid_t pid = -1;

  page_daemon() {
    dir = (fs::temp_directory_path() / ("cuzk-status-page-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    sock = dir + "/d.sock";
    const std::string config = dir + "/cuzk.toml";
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock
                          << "\"\nhttp = \"127.0.0.1:" << http_port
                          << "\"\nworkers = 1\nlog_level = \"warn\"\nwitness_time_limit_s = 3600\n"
                          << "[[circuit]]\nid = \"" << circuit_id << "\"\nzkey = \"" << data_dir
                          << "/snarkjs/bn128/circuit.zkey\"\n";
    pid = start_daemon(config);
  }
  ~page_daemon() {
    kill9(pid);
    fs::remove_all(dir);
  }
};

TEST(status_page, renders_in_headless_chromium_with_the_numbers_status_reports) {
  page_daemon d;
  auto ch = connect(d.sock, "");
  ASSERT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s)) << "daemon did not come up";
  auto stub = make_stub(ch);

  // Two proofs, so the page has counts, a key in a tier and recent jobs with phase times.
  const std::string w = read_file(data_dir + "/snarkjs/bn128/circuit.wtns");
  for (int i = 0; i < 2; ++i) {
    v1::SubmitProofRequest req;
    req.set_circuit(circuit_id);
    req.add_partitions()->set_wtns(w);
    v1::SubmitProofResponse sub;
    grpc::ClientContext sc;
    ASSERT_TRUE(stub->SubmitProof(&sc, req, &sub).ok());
    v1::AwaitProofRequest aw;
    aw.set_job_id(sub.job_id());
    aw.set_timeout_ms(60000);
    v1::ProofResult res;
    grpc::ClientContext ac;
    ASSERT_TRUE(stub->AwaitProof(&ac, aw, &res).ok());
    ASSERT_EQ(res.state(), v1::DONE) << res.error();
  }

  httplib::Client page_client("127.0.0.1", d.http_port);
  auto page = page_client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("fetch(\"/status\""), std::string::npos);
  auto head = page_client.Head("/");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  auto missing = page_client.Get("/no-such-page");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  for (const char* endpoint : {"href=\"/status\"", "href=\"/metrics\"", "href=\"/healthz\"", "no-such-page"})
    EXPECT_NE(missing->body.find(endpoint), std::string::npos) << endpoint << " not in\n" << missing->body;

  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium-headless-shell or chromium on PATH (scripts/setup.sh installs it)";
  if (run_command("command -v wasm2c").first != 0)
    GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";

  // Two circuits that take input JSON: one whose assert refuses x >= 100, one whose witness code
  // never ends for an odd x.
  auto add_circuit = [&](const std::string& id, const std::string& name) {
    const std::string zkey = d.dir + "/" + name + ".zkey";
    auto [rc, out] =
        run_command(std::string(CUZK_BIN) + " setup " + witness_data + "/" + name + ".r1cs " + zkey);
    ASSERT_EQ(rc, 0) << out;
    v1::RegisterCircuitRequest req;
    req.set_id(id);
    req.set_zkey_path(zkey);
    req.set_wasm_path(witness_data + "/" + name + ".wasm");
    v1::RegisterCircuitResponse res;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 600s);  // the wasm is compiled now
    const auto s = stub->RegisterCircuit(&ctx, req, &res);
    ASSERT_TRUE(s.ok()) << s.error_message();
  };
  add_circuit("range", "range_check");
  add_circuit("walk", "never_ending");
  auto submit_json = [&](const std::string& id, const std::string& input) {
    v1::SubmitProofRequest req;
    req.set_circuit(id);
    req.add_partitions()->set_input_json(input);
    v1::SubmitProofResponse sub;
    grpc::ClientContext sc;
    EXPECT_TRUE(stub->SubmitProof(&sc, req, &sub).ok());
    return sub.job_id();
  };
  const uint64_t failed = submit_json("range", R"({"x": "200"})");
  {
    v1::AwaitProofRequest aw;
    aw.set_job_id(failed);
    aw.set_timeout_ms(60000);
    v1::ProofResult res;
    grpc::ClientContext ac;
    ASSERT_TRUE(stub->AwaitProof(&ac, aw, &res).ok());
    ASSERT_EQ(res.state(), v1::FAILED);
    ASSERT_NE(res.error().find("Assert Failed"), std::string::npos) << res.error();
  }
  const uint64_t running = submit_json("walk", R"({"x": "3"})");
  v1::SubmitProofRequest queued_req;
  queued_req.set_circuit(circuit_id);
  queued_req.add_partitions()->set_wtns(w);
  v1::SubmitProofResponse queued;
  {
    grpc::ClientContext sc;
    ASSERT_TRUE(stub->SubmitProof(&sc, queued_req, &queued).ok());
  }

  httplib::Client http("127.0.0.1", d.http_port);
  http.set_connection_timeout(5, 0);
  http.set_read_timeout(10, 0);
  // The running job's witness calculation has begun once /status shows its witness_start, and
  // it runs as the job's own once the job is synthesizing: a witness thread may begin it ahead,
  // while the job is still queued for the worker, which takes it a moment later.
  nlohmann::json status;
  for (int i = 0; i < 300; ++i) {
    auto st = http.Get("/status");
    ASSERT_TRUE(st);
    status = nlohmann::json::parse(st->body);
    bool computing = false;
    for (const auto& j : status["jobs"])
      if (j["id"] == running && j["state"] == "synthesizing")
        for (const auto& e : j["events"]) computing = computing || e["event"] == "witness_start";
    if (computing) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(status["counters"]["completed"], 2);
  ASSERT_EQ(status["counters"]["failed"], 1);
  ASSERT_EQ(status["recent_jobs"].size(), 3u);
  ASSERT_EQ(status["jobs"].size(), 2u) << status["jobs"];
  EXPECT_EQ(status["jobs"][0]["id"], running);
  EXPECT_EQ(status["jobs"][0]["state"], "synthesizing");
  EXPECT_EQ(status["jobs"][1]["state"], "queued");

  const std::string url = "http://127.0.0.1:" + std::to_string(d.http_port) + "/";
  auto [rc, dom] = browser_dom(chromium, d.dir + "/chromium-profile", url);
  ASSERT_EQ(rc, 0) << dom;
  if (const char* png = std::getenv("CUZK_STATUS_PAGE_SCREENSHOT")) {
    auto [src, sout] = run_command("timeout 60 " + chromium +
                                   " --headless --disable-gpu --no-sandbox --user-data-dir=" + d.dir +
                                   "/chromium-shot --hide-scrollbars --window-size=1200,1500 "
                                   "--virtual-time-budget=3000 --screenshot=" +
                                   png + " " + url);
    EXPECT_EQ(src, 0) << sout;
  }

  // The text of the element with that id (up to its first child element).
  auto text_of = [&](const std::string& id) -> std::string {
    const auto at = dom.find("id=\"" + id + "\"");
    if (at == std::string::npos) return "(no #" + id + ")";
    const auto open_end = dom.find('>', at) + 1;
    return dom.substr(open_end, dom.find('<', open_end) - open_end);
  };
  auto shows = [&](const std::string& id, const std::string& text) {
    EXPECT_EQ(text_of(id), text) << "#" << id << " in\n" << dom;
  };
  shows("version", status["version"].get<std::string>() +
                       (status["revision"].get<std::string>().empty()
                            ? ""
                            : " (" + status["revision"].get<std::string>() + ")"));
  shows("backend", status["backend"].get<std::string>());
  for (const char* counter : {"submitted", "completed", "failed", "cancelled", "rejected"})
    shows(std::string("count-") + counter, std::to_string(status["counters"][counter].get<uint64_t>()));
  EXPECT_NE(dom.find("<code class=\"circuit\">" + circuit_id + "</code>"), std::string::npos) << dom;
  EXPECT_NE(dom.find(">" + status["keys"][0]["tier"].get<std::string>() + "<"), std::string::npos) << dom;
  // The recent proofs table: a row per ended job, each with its phase times.
  const auto recent_at = dom.find("id=\"recent-table\"");
  ASSERT_NE(recent_at, std::string::npos) << dom;
  const std::string recent = dom.substr(recent_at);
  for (const auto& j : status["recent_jobs"])
    EXPECT_NE(recent.find("<td class=\"num\">" + std::to_string(j["id"].get<uint64_t>()) + "</td>"), std::string::npos)
        << "job " << j["id"] << " not in\n" << recent;
  EXPECT_NE(recent.find("total "), std::string::npos) << recent;
  EXPECT_NE(recent.find("witness "), std::string::npos) << recent;  // a phase of its own
  // The failed job's reason, circom's assert, in its row.
  EXPECT_NE(text_of("reason-" + std::to_string(failed)).find("Assert Failed"), std::string::npos)
      << text_of("reason-" + std::to_string(failed));
  // A row per live job: the running one in its witness phase, the one queued behind it.
  const auto live_at = dom.find("id=\"live-table\"");
  ASSERT_NE(live_at, std::string::npos) << dom;
  const std::string live = dom.substr(live_at, dom.find("</table>", live_at) - live_at);
  const auto row_of = [&](uint64_t id) {
    const auto at = live.find("id=\"live-" + std::to_string(id) + "\"");
    if (at == std::string::npos) return std::string("(no row for job " + std::to_string(id) + ")");
    return live.substr(at, live.find("</tr>", at) - at);
  };
  const std::string run_row = row_of(running), queued_row = row_of(queued.job_id());
  for (const char* cell : {">walk<", ">NORMAL<", ">witness (partition 0)<", ">1 of 1<"})
    EXPECT_NE(run_row.find(cell), std::string::npos) << cell << " not in\n" << run_row;
  EXPECT_NE(queued_row.find(">queued<"), std::string::npos) << queued_row;
  EXPECT_NE(queued_row.find(">" + circuit_id + "<"), std::string::npos) << queued_row;
  // A CPU daemon: no device table, no per-device key columns, no "on" column of "cpu"s, and no
  // "0 B of 0 B" for the cold tier.
  EXPECT_EQ(dom.find("id=\"device-table\""), std::string::npos) << dom;
  // (In the keys table as rendered: the page's script names every column it might show.)
  const auto keys_at = dom.find("id=\"keys\"");
  ASSERT_NE(keys_at, std::string::npos) << dom;
  const std::string keys = dom.substr(keys_at, dom.find("</table>", keys_at) - keys_at);
  EXPECT_EQ(keys.find("host tier"), std::string::npos) << keys;
  EXPECT_NE(keys.find(circuit_id), std::string::npos) << keys;
  EXPECT_EQ(recent.find("<td>cpu</td>"), std::string::npos) << recent;
  const auto table_at = [&](const std::string& id) {
    const auto at = dom.find("id=\"" + id + "\"");
    return at == std::string::npos ? std::string("(no table " + id + ")") : dom.substr(at, dom.find("</table>", at) - at);
  };
  EXPECT_EQ(table_at("tiers").find("0 B of 0 B"), std::string::npos) << table_at("tiers");
  // The host budget says what it holds.
  EXPECT_NE(table_at("budgets").find("proving keys held in host memory"), std::string::npos) << table_at("budgets");
  shows("error", "");  // the page read /status
  // A SQLite daemon is alone: /status has no cluster, and the page keeps its section hidden.
  EXPECT_FALSE(status.contains("cluster"));
  EXPECT_NE(dom.find("id=\"cluster-section\" hidden"), std::string::npos) << dom;
}

}  // namespace
}  // namespace cuzk::service
