// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/node_name.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace cuzk::service {

std::string default_node_name(const std::string& data_dir) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
    std::snprintf(host, sizeof host, "localhost");
  // The same directory by any spelling of its path: the absolute, normalized form.
  std::error_code ec;
  auto abs = std::filesystem::weakly_canonical(std::filesystem::absolute(data_dir, ec), ec);
  const std::string path = ec ? data_dir : abs.string();
  // FNV-1a, 32 bits: enough to tell a host's few daemons apart, and stable across builds.
  uint32_t h = 2166136261u;
  for (unsigned char c : path) h = (h ^ c) * 16777619u;
  char digest[9];
  std::snprintf(digest, sizeof digest, "%08x", h);
  return std::string(host) + "/" + digest;
}

}  // namespace cuzk::service
