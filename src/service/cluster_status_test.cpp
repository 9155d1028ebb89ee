// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster in /status from hand-made reads: absent without a PostgreSQL store, every node with
// its report, heartbeat and whether it is this one, the queue by priority, the read's error text
// only in the full view; a node's report from a snapshot (devices, resident keys, workers); and
// `cuzk status --cluster`'s tables.
#include "service/cluster_status.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/version.hpp"
#include "service/cluster_table.hpp"
#include "service/status_json.hpp"

namespace cuzk::service {
namespace {

using nlohmann::json;

cluster_status two_nodes() {
  engine::cluster_state st;
  engine::cluster_node a;
  a.id = "host-a/00000001";
  a.report =
      R"({"version": "1.2.3", "resident_keys": [{"circuit": "poseidon", "tier": "hot", "devices": []}]})";
  a.heartbeat_age_s = 0.5;
  a.report_age_s = 0.5;
  a.alive = true;
  a.leases = 2;
  engine::cluster_node b;
  b.id = "host-b/00000002";
  b.heartbeat_age_s = 42;
  b.alive = false;
  st.nodes = {a, b};
  st.queue[static_cast<std::size_t>(engine::priority::critical)] = {1, 0};
  st.queue[static_cast<std::size_t>(engine::priority::normal)] = {100, 3};
  st.stale_after_s = 10;
  st.read_unix_ms = 1234;
  return {{st, ""}, "host-a/00000001"};
}

TEST(cluster_status, status_has_no_cluster_without_a_postgresql_store) {
  const auto j = json::parse(status_json(engine::engine_snapshot{}, daemon_config{}, status_view::full));
  EXPECT_FALSE(j.contains("cluster"));
}

TEST(cluster_status, status_carries_every_node_and_the_queue_by_priority) {
  const cluster_status c = two_nodes();
  for (auto view : {status_view::full, status_view::public_view}) {
    const auto j = json::parse(status_json(engine::engine_snapshot{}, daemon_config{}, view, &c))["cluster"];
    ASSERT_EQ(j["nodes"].size(), 2u);
    const auto& a = j["nodes"][0];
    EXPECT_EQ(a["id"], "host-a/00000001");
    EXPECT_EQ(a["self"], true);
    EXPECT_EQ(a["alive"], true);
    EXPECT_EQ(a["leases"], 2);
    EXPECT_EQ(a["report"]["version"], "1.2.3");
    EXPECT_EQ(a["report"]["resident_keys"][0]["circuit"], "poseidon");
    const auto& b = j["nodes"][1];
    EXPECT_EQ(b["self"], false);
    EXPECT_EQ(b["alive"], false);
    EXPECT_EQ(b["heartbeat_age_s"], 42.0);
    EXPECT_TRUE(b["report_age_s"].is_null());
    EXPECT_EQ(b["report"], json::object());
    EXPECT_EQ(j["queue"]["NORMAL"], (json{{"queued", 100}, {"running", 3}}));
    EXPECT_EQ(j["queue"]["CRITICAL"], (json{{"queued", 1}, {"running", 0}}));
    EXPECT_EQ(j["queue"]["LOW"], (json{{"queued", 0}, {"running", 0}}));
    EXPECT_EQ(j["queue"].size(), static_cast<std::size_t>(engine::priority_count));
    EXPECT_EQ(j["stale_after_s"], 10.0);
    EXPECT_FALSE(j.contains("error"));
  }
}

// The reason a read failed names the database's server: the full view's alone. The last good read
// is still shown.
TEST(cluster_status, a_failed_read_keeps_the_last_one_and_its_reason_stays_in_the_full_view) {
  cluster_status c = two_nodes();
  c.read.error = "host=/srv/pg dbname=cuzk: read the cluster's nodes: server closed the connection";
  const auto full = cluster_status_json(c, true);
  EXPECT_EQ(full["error"], c.read.error);
  EXPECT_EQ(full["nodes"].size(), 2u);
  const std::string pub = cluster_status_json(c, false).dump();
  EXPECT_EQ(pub.find("/srv/pg"), std::string::npos) << pub;
  EXPECT_NE(pub.find("could not be read"), std::string::npos) << pub;
  c.read.state.reset();  // never read: no nodes, no queue
  EXPECT_EQ(cluster_status_json(c, true)["nodes"], json::array());
}

TEST(cluster_status, a_report_has_the_devices_resident_keys_and_workers_and_no_path) {
  engine::engine_snapshot s;
  s.backend = "gpu";
  s.workers.resize(4);
  s.workers[1].busy = true;
  engine::key_slot_status slot;
  slot.name = "device:0";
  slot.budget = 1000;
  slot.used = 600;
  slot.keys = 1;
  s.device_tiers = {slot};
  engine::device_activity act;
  act.description = "NVIDIA H200";
  s.devices = {act};
  engine::key_entry_status hot;
  hot.circuit = "poseidon";
  hot.path = "/secret/keys/poseidon.zkey";
  hot.tier = engine::key_tier::device;
  hot.tier_name = "device:0";
  engine::key_device_copy_status copy;
  copy.slot = "device:0";
  copy.resident = true;
  hot.devices = {copy};
  engine::key_entry_status cold;
  cold.circuit = "idle-circuit";
  cold.tier_name = "cold";
  s.keys = {hot, cold};
  s.queue_depth[static_cast<std::size_t>(engine::priority::high)] = 5;
  const std::string text = node_report_json(s, "10.0.0.7:9746", "127.0.0.1:9745");
  EXPECT_EQ(text.find("/secret"), std::string::npos) << text;
  const auto r = json::parse(text);
  EXPECT_EQ(r["version"], version());
  EXPECT_EQ(r["backend"], "gpu");
  EXPECT_EQ(r["workers"], 4);
  EXPECT_EQ(r["busy_workers"], 1);
  EXPECT_EQ(r["listen"], "10.0.0.7:9746");
  EXPECT_EQ(r["queue_depth"]["HIGH"], 5);
  ASSERT_EQ(r["devices"].size(), 1u);
  EXPECT_EQ(r["devices"][0]["name"], "device:0");
  EXPECT_EQ(r["devices"][0]["description"], "NVIDIA H200");
  EXPECT_EQ(r["devices"][0]["key_budget_bytes"], 1000);
  EXPECT_EQ(r["devices"][0]["key_bytes"], 600);
  ASSERT_EQ(r["resident_keys"].size(), 1u);  // the cold key is not resident
  EXPECT_EQ(r["resident_keys"][0]["circuit"], "poseidon");
  EXPECT_EQ(r["resident_keys"][0]["devices"], (json{"device:0"}));
}

TEST(cluster_status, cuzk_status_cluster_prints_the_nodes_and_the_queue_as_tables_or_json) {
  const cluster_status c = two_nodes();
  const std::string doc = status_json(engine::engine_snapshot{}, daemon_config{}, status_view::full, &c);
  const std::string text = cluster_text(doc, false).value();
  EXPECT_NE(text.find("NODE"), std::string::npos) << text;
  EXPECT_NE(text.find("host-a/00000001 *  alive  0.5 s ago"), std::string::npos) << text;
  EXPECT_NE(text.find("host-b/00000002    stale  42.0 s ago"), std::string::npos) << text;
  EXPECT_NE(text.find("poseidon (hot)"), std::string::npos) << text;
  EXPECT_NE(text.find("NORMAL    100     3"), std::string::npos) << text;
  EXPECT_LT(text.find("CRITICAL"), text.find("LOW"));  // the claim order
  EXPECT_EQ(json::parse(cluster_text(doc, true).value()), json::parse(doc)["cluster"]);

  const std::string alone = status_json(engine::engine_snapshot{}, daemon_config{}, status_view::full);
  EXPECT_NE(cluster_text(alone, false).value().find("no cluster"), std::string::npos);
  EXPECT_EQ(cluster_text(alone, true).value(), "null\n");
  EXPECT_TRUE(cluster_text("not json", false).error().code() == errc::parse_error);
}

}  // namespace
}  // namespace cuzk::service
