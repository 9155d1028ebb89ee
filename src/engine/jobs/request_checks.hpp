// SPDX-License-Identifier: MIT OR Apache-2.0
// The checks a submit request passes before the engine looks anything up for it: the limits on the
// text a client puts in it (request ids and file paths) and its shape (partitions, each with either
// witness bytes or a path).
//
// Both reach the job database, the logs and (paths) the file system. A request id is an
// idempotency key a client makes up, not a payload: 256 bytes hold any UUID or hash with room to
// spare, and a 4 MB one would be stored, indexed and logged with every job. A path with a NUL byte
// names a different file to the kernel (which stops at the NUL) than the one the request shows, and
// one longer than PATH_MAX cannot name a file at all; both are refused before anything is opened.
//
// check_job_request() is what engine::submit runs once it knows the circuit; it reads only the
// request, so the fuzz target (fuzz/submit_request_fuzz.cpp) runs it without an engine.
//
// Thread safety: free functions.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.hpp"
#include "engine/jobs/job.hpp"

namespace cuzk::engine {

inline constexpr std::size_t max_request_id_bytes = 256;
inline constexpr std::size_t max_path_bytes = 4095;  // PATH_MAX less its NUL

// invalid_argument "request id: expected at most 256 bytes without control characters, found ...".
status check_request_id(const std::string& id);
// invalid_argument "<what>: expected a path without NUL bytes, of at most 4095 bytes, found ...".
status check_path_text(const std::string& what, const std::string& path);

// invalid_argument for a request without partitions, with a bad request id or path (above), or
// with a partition that has both witness bytes and a path, or neither; the message names the
// partition.
status check_job_request(const job_request& req);

}  // namespace cuzk::engine
