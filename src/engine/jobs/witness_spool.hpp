// SPDX-License-Identifier: MIT OR Apache-2.0
// Witness files kept beside the job store, so a queued job's input survives a restart.
//
// An inline witness is written before the job's row is committed: temporary file, write, fsync,
// rename, fsync of the directory. After a crash a file is therefore either whole under its final
// name or absent, never half-written; a file whose job row never got committed is an orphan that
// sweep() removes at the next start. Files are mode 0600: a witness is the prover's secret.
//
// A submit that proves while it stores (engine_submit.cpp, 'submit') splits the write: begin() creates
// the empty temporary (and makes its name durable) before the job's row is committed, complete()
// fills it and renames it into place before the submit returns. A row whose final file is missing
// while its temporary is there is then a submit that never returned (interrupted()): the engine
// deletes that job at its next start rather than failing a job nobody was given.
//
// The spool also keeps, per job, the outcome that the job store could not take yet (a full disk, a
// database server restarting: parked_result.hpp), so that a proof made survives a stop of the
// daemon until the store takes it. It is written the same way, so it is whole or absent, and it
// lives beside the job's witnesses because it is their product: both go once the store has the
// outcome.
//
// A write the file system refuses for now (full, over quota, read-only, an immutable file or
// folder, an I/O error) is errc::unavailable, a fault that passes once the operator makes room or
// gives write access back, as the job store says of the same disk; any other failure is io_error
// naming the file (docs/HARDENING.md, finding 31).
//
// Thread safety: any thread (names are unique per process and call).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
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

  // A spool file being written: its final path, and the temporary it is written under.
  struct pending {
    std::string path;
    std::string tmp() const { return path + ".tmp"; }
  };
  // Creates the empty temporary of a new unique name, durable on return.
  result<pending> begin();
  // Writes `bytes` into it, fsyncs it and renames it to its final path, durable on return. On an
  // error the temporary stays (emptied), still marking the file as begun: abandon() it once
  // nothing names it.
  status complete(const pending& p, std::span<const uint8_t> bytes);
  // Deletes a begun file that will not be completed.
  void abandon(const pending& p) noexcept;
  // Whether `path` names a file begun and never completed: the final name absent, the temporary
  // there.
  static bool interrupted(const std::string& path) noexcept;
  // Deletes a spooled file; a missing file is not an error (a purge may race a restart).
  void remove(const std::string& path) noexcept;
  // Deletes every spool file not in `keep` (full paths), witnesses and parked outcomes, including
  // leftover temporaries; returns how many were deleted.
  std::size_t sweep(const std::set<std::string>& keep) noexcept;

  // Job `id`'s parked outcome (parked_result.hpp): its path, a durable write of its bytes
  // (replacing any before), its bytes (nullopt when there is none; io_error when it cannot be
  // read, or holds more than `max_result_bytes`, which no outcome does), and its deletion.
  static constexpr std::size_t max_result_bytes = 64u << 20;
  std::string result_path(uint64_t id) const;
  status put_result(uint64_t id, std::span<const uint8_t> bytes);
  result<std::optional<std::string>> read_result(uint64_t id) const;
  void remove_result(uint64_t id) noexcept;

 private:
  result<pending> create_temporary();
  explicit witness_spool(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::atomic<uint64_t> counter_{0};
};

}  // namespace cuzk::engine
