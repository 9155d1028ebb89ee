// The engine's state for people and monitoring: /status JSON and Prometheus /metrics text.
//
// Both are pure functions of an engine_snapshot (plus the config for /status), so the HTTP and
// gRPC endpoints return the same documents and tests can check them without a daemon.
//
// Prometheus histograms are cumulative: the engine counts each bucket's own observations, and
// `_bucket{le="x"}` here is the running sum up to x, with `le="+Inf"` equal to `_count`.
#pragma once

#include <string>

#include "engine/engine.hpp"
#include "service/config.hpp"

namespace cuzk::service {

std::string status_json(const engine::engine_snapshot& s, const daemon_config& c);
std::string prometheus_text(const engine::engine_snapshot& s);

}  // namespace cuzk::service
