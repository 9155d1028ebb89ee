// SPDX-License-Identifier: MIT OR Apache-2.0
// The config table and loader: defaults, every key printed, errors naming key, expected and found.
#include "service/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "service/node_name.hpp"

namespace cuzk::service {
namespace {

TEST(config, defaults_round_trip_through_print_config) {
  daemon_config c;
  c.circuits.push_back({"p", "/k.zkey", engine::priority::high, "/k.wasm"});
  const std::string text = print_config(c);
  for (const auto& k : config_table())
    EXPECT_NE(text.find(std::string(k.name) + " = "), std::string::npos) << k.name;
  auto back = parse_config(text, "printed");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(diff_config(c, *back).empty());
  ASSERT_EQ(back->circuits.size(), 1u);
  EXPECT_EQ(back->circuits[0].prio, engine::priority::high);
  EXPECT_EQ(back->circuits[0].wasm, "/k.wasm");
}

TEST(config, errors_name_the_key_the_expectation_and_the_value) {
  auto r = parse_config("workers = 0", "f.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "f.toml: workers: expected an integer in [1, 256], found 0");
  r = parse_config("log_level = \"loud\"", "f.toml");
  EXPECT_EQ(r.error().message(),
            "f.toml: log_level: expected one of debug, info, warn, error, found \"loud\"");
  r = parse_config("verify_proofs = 1", "f.toml");
  EXPECT_EQ(r.error().message(), "f.toml: verify_proofs: expected true or false, found 1");
  r = parse_config("wokers = 2", "f.toml");
  EXPECT_NE(r.error().message().find("wokers: expected a known key"), std::string::npos);
  r = parse_config("[[circuit]]\nid = \"a\"", "f.toml");
  EXPECT_EQ(r.error().message(), "f.toml: circuit[0].zkey: expected the path of a .zkey, found nothing");
  r = parse_config("workers = ", "f.toml");
  EXPECT_EQ(r.error().code(), errc::parse_error);
  EXPECT_NE(r.error().message().find("f.toml:1:"), std::string::npos) << r.error().message();
}

TEST(config, witness_dirs_default_to_none_and_reach_the_engine_options) {
  EXPECT_TRUE(daemon_config{}.to_engine_options().witness_dirs.empty());  // witness paths refused
  auto c = parse_config("witness_dirs = [\"/srv/w\", \"/data/a \\\"b\\\"\"]", "w.toml");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->to_engine_options().witness_dirs, (std::vector<std::string>{"/srv/w", "/data/a \"b\""}));
  auto back = parse_config(print_config(*c), "printed");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->witness_dirs, c->witness_dirs);
  auto bad = parse_config("witness_dirs = [\"/a\", 1]", "w.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "w.toml: witness_dirs[1]: expected a string, found 1");
  bad = parse_config("witness_dirs = \"/a\"", "w.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "w.toml: witness_dirs: expected an array of strings, found \"/a\"");
}

TEST(config, gpu_keys_parse_validate_print_and_reach_the_engine_options) {
  auto c = parse_config("backend = \"gpu\"\ngpu_devices = [0, 0, 1]\ngpu_workers_per_device = 3\n"
                        "gpu_key_budget_mib = 2048\ngpu_memory_budget_mib = 4096\nhost_memory_budget_mib = 512\n",
                        "g.toml");
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->gpu_devices, (std::vector<int64_t>{0, 0, 1}));
  const auto o = c->to_engine_options();
  EXPECT_EQ(o.backend, groth16::prover_kind::gpu);
  EXPECT_EQ(o.gpu.devices, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(o.gpu.workers_per_device, 3u);
  EXPECT_EQ(o.gpu.key_budget, uint64_t{2048} << 20);
  EXPECT_EQ(o.gpu.device_memory_budget, uint64_t{4096} << 20);
  EXPECT_EQ(o.host_memory_budget, uint64_t{512} << 20);
  EXPECT_EQ(o.gpu.synthesis, groth16::synthesis_place::device);
  const std::string text = print_config(*c);
  EXPECT_NE(text.find("gpu_devices = [0, 0, 1]"), std::string::npos);
  EXPECT_NE(text.find("an array of integers in [0, 63]"), std::string::npos);
  auto back = parse_config(text, "printed");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(diff_config(*c, *back).empty());

  daemon_config d;  // the defaults: auto, every device, two workers each, budget from free memory
  EXPECT_EQ(d.to_engine_options().backend, groth16::prover_kind::automatic);
  EXPECT_TRUE(d.to_engine_options().gpu.devices.empty());
  EXPECT_EQ(d.to_engine_options().gpu.workers_per_device, 2u);
  EXPECT_EQ(parse_config("backend = \"cpu\"", "g.toml")->to_engine_options().backend, groth16::prover_kind::cpu);

  auto r = parse_config("backend = \"tpu\"", "g.toml");
  EXPECT_EQ(r.error().message(), "g.toml: backend: expected one of auto, cpu, gpu, found \"tpu\"");
  r = parse_config("gpu_devices = [0, 64]", "g.toml");
  EXPECT_EQ(r.error().message(), "g.toml: gpu_devices[1]: expected an integer in [0, 63], found 64");
  r = parse_config("gpu_devices = 1", "g.toml");
  EXPECT_EQ(r.error().message(), "g.toml: gpu_devices: expected an array of integers in [0, 63], found 1");
  r = parse_config("gpu_devices = [\"0\"]", "g.toml");
  EXPECT_EQ(r.error().message(), "g.toml: gpu_devices[0]: expected an integer in [0, 63], found \"0\"");
  EXPECT_EQ(parse_config("gpu_synthesis = \"host-pinned\"", "g.toml")->to_engine_options().gpu.synthesis,
            groth16::synthesis_place::host_pinned);
  r = parse_config("gpu_synthesis = \"cpu\"", "g.toml");
  EXPECT_EQ(r.error().message(),
            "g.toml: gpu_synthesis: expected one of device, host-pinned, host-pageable, found \"cpu\"");
  r = parse_config("gpu_workers_per_device = 0", "g.toml");
  EXPECT_EQ(r.error().message(), "g.toml: gpu_workers_per_device: expected an integer in [1, 16], found 0");
}

TEST(config, runtime_keys_are_marked) {
  daemon_config a, b;
  b.log_level = "debug";
  b.workers = 4;
  auto d = diff_config(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key, "workers");
  EXPECT_FALSE(d[0].runtime);
  EXPECT_EQ(d[1].key, "log_level");
  EXPECT_TRUE(d[1].runtime);
}

// `cuzk daemon` with no config must run as an ordinary user: state in the user's state
// folder (state_dir.hpp) rather than /var/lib/cuzk, the socket inside it, HTTP on loopback.
TEST(config, defaults_are_user_writable_with_loopback_http) {
  const daemon_config c;
  EXPECT_EQ(c.data_dir, default_state_dir());
  EXPECT_EQ(c.socket_path(), default_socket_path());
  EXPECT_EQ(c.http, default_http_address);
  EXPECT_EQ(c.http.rfind("127.0.0.1:", 0), 0u) << "loopback only by default";
  // A file that names neither keeps them; one that names them wins.
  auto f = parse_config("workers = 2\n", "f.toml");
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_EQ(f->data_dir, default_state_dir());
  EXPECT_EQ(f->http, default_http_address);
  f = parse_config("data_dir = \"/srv/cuzk\"\nhttp = \"\"\n", "f.toml");
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_EQ(f->socket_path(), "/srv/cuzk/cuzk.sock");
  EXPECT_TRUE(f->http.empty());
}

// The job store is SQLite in data_dir unless `database` names a PostgreSQL server; the
// string can carry credentials, so HTTP's public /status leaves it out (local_only).
TEST(config, database_selects_postgresql_and_is_not_public) {
  EXPECT_TRUE(daemon_config().to_engine_options().database.empty());
  auto f = parse_config("database = \"host=/run/postgresql dbname=cuzk\"\n", "f.toml");
  ASSERT_TRUE(f) << f.error().to_string();
  const auto o = f->to_engine_options();
  EXPECT_EQ(o.database, "host=/run/postgresql dbname=cuzk");
  const auto& table = config_table();
  const auto row = std::find_if(table.begin(), table.end(), [](const config_key& k) {
    return std::string(k.name) == "database";
  });
  ASSERT_NE(row, table.end());
  EXPECT_TRUE(row->local_only);
}

// A cluster node's keys: its name (default: the host's name and a digest of the data_dir, stable
// across restarts, never the path), its lease, the bound on preferring resident keys, and the
// shared spool root.
TEST(config, cluster_keys_reach_the_engine) {
  daemon_config d;
  d.data_dir = "/srv/cuzk";
  auto o = d.to_engine_options();
  EXPECT_EQ(o.cluster.node_name, default_node_name("/srv/cuzk"));
  EXPECT_EQ(o.cluster.node_name.find("/srv/cuzk"), std::string::npos) << o.cluster.node_name;
  EXPECT_EQ(d.to_engine_options().cluster.node_name, o.cluster.node_name);
  EXPECT_EQ(o.cluster.lease, std::chrono::seconds(30));
  EXPECT_EQ(o.spool_dir, "/srv/cuzk/spool");
  auto f = parse_config("node_name = \"prover-1\"\nlease_s = 5\nkey_preference_s = 0\nspool_dir = \"/mnt/s\"\n",
                        "f.toml");
  ASSERT_TRUE(f) << f.error().to_string();
  o = f->to_engine_options();
  EXPECT_EQ(o.cluster.node_name, "prover-1");
  EXPECT_EQ(o.cluster.lease, std::chrono::seconds(5));
  EXPECT_EQ(o.cluster.key_preference, std::chrono::seconds(0));
  EXPECT_EQ(o.spool_dir, "/mnt/s");
}

}  // namespace
}  // namespace cuzk::service
