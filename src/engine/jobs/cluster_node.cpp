// SPDX-License-Identifier: MIT OR Apache-2.0
// A daemon's name in a cluster (see cluster_node.hpp).
#include "engine/jobs/cluster_node.hpp"

#include <unistd.h>

namespace cuzk::engine {

std::string cluster_node_name(const std::string& configured) {
  if (!configured.empty()) return configured;
  char host[256] = {};
  const std::string name = ::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' ? host : "cuzk";
  return name + "-" + std::to_string(::getpid());
}

std::string cluster_spool_dir(const std::string& root, const std::string& node) {
  std::string part = node;
  for (char& ch : part)
    if (ch == '/' || ch == '\0') ch = '_';
  if (part == "." || part == "..") part = "_" + part;
  return root + "/" + part;
}

}  // namespace cuzk::engine
