// SPDX-License-Identifier: MIT OR Apache-2.0
// Two status documents to the bench's hardware lines (see status_summary.hpp).
#include "service/status_summary.hpp"

#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

namespace cuzk::service {
namespace {

using nlohmann::json;

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2fGiB", bytes / double(1ull << 30));
  return b;
}

std::string fixed(double v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

double number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A slot's entry in the other document (slots keep their order and names while a daemon runs).
const json* slot_named(const json& doc, const std::string& name) {
  if (!doc.contains("devices") || !doc["devices"].is_array()) return nullptr;
  for (const auto& d : doc["devices"])
    if (d.value("name", "") == name) return &d;
  return nullptr;
}

const json* nvml_device(const json& doc, int index) {
  const auto g = doc.find("gpu_utilization");
  if (g == doc.end() || !g->is_object() || !g->contains("devices")) return nullptr;
  for (const auto& d : (*g)["devices"])
    if (d.value("index", -1) == index) return &d;
  return nullptr;
}

}  // namespace

namespace {

std::vector<std::string> summary_lines(const json& before, const json& after, double wall_s);

}  // namespace

result<std::vector<std::string>> hardware_summary(const std::string& before_json, const std::string& after_json,
                                                  double wall_s) {
  const json before = json::parse(before_json, nullptr, false), after = json::parse(after_json, nullptr, false);
  if (before.is_discarded() || !before.is_object())
    return status(errc::parse_error, "daemon status before the run: not a JSON object");
  if (after.is_discarded() || !after.is_object())
    return status(errc::parse_error, "daemon status after the run: not a JSON object");
  try {
    return summary_lines(before, after, wall_s);
  } catch (const json::exception& e) {  // a field of another type than this reader knows
    return status(errc::parse_error, std::string("daemon status: ") + e.what());
  }
}

namespace {

std::vector<std::string> summary_lines(const json& before, const json& after, double wall_s) {
  std::vector<std::string> out;

  const json mem = after.value("memory", json::object());
  std::string line = "memory rss_peak=" + gib(number(mem, "rss_peak_bytes")) + " (since daemon start)";
  const double host_budget = number(mem, "host_budget_bytes");
  if (host_budget > 0)
    line += " host_budget=" + gib(host_budget) + " (" +
            fixed(100 * number(mem, "rss_peak_bytes") / host_budget, 1) + "%), reserved peak " +
            gib(number(mem, "host_budget_peak_bytes")) + " (since daemon start)";
  else
    line += " host_budget=none";
  out.push_back(line);

  const json devices = after.value("devices", json::array());
  if (devices.empty()) {
    out.push_back("gpu: no GPU (backend " + after.value("backend", std::string("?")) + ")");
    return out;
  }
  const json g = after.value("gpu_utilization", json::object());
  const std::string monitor = g.value("monitor", "off");
  std::set<int> budget_shown;  // a device's budget once, for its first slot
  for (const auto& d : devices) {
    const std::string name = d.value("name", "?");
    const json* b = slot_named(before, name);
    const json kb = d.value("kernel_busy", json::object());
    const double busy = number(kb, "busy_s") - (b ? number(b->value("kernel_busy", json::object()), "busy_s") : 0);
    line = name + " gpu_busy=" + (wall_s > 0 ? fixed(busy / wall_s, 3) : std::string("?")) +
           " (kernel lock held " + fixed(busy, 2) + " s of " + fixed(wall_s, 2) + " s)";
    out.push_back(line);
    const double device_budget = number(d, "device_budget_bytes");
    if (device_budget > 0 && budget_shown.insert(d.value("ordinal", -1)).second)
      out.push_back(name + " device_budget=" + gib(device_budget) + " reserved_peak=" +
                    gib(number(d, "device_budget_peak_bytes")) + " (" +
                    fixed(100 * number(d, "device_budget_peak_bytes") / device_budget, 1) +
                    "%, since daemon start) reserved_now=" + gib(number(d, "device_budget_used_bytes")));

    line = name + " nvml";
    if (monitor != "running") {
      line += ": " + (monitor == "unavailable" ? "unavailable (" + g.value("reason", std::string("?")) + ")"
                                               : std::string("not running"));
      out.push_back(line);
      continue;
    }
    const auto idx = d.find("nvml_index");
    const json* n = idx != d.end() && idx->is_number_integer() ? nvml_device(after, idx->get<int>()) : nullptr;
    if (n == nullptr) {
      out.push_back(line + ": no NVML device at its PCI bus id \"" + d.value("pci_bus_id", std::string()) + "\"");
      continue;
    }
    const json* n0 = nvml_device(before, idx->get<int>());
    const json sm = n->value("sm_busy", json::object());
    const double samples = number(*n, "samples") - (n0 ? number(*n0, "samples") : 0);
    const double sum = number(sm, "sum") - (n0 ? number(n0->value("sm_busy", json::object()), "sum") : 0);
    line += " gpu=" + std::to_string(idx->get<int>()) + " \"" + n->value("name", std::string()) + "\"";
    line += samples > 0 ? " sm_busy_mean=" + fixed(sum / samples, 3) + " (" + fixed(samples, 0) + " samples)"
                        : std::string(" sm_busy_mean=? (no samples during the run)");
    line += " memory_peak=" + gib(number(*n, "memory_used_peak_bytes")) + " (since daemon start) of " +
            gib(number(*n, "memory_total_bytes")) + " key_budget=" + gib(number(d, "key_budget_bytes"));
    out.push_back(line);
  }
  return out;
}

}  // namespace
}  // namespace cuzk::service
