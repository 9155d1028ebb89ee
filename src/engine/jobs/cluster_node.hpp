// SPDX-License-Identifier: MIT OR Apache-2.0
// A daemon's name in a cluster, and the spool directory that name gives it.
//
// Every daemon on one PostgreSQL queue is a node with a name unique among them: its leases are held
// in that name (pg_job_leases.hpp), and its inline witnesses are spooled into a directory of that
// name under a root that every node mounts at the same path, so that another node can read them
// when it takes a job up, and no two nodes write or sweep the same directory (docs/cluster.md).
#pragma once

#include <string>

namespace cuzk::engine {

// `configured`, or when empty the host's name and the process id ("prover-3-4242").
std::string cluster_node_name(const std::string& configured);
// <root>/<node>, the node's name made one path component ('/' becomes '_').
std::string cluster_spool_dir(const std::string& root, const std::string& node);

}  // namespace cuzk::engine
