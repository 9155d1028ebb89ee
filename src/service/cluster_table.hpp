// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk status --cluster`: the cluster of a /status document (cluster_status.hpp) for a person, as
// two tables (the nodes; the queue by priority), or its JSON object alone with --json.
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::service {

// parse_error when `status_json` is not JSON. A document without a cluster (the daemon's store is
// SQLite) gives a line that says so, or `null` as JSON.
result<std::string> cluster_text(const std::string& status_json, bool as_json);

}  // namespace cuzk::service
