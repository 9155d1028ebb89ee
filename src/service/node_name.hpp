// The name a daemon goes by in the cluster (the `nodes` table, the cluster view): unique among the
// daemons on one database, and the same across restarts, so that a restarted daemon takes up its
// own row instead of leaving a stale one beside a new one.
//
// It is the host's name, then a short digest of the daemon's data_dir ("prover-3/5f1c2a9e"): two
// daemons on one host have two data_dirs (each holds its own lock, data_dir_lock.hpp), and the
// digest names the directory without showing its path, which the public /status does not show.
#pragma once

#include <string>

namespace cuzk::service {

std::string node_name(const std::string& data_dir);

}  // namespace cuzk::service
