// SPDX-License-Identifier: MIT OR Apache-2.0
// The name a daemon goes by in the cluster when its config's `node_name` is empty: its leases are
// held in it (engine/cluster_member.hpp), its spool is the directory of that name under spool_dir, and the
// cluster view publishes its report under it (the `nodes` table, /status). It must be unique among
// the daemons on one database, and the same across restarts, so that a restarted daemon takes back
// its own leases and its own row instead of leaving a stale one beside a new one.
//
// It is the host's name, then a short digest of the daemon's data_dir ("prover-3/5f1c2a9e"): two
// daemons on one host have two data_dirs (each holds its own lock, data_dir_lock.hpp), and the
// digest names the directory without showing its path, which the public /status does not show.
#pragma once

#include <string>

namespace cuzk::service {

std::string default_node_name(const std::string& data_dir);

}  // namespace cuzk::service
