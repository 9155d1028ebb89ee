// The /metrics and /status documents from a hand-made snapshot: refusals appear by reason, every
// reason always, and a circuit label only for circuits the snapshot counts jobs of.
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

}  // namespace
}  // namespace cuzk::service
