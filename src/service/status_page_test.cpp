// SPDX-License-Identifier: MIT OR Apache-2.0
// The status page (GET /) in a real browser: a CPU daemon proves two jobs of the small bn128
// fixture, headless Chromium from Debian loads the page and runs its script, and the DOM it
// leaves shows the numbers /status reports (version, completed count, the circuit id, the
// recent jobs). Also: / is HTML, HEAD / answers, and an unknown path gets a 404 page that lists
// the endpoints. Skips when no Chromium is installed (scripts/setup.sh installs one for CI).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "service/client.hpp"
#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace v1 = cuzk::v1;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::browser_dom;
using test::find_chromium;
using test::free_port;
using test::read_file;

const std::string data = CUZK_TEST_DATA_DIR;
const std::string circuit_id = "status-page-fixture";  // distinctive, so finding it in the DOM means something

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
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock << "\"\nhttp = \"127.0.0.1:"
                          << http_port << "\"\nworkers = 1\nlog_level = \"warn\"\n[[circuit]]\nid = \""
                          << circuit_id << "\"\nzkey = \"" << data << "/snarkjs/bn128/circuit.zkey\"\n";
    pid = ::fork();
    if (pid == 0) {
      ::execl(CUZK_BIN, CUZK_BIN, "daemon", "--config", config.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~page_daemon() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    fs::remove_all(dir);
  }
};

TEST(status_page, renders_in_headless_chromium_with_the_numbers_status_reports) {
  page_daemon d;
  auto ch = connect(d.sock, "");
  ASSERT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s)) << "daemon did not come up";
  auto stub = make_stub(ch);

  // Two proofs, so the page has counts, a key in a tier and recent jobs with phase times.
  const std::string w = read_file(data + "/snarkjs/bn128/circuit.wtns");
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

  httplib::Client http("127.0.0.1", d.http_port);
  http.set_connection_timeout(5, 0);
  http.set_read_timeout(10, 0);
  auto page = http.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("fetch(\"/status\""), std::string::npos);
  auto head = http.Head("/");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  auto missing = http.Get("/no-such-page");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  for (const char* endpoint : {"href=\"/status\"", "href=\"/metrics\"", "href=\"/healthz\"", "no-such-page"})
    EXPECT_NE(missing->body.find(endpoint), std::string::npos) << endpoint << " not in\n" << missing->body;

  auto st = http.Get("/status");
  ASSERT_TRUE(st);
  const auto status = nlohmann::json::parse(st->body);
  ASSERT_EQ(status["counters"]["completed"], 2);
  ASSERT_EQ(status["recent_jobs"].size(), 2u);

  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium-headless-shell or chromium on PATH (scripts/setup.sh installs it)";
  auto [rc, dom] =
      browser_dom(chromium, d.dir + "/chromium-profile", "http://127.0.0.1:" + std::to_string(d.http_port) + "/");
  ASSERT_EQ(rc, 0) << dom;

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
  shows("error", "");  // the page read /status
  // A SQLite daemon is alone: /status has no cluster, and the page keeps its section hidden.
  EXPECT_FALSE(status.contains("cluster"));
  EXPECT_NE(dom.find("id=\"cluster-section\" hidden"), std::string::npos) << dom;
}

}  // namespace
}  // namespace cuzk::service
