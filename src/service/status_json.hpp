// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine's state for people and monitoring: /status JSON and Prometheus /metrics text.
//
// Both are pure functions of an engine_snapshot (plus the config for /status), so the HTTP and
// gRPC endpoints return the same documents and tests can check them without a daemon.
//
// /status comes in two views (docs/HARDENING.md, finding 15). The full one, with each job's request
// id, each key's zkey path and the config's paths (data_dir, socket, witness_dirs), goes only to
// gRPC's GetStatus (`cuzk status`): its callers may already register keys by path and submit, and
// its socket is mode 0600. HTTP serves the public view to whoever reaches its port: the same
// document without those, so circuit ids, job numbers, states, counts and timings stay visible to
// monitoring while the names clients chose and the layout of the daemon's disk do not. /metrics and
// /trace name nothing of either kind (circuit ids, job numbers, phases, devices).
//
// /status lists the jobs that ended last (recent_jobs, newest first, with their phase times), as the
// store takes an ended job out of `jobs` at once. A failed or cancelled job carries why
// (error_code, error): the public view's text has every path replaced by "<path>", so an operator
// sees the reason (circom's assert, a deadline) without the disk's layout. Each live job carries
// elapsed_s since its submit and, on a worker, running_s since its dispatch and the partition the
// worker is on, so a job stuck in one phase is visible on its own.
//
// With the job store on PostgreSQL, /status carries the cluster (cluster_status.hpp): every node
// on the database with its report and heartbeat, and the shared queue by priority.
//
// /status carries the build's version and revision (base/version.hpp). Config values keep their
// types (numbers, booleans, strings, arrays), and a byte budget without a limit is null.
//
// Prometheus histograms are cumulative: the engine counts each bucket's own observations, and
// `_bucket{le="x"}` here is the running sum up to x, with `le="+Inf"` equal to `_count`.
#pragma once

#include <cstdint>
#include <string>

#include "engine/engine.hpp"
#include "service/cluster_status.hpp"
#include "service/config.hpp"

namespace cuzk::service {

enum class status_view : uint8_t { full, public_view };

// `cluster`: the cluster as this node read it last (cluster_status.hpp), with a PostgreSQL store;
// without one (SQLite) the document has no `cluster` key, as before.
std::string status_json(const engine::engine_snapshot& s, const daemon_config& c, status_view view,
                        const cluster_status* cluster = nullptr);
std::string prometheus_text(const engine::engine_snapshot& s);

}  // namespace cuzk::service
