// SPDX-License-Identifier: MIT OR Apache-2.0
// The checks a submit request passes before the engine stores anything for it: the limits on the
// text a client puts in it (request ids and file paths), its shape (partitions, each with either
// witness bytes or a path), and each partition's witness against the circuit's key.
//
// Both texts reach the job database, the logs and (paths) the file system. A request id is an
// idempotency key a client makes up, not a payload: 256 bytes hold any UUID or hash with room to
// spare, and a 4 MB one would be stored, indexed and logged with every job. A path with a NUL byte
// names a different file to the kernel (which stops at the NUL) than the one the request shows, and
// one longer than PATH_MAX cannot name a file at all; both are refused before anything is opened.
//
// A witness is checked where it is (witness.hpp): an inline .wtns in the request's own bytes, so
// that what the spool holds is what was checked; a path's file once read (under witness_dirs);
// input JSON by circom's input rules, through the circuit's generator. The first refused partition
// in order is the one named.
//
// engine::submit runs check_request_shape() once it knows the circuit, before it looks the request
// id up, so that a malformed request is refused as such whatever its request id names; then
// check_partitions(), which checks the shape again (a loop over the partitions' texts) and each
// witness; on a daemon alone, the files named by path are checked by check_witness_paths() after the
// job is queued, while it proves, and the submit returns once they are. check_partitions() reads only the request, the key and the files, so the fuzz target
// (fuzz/submit_request_fuzz.cpp) runs it without an engine.
//
// Thread safety: free functions; check_partitions() reads files on threads of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/witness_dirs.hpp"
#include "engine/jobs/key_summary.hpp"

namespace cuzk::engine {

inline constexpr std::size_t max_request_id_bytes = 256;
inline constexpr std::size_t max_path_bytes = 4095;  // PATH_MAX less its NUL
// The largest input JSON a job may carry: circom inputs are field elements as text, ~80 bytes each,
// so this is about a million values; a larger input is better computed by the client.
inline constexpr uint64_t max_input_json_bytes = uint64_t{64} << 20;

// invalid_argument "request id: expected at most 256 bytes without control characters, found ...".
status check_request_id(const std::string& id);
// invalid_argument "<what>: expected a path without NUL bytes, of at most 4095 bytes, found ...".
status check_path_text(const std::string& what, const std::string& path);

// invalid_argument for a request without partitions, with a bad request id or path (above), or
// with a partition that has both witness bytes and a path, or neither; the message names the
// partition.
status check_request_shape(const job_request& req);

// What check_partitions() needs besides the request and the key.
struct partition_checks {
  const witness_dirs* dirs = nullptr;  // where a client's paths may lie
  std::size_t reads_at_once = 1;       // witness files read and checked at once
  // false: the witnesses named by path are left to check_witness_paths(), which the submit runs
  // while the job already proves (arriving_witnesses.hpp).
  bool paths = true;
  // circom's input rules, run by the circuit's generator; empty: the circuit takes no input JSON.
  std::function<status(std::string_view json, const std::string& what)> input_json;
};

// Which kind of refusal check_partitions() returned, for the count of refusals by reason.
enum class request_fault : uint8_t { none, malformed, witness };

// invalid_argument (`fault` malformed) for what check_request_shape() refuses; then
// (`fault` witness) the first partition in order whose witness the key refuses: a .wtns of another
// curve, of the wrong length or with a value >= r (the witness reader's code), a path outside
// witness_dirs, input JSON that is too large or that circom's input rules refuse (invalid_argument),
// or input JSON for a circuit without a generator (failed_precondition). Messages name the
// partition ("partition 2: ...").
status check_partitions(const job_request& req, const key_summary& key, const partition_checks& with,
                        request_fault& fault);
// The witnesses named by path alone, `with.reads_at_once` files at a time: the first partition in
// order whose file is refused (outside witness_dirs, unreadable, or a .wtns the key refuses), as
// check_partitions() names it. Later files are not read after a refusal.
status check_witness_paths(const job_request& req, const key_summary& key, const partition_checks& with);
// The same answer for a job already proving: its files from the last partition back, one at a
// time, each unless `passed_elsewhere(k)` says that partition's file was read and passed by the
// job itself (arriving_witnesses.hpp), which reads from the first on. A partition whose read by
// the job failed (`failed_elsewhere`, the lowest) is checked next, wherever the check is, and once
// one is refused the partitions after it are not read. The first refusal in partition order is the
// one returned.
status check_witness_paths_from_last(const job_request& req, const key_summary& key, const witness_dirs& dirs,
                                     const std::function<bool(std::size_t)>& passed_elsewhere,
                                     const std::function<std::optional<std::size_t>()>& failed_elsewhere);

}  // namespace cuzk::engine
