// Limits on the text a client puts in a request: request ids and file paths.
//
// Both reach the job database, the logs and (paths) the file system. A request id is an
// idempotency key a client makes up, not a payload: 256 bytes hold any UUID or hash with room to
// spare, and a 4 MB one would be stored, indexed and logged with every job. A path with a NUL byte
// names a different file to the kernel (which stops at the NUL) than the one the request shows, and
// one longer than PATH_MAX cannot name a file at all; both are refused before anything is opened.
//
// Thread safety: free functions.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

inline constexpr std::size_t max_request_id_bytes = 256;
inline constexpr std::size_t max_path_bytes = 4095;  // PATH_MAX less its NUL

// invalid_argument "request id: expected at most 256 bytes without control characters, found ...".
status check_request_id(const std::string& id);
// invalid_argument "<what>: expected a path without NUL bytes, of at most 4095 bytes, found ...".
status check_path_text(const std::string& what, const std::string& path);

}  // namespace cuzk::engine
