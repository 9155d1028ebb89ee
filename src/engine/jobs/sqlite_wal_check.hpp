// SPDX-License-Identifier: MIT OR Apache-2.0
// A check of an SQLite write-ahead log before SQLite itself reads it.
//
// SQLite's recovery reads the WAL (format: https://www.sqlite.org/fileformat2.html#walformat, the
// "WAL File Format" section) frame by frame and stops, silently, at the first frame whose salts or
// checksum do not match: everything after it is dropped as if it had never been committed, and a
// WAL whose header is damaged is dropped whole. For the job store that means jobs acknowledged to
// their users vanish without a word (and their spooled witnesses are then swept as orphans). What
// SQLite drops legitimately is a torn last transaction (a crash while it was written: no commit
// frame follows it) and frames left from before a WAL restart (other salts). So this check refuses
// a WAL whose header is damaged, and one where a frame fails its checksum while a valid commit
// frame of the same salts follows it: committed transactions that SQLite would throw away.
//
// Thread safety: a free function.
#pragma once

#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

// ok when `wal_path` is absent, empty, or a log SQLite would read whole; format_error naming the
// file, the frame and what is wrong otherwise.
status check_sqlite_wal(const std::string& wal_path);

}  // namespace cuzk::engine
