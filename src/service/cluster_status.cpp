// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/cluster_status.hpp"

#include <nlohmann/json.hpp>

#include "base/version.hpp"

namespace cuzk::service {
namespace {

using nlohmann::json;

// A budget without a limit is null, as /status writes it (status_json.cpp).
json limit_or_null(uint64_t limit) { return limit == UINT64_MAX ? json(nullptr) : json(limit); }

json report_devices(const engine::engine_snapshot& s) {
  json out = json::array();
  for (std::size_t k = 0; k < s.device_tiers.size(); ++k) {
    const auto& t = s.device_tiers[k];
    json d = {{"name", t.name},
              {"key_budget_bytes", limit_or_null(t.budget)},
              {"key_bytes", t.used},
              {"keys", t.keys}};
    if (k < s.devices.size()) d["description"] = s.devices[k].description;
    for (const auto& b : s.memory_budgets)
      if (b.kind == engine::memory_kind::device && b.ordinal == t.ordinal) {
        d["memory_budget_bytes"] = limit_or_null(b.limit);
        d["memory_used_bytes"] = b.used;
      }
    out.push_back(std::move(d));
  }
  return out;
}

// The keys above cold: mapped or loaded in host memory, or copied to devices (those slots).
json report_resident_keys(const engine::engine_snapshot& s) {
  json out = json::array();
  for (const auto& k : s.keys) {
    if (k.tier == engine::key_tier::cold) continue;
    json devices = json::array();
    for (const auto& d : k.devices)
      if (d.resident) devices.push_back(d.slot);
    out.push_back({{"circuit", k.circuit}, {"tier", k.tier_name}, {"devices", std::move(devices)}});
  }
  return out;
}

}  // namespace

std::string node_report_json(const engine::engine_snapshot& s, const std::string& listen,
                             const std::string& http) {
  std::size_t busy = 0;
  for (const auto& w : s.workers) busy += w.busy ? 1 : 0;
  json depth = json::object();
  for (int p = 0; p < engine::priority_count; ++p)
    depth[engine::priority_name(engine::priority(p))] = s.queue_depth[p];
  json r = {{"version", version()},
            {"revision", revision()},
            {"backend", s.backend},
            {"accepting", s.accepting},
            {"uptime_s", s.uptime_s},
            {"started_unix_ms", engine::to_unix_ms(s.started_at)},
            {"listen", listen},
            {"http", http},
            {"workers", s.workers.size()},
            {"busy_workers", busy},
            {"queue_depth", std::move(depth)},
            {"devices", report_devices(s)},
            {"resident_keys", report_resident_keys(s)}};
  return r.dump();
}

json cluster_status_json(const cluster_status& c, bool full) {
  json out = json::object();
  json nodes = json::array();
  json queue = json::object();
  if (c.read.state) {
    const auto& st = *c.read.state;
    for (const auto& n : st.nodes) {
      // Stored as jsonb by the node that wrote it; a report that does not parse shows as null.
      json report = json::parse(n.report, nullptr, /*allow_exceptions=*/false);
      nodes.push_back({{"id", n.id},
                       {"self", n.id == c.self},
                       {"alive", n.alive},
                       {"heartbeat_age_s", n.heartbeat_age_s},
                       {"report_age_s", n.report_age_s ? json(*n.report_age_s) : json(nullptr)},
                       {"started_unix_ms", n.started_unix_ms},
                       {"leases", n.leases},
                       {"report", report.is_discarded() ? json(nullptr) : std::move(report)}});
    }
    for (int p = 0; p < engine::priority_count; ++p) {
      const auto& q = st.queue[static_cast<std::size_t>(p)];
      queue[engine::priority_name(engine::priority(p))] = {{"queued", q.queued}, {"running", q.running}};
    }
    out["stale_after_s"] = st.stale_after_s;
    out["read_unix_ms"] = st.read_unix_ms;
  }
  out["nodes"] = std::move(nodes);
  out["queue"] = std::move(queue);
  // The reason names the database's server (host and database), which the public view does not.
  if (!c.read.error.empty())
    out["error"] = full ? c.read.error : std::string("the cluster could not be read");
  return out;
}

}  // namespace cuzk::service
