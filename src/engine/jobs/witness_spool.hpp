// Witness files kept beside the job store, so a queued job's input survives a restart.
//
// An inline witness is written before the job's row is committed: temporary file, write, fsync,
// rename, fsync of the directory. After a crash a file is therefore either whole under its final
// name or absent, never half-written; a file whose job row never got committed is an orphan that
// sweep() removes at the next start. Files are mode 0600: a witness is the prover's secret.
//
// Thread safety: any thread (names are unique per process and call).
#pragma once

#include <atomic>
#include <cstdint>
#include <set>
#include <span>
#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

class witness_spool {
 public:
  // Creates `dir` (and its parents) when missing; io_error naming it otherwise.
  static result<witness_spool> open(const std::string& dir);

  witness_spool(witness_spool&& o) noexcept : dir_(std::move(o.dir_)), counter_(o.counter_.load()) {}

  const std::string& dir() const noexcept { return dir_; }

  // Writes `bytes` under a new unique name; returns the full path.
  result<std::string> write(std::span<const uint8_t> bytes);
  // Deletes a spooled file; a missing file is not an error (a purge may race a restart).
  void remove(const std::string& path) noexcept;
  // Deletes every spool file not in `keep` (full paths), including leftover temporaries; returns
  // how many were deleted.
  std::size_t sweep(const std::set<std::string>& keep) noexcept;

 private:
  explicit witness_spool(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::atomic<uint64_t> counter_{0};
};

}  // namespace cuzk::engine
