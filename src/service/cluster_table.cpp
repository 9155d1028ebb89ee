// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/cluster_table.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

namespace cuzk::service {
namespace {

using nlohmann::json;
using rows = std::vector<std::vector<std::string>>;

// Columns as wide as their longest value, two spaces apart.
std::string aligned(const rows& r) {
  std::vector<std::size_t> width(r[0].size(), 0);
  for (const auto& row : r)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : r) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

// A field as text: strings as they are, numbers as JSON writes them, "-" where it is missing.
std::string text(const json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || o[key].is_null()) return "-";
  return o[key].is_string() ? o[key].get<std::string>() : o[key].dump();
}

std::string age(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f s ago", seconds);
  return b;
}

std::string devices(const json& report) {
  if (!report.is_object() || !report.contains("devices") || !report["devices"].is_array()) return "-";
  if (report["devices"].empty()) return "cpu";
  std::string out;
  for (const auto& d : report["devices"]) {
    if (!out.empty()) out += ", ";
    out += text(d, "name");
    const std::string what = text(d, "description");
    if (what != "-" && !what.empty()) out += " (" + what + ")";
  }
  return out;
}

std::string resident_keys(const json& report) {
  if (!report.is_object() || !report.contains("resident_keys") || !report["resident_keys"].is_array())
    return "-";
  std::string out;
  for (const auto& k : report["resident_keys"]) {
    if (!out.empty()) out += ", ";
    out += text(k, "circuit") + " (" + text(k, "tier") + ")";
  }
  return out.empty() ? "none" : out;
}

}  // namespace

result<std::string> cluster_text(const std::string& status_json, bool as_json) {
  const json doc = json::parse(status_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return status(errc::parse_error, "status: expected the daemon's JSON document, found something else");
  if (!doc.contains("cluster") || !doc["cluster"].is_object())
    return as_json ? std::string("null\n")
                   : std::string(
                         "no cluster: the daemon keeps its jobs in SQLite, alone (set `database` to share "
                         "a PostgreSQL queue: docs/cluster.md)\n");
  const json& c = doc["cluster"];
  if (as_json) return c.dump(2) + "\n";
  rows nodes = {
      {"NODE", "STATE", "HEARTBEAT", "VERSION", "BACKEND", "BUSY", "DEVICES", "RESIDENT KEYS", "LEASES"}};
  const json none = json::object();
  for (const auto& n : c.value("nodes", json::array())) {
    const json& r = n.contains("report") ? n["report"] : json();
    const bool self = n.value("self", false);
    nodes.push_back(
        {text(n, "id") + (self ? " *" : ""), n.value("alive", false) ? "alive" : "stale",
         age(n.value("heartbeat_age_s", 0.0)), text(r, "version"), text(r, "backend"),
         r.is_object() && r.contains("workers") ? text(r, "busy_workers") + "/" + text(r, "workers") : "-",
         devices(r), resident_keys(r), text(n, "leases")});
  }
  rows queue = {{"PRIORITY", "QUEUED", "RUNNING"}};
  const json q = c.value("queue", none);
  for (const char* p : {"CRITICAL", "HIGH", "NORMAL", "LOW"})  // the claim order
    if (q.contains(p)) queue.push_back({p, text(q[p], "queued"), text(q[p], "running")});
  std::string out = aligned(nodes);
  out += "(* this node; stale: no heartbeat for " + text(c, "stale_after_s") + " s)\n\n" + aligned(queue);
  if (c.contains("error")) out += "error: " + text(c, "error") + "\n";
  return out;
}

}  // namespace cuzk::service
