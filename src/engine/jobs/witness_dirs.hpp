// SPDX-License-Identifier: MIT OR Apache-2.0
// Where the daemon may read a witness that a client names by path, and how it reads one.
//
// A path is opened with the daemon's rights, not the client's, so an open path option lets any
// local user who can reach the socket prove a witness they cannot read, learn the first bytes of
// any file from the format error, or test whether a path exists (docs/HARDENING.md, finding 2). So
// a path is read only when its real path (symlinks and ".." resolved) lies under one of the
// directories the operator listed (config key witness_dirs; none by default, and then every path is
// refused while inline witnesses still work), and only when it is a regular file: opened with
// O_NOFOLLOW (the last component cannot be swapped for a symlink after the check) and O_NONBLOCK (a
// FIFO cannot park the thread), checked with fstat, and its descriptor's own path (/proc/self/fd)
// checked again, so a directory swapped for a symlink between realpath and open leads nowhere.
// Every refusal (missing, outside, not a regular file, unreadable) is one message that names only
// the client's own path and the rule, so it tells nothing about what exists.
//
// The file is read into memory rather than mapped: a client who truncates a mapped file kills the
// daemon with SIGBUS on the next page read (what engine_options::key_copy_dir avoids for keys).
// It is read in pieces of 8 MiB on up to 8 threads of the read's own, into memory left
// uninitialized.
//
// Thread safety: immutable after create(); any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/bulk_array.hpp"
#include "base/result.hpp"

namespace cuzk::engine {

class witness_dirs {
 public:
  // Resolves each directory now (realpath); invalid_argument naming the entry ("witness_dirs[1]";
  // `config_key` names the list) for one that is not an absolute path to a directory. The same rule
  // confines the key and wasm paths a client registers (config key key_dirs, docs/HARDENING.md
  // finding 19).
  static result<witness_dirs> create(const std::vector<std::string>& dirs,
                                     const std::string& config_key = "witness_dirs");

  // Whether `path` passes the rule above: its real path under one of the directories, a regular
  // file that opens for reading (O_NOFOLLOW, O_NONBLOCK) and whose descriptor's path is still under
  // them. Tells nothing more: missing and refused are the same false.
  bool allows_file(const std::string& path) const;

  bool empty() const noexcept { return dirs_.empty(); }
  const std::vector<std::string>& resolved() const noexcept { return dirs_; }

  // The bytes of the file at `path` when the rule above allows it and it holds at most
  // `max_bytes`. Errors: failed_precondition with the one refusal message (or, with no directories,
  // one that says witness paths are off); resource_exhausted for a file larger than `max_bytes`
  // and io_error for a failed read, which name an allowed file only. The file's bytes start at
  // `lead` in the array (the bytes before are the caller's, uninitialized): a .wtns read with lead 4
  // has its values 8-byte aligned, to be used in place (witness.cpp).
  result<bulk_array<uint8_t>> read(const std::string& path, uint64_t max_bytes, std::size_t lead = 0) const;

 private:
  bool allows(const std::string& real_path) const;
  std::vector<std::string> dirs_;
};

}  // namespace cuzk::engine
