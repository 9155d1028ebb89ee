// SPDX-License-Identifier: MIT OR Apache-2.0
// The three ways the formats layer touches the file system: map a file read-only, read a small
// text file, and replace a file atomically.
//
// Proving keys are gigabytes and are used in place (their layout is the in-memory layout of our
// points), so they are mapped, never read into a buffer: the page cache is the "warm" residency
// tier of docs/ARCHITECTURE.md, shared by every process that maps the same key. Output files are written
// next to their destination under a temporary name and renamed over it, so a reader (or a crash)
// never sees half a proof or half a key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::formats {

// A read-only, private mapping of a whole file. Move-only; unmaps on destruction. An empty file
// maps to an empty span (mmap refuses length 0).
class mapped_file {
 public:
  mapped_file() = default;
  ~mapped_file();
  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  // io_error naming the path and the system's reason when the file cannot be opened or mapped.
  static result<mapped_file> open(const std::string& path);
  // A private copy of `path`, made in `dir` and mapped: the bytes belong to this process. A mapping
  // of the user's file raises SIGBUS (and kills a daemon) on the first page read after someone
  // truncates the file, whatever the mapping flags; the copy is an unnamed file (O_TMPFILE, or a
  // temporary unlinked at once where the file system lacks it), so no other process can name it,
  // and it vanishes with the mapping, also after a crash. It stays page cache (reclaimable,
  // written back under memory pressure), so a copied key costs what a mapped one costs, plus its
  // size on the disk of `dir` (nothing with reflinks, which copy_file_range uses where it can).
  // io_error when the source is not a regular file or changes size while it is copied.
  static result<mapped_file> open_private_copy(const std::string& path, const std::string& dir);

  // A piece of a laid-out private copy: `size` bytes of the source from offset `from`, or, when
  // `bytes` is not empty, those bytes (what a layout adds: headers, padding).
  struct copy_piece {
    uint64_t from = 0;
    uint64_t size = 0;
    std::string bytes;
  };
  // Up to `n` bytes of the source from `offset` (fewer where it ends).
  using source_reader = std::function<result<std::string>(uint64_t offset, std::size_t n)>;
  // The pieces of the copy, in order, for a source of `size` bytes, read through `read`; an error
  // stops the copy before a byte is written.
  using copy_layout = std::function<result<std::vector<copy_piece>>(const source_reader& read, uint64_t size)>;
  // The same private copy, laid out as `layout` says: a format can move its parts in the copy (the
  // iden3 container aligns its sections, binfile.hpp). The source may not change while it is
  // copied (io_error, as above); a piece beyond the source's end is an internal error.
  static result<mapped_file> open_private_copy(const std::string& path, const std::string& dir,
                                               const copy_layout& layout);

  std::span<const uint8_t> bytes() const noexcept { return {data_, size_}; }

 private:
  static result<mapped_file> map_fd(int fd, std::size_t size, const std::string& path);

  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// The whole file as text (for JSON files, which are small), read into a string sized once from the
// file's size (appending in 64 KiB pieces doubled the buffer: a 2 GiB file took 4 GiB).
result<std::string> read_text_file(const std::string& path);
// The same, refused before a byte is read when the file is larger than `max_bytes` (fstat), or
// grows past it while it is read: resource_exhausted "<path>: file size: expected at most N bytes
// (<kind>), found M". `kind` says what the limit is for ("a snarkjs JSON file").
result<std::string> read_text_file(const std::string& path, uint64_t max_bytes, std::string_view kind);
// Its first `n` bytes (fewer when the file is shorter), to tell what kind of file it is.
result<std::string> read_file_head(const std::string& path, std::size_t n);
// Every reader above refuses what is not a regular file (io_error "<path>: not a regular file (a
// FIFO)") before it reads a byte: a FIFO would block the reader forever (in the daemon, a request
// thread and the drain at SIGTERM), a device could be endless, a directory is a mistake. The file
// is opened with O_NONBLOCK and checked with fstat, so not even the open of a FIFO blocks.

// Whether a write waits for its bytes to reach the disk (fsync) before the file takes its name.
// With `yes`, a power loss leaves the old file or the whole new one; with `no`, a crash of the
// process still does (the rename), but a power loss soon after may leave an empty or cut file, as
// it may for any tool that writes without fsync (cp, snarkjs). `no` is for large outputs that are
// recomputed from their inputs, where fsync would cost more than the computation.
enum class flush_to_disk : bool { no, yes };

// Writes `path` through a temporary file in the same directory and rename(2); on any failure the
// temporary is removed and `path` is left as it was. The new file gets mode 0644 (mkstemp's 0600
// would hide a proof from the user's other tools).
status write_file_atomically(const std::string& path, std::string_view content, flush_to_disk flush = flush_to_disk::yes);
// The same with the content in parts, written one after another: a file made of large arrays needs
// no copy of them joined (the witness graph's 49 MB program, which a joined copy held twice).
status write_file_atomically(const std::string& path, std::span<const std::string_view> parts,
                             flush_to_disk flush = flush_to_disk::yes);

}  // namespace cuzk::formats
