// SPDX-License-Identifier: MIT OR Apache-2.0
// A job's outcome that the job store could not take yet, as the bytes of a file: what lets a proof
// made while the store is out of reach (a full disk, a database server restarting:
// docs/HARDENING.md, finding 17) survive a stop of the daemon, a drain or a kill -9, instead of
// being proved again after it. The engine writes it into the witness spool (witness_spool.hpp,
// put_result) when it parks an outcome, deletes it once the store took the outcome, and reads it
// back at its next start.
//
// The file is read only after a restart, when anything may have happened to it (a disk that filled
// while it was written is why it exists at all), so it is never trusted blindly: its first line
// names the format and carries the XXH3 digest of the rest (witness_digest), the rest is the
// job_result as JSON with the digest of the key its proofs were made under, and decode refuses
// anything cut short, altered or of another format. The caller then checks that it is this job's
// outcome (parked_result_mismatch: the id, the request id, the circuit, the partitions, the key).
// A file refused is logged and the job is proved again, as before the file existed.
//
// Thread safety: free functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/job_store.hpp"
#include "engine/jobs/witness_spool.hpp"

namespace cuzk::engine {

struct parked_result {
  job_result result;       // terminal, with its proofs when done
  std::string key_digest;  // key_summary::digest of the key the proofs were made under
};

std::string encode_parked_result(const parked_result& p);
// format_error naming what is wrong (the first line, the digest, a field).
result<parked_result> decode_parked_result(std::string_view bytes);
// Empty when `p` is the outcome of the job `rec` holds, made under the key of `key_digest`;
// otherwise how it differs ("request id r-2, not r-1").
std::string parked_result_mismatch(const parked_result& p, const job_record& rec,
                                   const std::string& key_digest);

// At a start: the outcome `spool` keeps for the job `rec` holds, if there is a file and it is this
// job's under the key of `key_digest`. nullopt otherwise; where a file was there but refused,
// `why` says why and the file is deleted (the job is proved again, and writes a new one if its end
// is parked again).
std::optional<job_result> take_parked_result(witness_spool& spool, const job_record& rec,
                                             const std::string& key_digest, std::string& why);

}  // namespace cuzk::engine
