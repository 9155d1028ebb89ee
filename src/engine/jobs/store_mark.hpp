// SPDX-License-Identifier: MIT OR Apache-2.0
// The SQLite job store's high-water mark: the last job id it assigned and how many jobs had ended,
// in a small file beside the database (<db>.mark).
//
// SQLite cannot tell a write-ahead log cut at a frame's edge, emptied or deleted from one that
// simply ends there: it reads the database as it stood before the lost commits, without a word. A
// daemon then started on a store that had lost jobs acknowledged to their users, swept their
// spooled witnesses as orphans and gave their ids to new jobs (docs/HARDENING.md, finding 18). The
// mark is kept outside the log, so the store can compare the database against it at open and
// refuse one that is behind.
//
// The mark may lag the database, never lead it: a commit that raises a count writes the mark
// after it, one that lowers a count (a purge, a removal) before it. So a crash between the two
// leaves the mark at or below the database, and a whole database is never refused. The record is
// one fixed-size pwrite at offset 0, not fsync'd: a mark lost with the page cache (power loss) only
// lags, which makes the check weaker for that once, never wrong.
//
// Thread safety: none; the SQLite store calls it under its mutex.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

struct mark_counts {
  int64_t last_id = 0;  // the largest job id the store assigned
  int64_t ended = 0;    // how many of its jobs are in a terminal state
};

class store_mark : public mark_counts {
 public:
  // The mark at `path`; zeros when there is none (a store made before marks were kept, or a new
  // one). format_error, naming the file, when it exists and is not a mark.
  static result<mark_counts> read(const std::string& path);

  store_mark() = default;
  ~store_mark();
  store_mark(const store_mark&) = delete;
  store_mark& operator=(const store_mark&) = delete;

  // Opens (creating, mode 0600) the file that write() updates.
  status open(const std::string& path);
  // Records last_id and ended. Best effort: a mark that cannot be written only lags.
  void write() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace cuzk::engine
