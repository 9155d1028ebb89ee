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
#include <span>
#include <string>
#include <string_view>

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

  std::span<const uint8_t> bytes() const noexcept { return {data_, size_}; }

 private:
  const uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// The whole file as text (for JSON files, which are small).
result<std::string> read_text_file(const std::string& path);

// Writes `path` through a temporary file in the same directory and rename(2); on any failure the
// temporary is removed and `path` is left as it was. The new file gets mode 0644 (mkstemp's 0600
// would hide a proof from the user's other tools).
status write_file_atomically(const std::string& path, std::string_view content);

}  // namespace cuzk::formats
