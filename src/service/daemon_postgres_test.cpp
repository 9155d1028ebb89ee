// The daemon with its job store on PostgreSQL (`database` in its config), on a throwaway server
// (engine/jobs/pg_test_cluster.hpp): a job submitted with an inline witness is proved and its result
// is in the database; after a kill -9, a daemon on another data_dir and the same database still
// answers `await` for that job with the same proof: the job lives in the database, not in data_dir;
// and a daemon that takes the node name of one that runs refuses to start.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"
#include "service/pg_daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::read_file;
using test::pg_daemon;
using test::run_command;

const std::string data = CUZK_TEST_DATA_DIR;
const std::string zkey = data + "/snarkjs/bn128/poseidon/circuit.zkey";
const std::string wtns = data + "/snarkjs/bn128/poseidon/circuit.wtns";
const std::string vk = data + "/snarkjs/bn128/poseidon/verification_key.json";

// The JSON document `cuzk await` printed (its first '{' on), checked to verify.
nlohmann::json verified_proof(const std::string& out) {
  const auto doc = nlohmann::json::parse(out.substr(std::min(out.find('{'), out.size())), nullptr, false);
  EXPECT_TRUE(!doc.is_discarded() && doc.contains("proof") && doc.contains("publicSignals")) << out;
  if (doc.is_discarded() || !doc.contains("proof")) return {};
  auto key = formats::verification_key_from_json<bn254>(read_file(vk), "verification_key.json");
  auto proof = formats::proof_from_json<bn254>(doc["proof"].dump(), "proof");
  auto pub = formats::public_from_json<bn254>(doc["publicSignals"].dump(), "publicSignals");
  EXPECT_TRUE(key && proof && pub);
  if (key && proof && pub) {
    EXPECT_TRUE(groth16::verify<bn254>(*key, *pub, *proof).is_ok());
  }
  return doc;
}

TEST(daemon_postgres, a_result_in_the_database_outlives_the_daemon_and_its_data_dir) {
  engine::pg_test_cluster* cluster = engine::pg_test_cluster::shared();
  if (!cluster) GTEST_SKIP() << engine::pg_test_cluster::unavailable_reason();
  const auto db = cluster->fresh_database("daemon");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();

  std::string job, first;
  {
    pg_daemon a("a", *db, zkey);
    ASSERT_TRUE(a.up()) << "the daemon did not answer";
    auto [rc, out] = a.cli("submit -c poseidon " + wtns);  // inline: spooled, its path in the database
    ASSERT_EQ(rc, 0) << out;
    job = out.substr(0, out.find('\n'));
    std::tie(rc, first) = a.cli("await --timeout-ms 60000 " + job);
    ASSERT_EQ(rc, 0) << first;
    ASSERT_FALSE(verified_proof(first).empty());
    a.kill9();
  }
  auto c = engine::pg_connection::open(*db).value();
  auto row = c->exec("read the job", "SELECT state, ran_on FROM jobs WHERE id = $1", {job});
  ASSERT_TRUE(row.is_ok()) << row.error().to_string();
  ASSERT_EQ(row->size(), 1);
  EXPECT_EQ(row->i64(0, 0), static_cast<int64_t>(engine::job_state::done));
  EXPECT_FALSE(row->text(0, 1).empty());  // "cpu", or a device slot where a GPU answered

  pg_daemon b("b", *db, zkey, "lease_s = 2");
  ASSERT_TRUE(b.up()) << "the second daemon did not answer";
  auto [rc, again] = b.cli("await --timeout-ms 10000 " + job);
  ASSERT_EQ(rc, 0) << again;
  EXPECT_EQ(verified_proof(again), verified_proof(first));

  // While b runs, a daemon of b's node name refuses to start (after half a lease's look at the name's
  // heartbeat); one of another name works beside it (daemon_cluster_test.cpp).
  const std::string twin = b.dir + "/twin.toml";
  std::ofstream(twin) << "data_dir = \"" << b.dir << "/twin\"\nhttp = \"\"\ndatabase = \"" << *db
                      << "\"\nnode_name = \"b\"\nlease_s = 2\n";
  std::tie(rc, again) = run_command(std::string(CUZK_BIN) + " daemon --config " + twin);
  EXPECT_NE(rc, 0) << again;
  EXPECT_NE(again.find("another live daemon of this name"), std::string::npos) << again;
}

}  // namespace
}  // namespace cuzk::service
