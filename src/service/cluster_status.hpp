// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster in /status (docs/cluster.md, 'The cluster view'): what this node publishes about
// itself, and the object /status and `cuzk status` carry when the job store is PostgreSQL.
//
// A node's report is built from its own status: its version, backend, whether it accepts jobs,
// its workers (how many, how many busy), its devices (name, what they are, memory and key
// budgets), the keys resident in its memory or on its devices (circuit ids and where), its own
// queue's depth, and the addresses it serves on (the config's listen and http). It names no path
// and no request id, so the public view (HTTP) shows the cluster whole, as it shows circuit ids
// and addresses today; only the reason a read of the cluster failed, which names the database's
// server, is the full view's alone, as the config's `database` line is (config.hpp, local_only).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "engine/engine.hpp"
#include "engine/jobs/pg_cluster_view.hpp"

namespace cuzk::service {

// What /status shows of the cluster: the view's last read, and which node is this one.
struct cluster_status {
  engine::pg_cluster_view::latest_read read;
  std::string self;
};

// This node's report: a JSON object (see above).
std::string node_report_json(const engine::engine_snapshot& s, const std::string& listen,
                             const std::string& http);

// /status's `cluster` object: nodes (each with its report, heartbeat age, alive or stale, leases
// held, and whether it is this node), the queue by priority ({queued, running} per class), the
// staleness threshold and when it was read. `full`: the read's error text, where there is one.
nlohmann::json cluster_status_json(const cluster_status& c, bool full);

}  // namespace cuzk::service
