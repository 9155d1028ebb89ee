// SPDX-License-Identifier: MIT OR Apache-2.0
// Writes an iden3 container (see binfile.hpp) section by section, streaming: a section's size is
// patched into its header when the section ends, and the section count when the file is
// committed, so a multi-gigabyte section never has to be held in memory whole.
//
// The file is written under a temporary name next to `path` and renamed over it by commit(): a
// reader never sees a half-written key, and a writer dropped without commit() (an error on the
// way) removes its temporary.
//
// Not thread-safe: one thread writes one file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace cuzk::formats {

class binfile_writer {
 public:
  static result<binfile_writer> create(const std::string& path, std::string_view magic, uint32_t version);

  ~binfile_writer();
  binfile_writer(binfile_writer&& o) noexcept;
  binfile_writer& operator=(binfile_writer&&) = delete;
  binfile_writer(const binfile_writer&) = delete;
  binfile_writer& operator=(const binfile_writer&) = delete;

  status begin_section(uint32_t type);
  status write(std::span<const uint8_t> bytes);
  status write_u32(uint32_t v);
  status end_section();
  // begin_section + write + end_section.
  status write_section(uint32_t type, std::span<const uint8_t> payload);

  // Patches the section count, flushes, fsyncs and renames the temporary over `path`.
  status commit();

 private:
  binfile_writer() = default;
  status io_failure(const char* what);

  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  uint32_t n_sections_ = 0;
  long section_header_at_ = -1;  // file offset of the open section's header, -1 when none is open
  bool committed_ = false;
};

}  // namespace cuzk::formats
