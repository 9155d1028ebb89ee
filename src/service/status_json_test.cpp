// The /metrics and /status documents from a hand-made snapshot: refusals appear by reason, every
// reason always, and a circuit label only for circuits the snapshot counts jobs of; the memory
// budgets and the pinned pool with their numbers.
#include "service/status_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace cuzk::service {
namespace {

using engine::reject_reason;

engine::engine_snapshot snapshot_with_refusals() {
  engine::engine_snapshot s;
  s.counters.circuits["poseidon"].counters.submitted = 3;
  s.counters.total.submitted = 3;
  s.counters.rejected[static_cast<int>(reject_reason::unknown_circuit)] = 5;
  s.counters.rejected[static_cast<int>(reject_reason::bad_witness)] = 2;
  return s;
}

TEST(status_json, prometheus_counts_refusals_by_reason_only) {
  const std::string text = prometheus_text(snapshot_with_refusals());
  EXPECT_NE(text.find("# TYPE cuzk_jobs_rejected_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_jobs_rejected_total{reason=\"unknown_circuit\"} 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cuzk_jobs_rejected_total{reason=\"bad_witness\"} 2\n"), std::string::npos);
  for (int r = 0; r < engine::reject_reason_count; ++r)  // zeros too: a fixed set of series
    EXPECT_NE(text.find(std::string("cuzk_jobs_rejected_total{reason=\"") +
                        engine::reject_reason_name(reject_reason(r)) + "\"}"),
              std::string::npos)
        << engine::reject_reason_name(reject_reason(r));
  EXPECT_EQ(text.find("cuzk_jobs_rejected_total{circuit="), std::string::npos);
  EXPECT_NE(text.find("cuzk_jobs_submitted_total{circuit=\"poseidon\"} 3\n"), std::string::npos);
}

TEST(status_json, status_reports_refusals_by_reason) {
  auto j = nlohmann::json::parse(status_json(snapshot_with_refusals(), daemon_config{}));
  EXPECT_EQ(j["counters"]["rejected"], 7);
  EXPECT_EQ(j["rejected_by_reason"]["unknown_circuit"], 5);
  EXPECT_EQ(j["rejected_by_reason"]["draining"], 0);
  EXPECT_EQ(j["rejected_by_reason"].size(), static_cast<std::size_t>(engine::reject_reason_count));
  EXPECT_EQ(j["circuit_counters"].size(), 1u);
  EXPECT_FALSE(j["circuit_counters"]["poseidon"].contains("rejected"));
}

engine::engine_snapshot snapshot_with_memory() {
  engine::engine_snapshot s;
  engine::budget_snapshot host;
  host.name = "host";
  host.limit = 1000;
  host.used = 600;
  host.peak = 900;
  host.waited = 4;
  host.wait_seconds = 1.5;
  host.evictors.push_back({"pinned pool", engine::evictor_rank::idle_pinned_buffers, 2, 100, 80});
  s.memory_budgets.push_back(host);
  s.pinned_pool.memory = "pinned";
  s.pinned_pool.buffers = 2;
  s.pinned_pool.bytes = 512;
  s.pinned_pool.hits = 7;
  s.pinned_pool.fallbacks = 1;
  s.routed_to_key_slot = 3;
  return s;
}

TEST(status_json, memory_budgets_and_the_pinned_pool_in_status_and_metrics) {
  const auto s = snapshot_with_memory();
  auto j = nlohmann::json::parse(status_json(s, daemon_config{}));
  ASSERT_EQ(j["memory_budgets"].size(), 1u);
  EXPECT_EQ(j["memory_budgets"][0]["name"], "host");
  EXPECT_EQ(j["memory_budgets"][0]["limit_bytes"], 1000);
  EXPECT_EQ(j["memory_budgets"][0]["peak_bytes"], 900);
  EXPECT_EQ(j["memory_budgets"][0]["evictors"][0]["bytes_freed"], 80);
  EXPECT_EQ(j["pinned_pool"]["memory"], "pinned");
  EXPECT_EQ(j["pinned_pool"]["hits"], 7);
  EXPECT_EQ(j["routed_to_key_slot"], 3);
  const std::string text = prometheus_text(s);
  EXPECT_NE(text.find("cuzk_memory_budget_limit_bytes{budget=\"host\"} 1000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cuzk_memory_budget_peak_bytes{budget=\"host\"} 900\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_memory_budget_wait_seconds_total{budget=\"host\"} 1.5\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_pinned_pool_fallbacks_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("cuzk_routed_to_key_slot_total 3\n"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::service
