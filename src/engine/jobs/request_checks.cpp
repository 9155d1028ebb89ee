// SPDX-License-Identifier: MIT OR Apache-2.0
// The request text limits (see request_checks.hpp).
#include "engine/jobs/request_checks.hpp"

#include <algorithm>

namespace cuzk::engine {

status check_request_id(const std::string& id) {
  if (id.size() > max_request_id_bytes)
    return status(errc::invalid_argument, "request id: expected at most " +
                                              std::to_string(max_request_id_bytes) + " bytes, found " +
                                              std::to_string(id.size()));
  const auto bad = std::find_if(id.begin(), id.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (bad != id.end())
    return status(errc::invalid_argument, "request id: expected no control characters, found byte " +
                                              std::to_string(static_cast<unsigned char>(*bad)) +
                                              " at offset " + std::to_string(bad - id.begin()));
  return status::ok();
}

status check_path_text(const std::string& what, const std::string& path) {
  if (const auto nul = path.find('\0'); nul != std::string::npos)
    return status(errc::invalid_argument,
                  what + ": expected a path without NUL bytes, found one at offset " + std::to_string(nul));
  if (path.size() > max_path_bytes)
    return status(errc::invalid_argument, what + ": expected a path of at most " +
                                              std::to_string(max_path_bytes) + " bytes, found " +
                                              std::to_string(path.size()));
  return status::ok();
}

status check_job_request(const job_request& req) {
  if (req.partitions.empty())
    return status(errc::invalid_argument, "job: expected at least one partition, found 0");
  CUZK_TRY(check_request_id(req.request_id));
  for (std::size_t k = 0; k < req.partitions.size(); ++k) {
    const std::string what = "partition " + std::to_string(k);
    CUZK_TRY(check_path_text(what, req.partitions[k].path));
    const bool has_bytes = !req.partitions[k].inline_bytes().empty(), has_path = !req.partitions[k].path.empty();
    if (has_bytes == has_path)
      return status(errc::invalid_argument, what + ": expected the .wtns bytes, a path or input JSON, found " +
                                                (has_bytes ? "both bytes and a path" : "none of them"));
  }
  return status::ok();
}

}  // namespace cuzk::engine
