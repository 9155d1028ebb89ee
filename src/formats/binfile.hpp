// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 binary container shared by .r1cs, .wtns and .zkey (and .ptau):
//
//   magic (4 ASCII bytes) | u32 version | u32 section count | (u32 type, u64 size, payload)*
//
// all little-endian. A file is mapped read-only and its section table (type -> offset, size) is
// built once; section(id) is a span into the mapping, never a copy, so a multi-gigabyte proving
// key costs no memory beyond the page cache until it is used.
//
// Sections are looked up by type and never assumed to be in order: circom writes r1cs sections
// as 2, 1, 3 and `snarkjs zkey new` writes 1, 2, 4, 3, 9, 8, 5, 6, 7, 10. A type may occur more
// than once in the table (the container allows it); section() refuses a duplicate where the
// format expects one section, as snarkjs's startReadUniqueSection does.
//
// Validation at open: magic (expected and found), version in 1..max_version, the header and every
// section header present, every section's size inside the file, nothing after the last section.
// Every message starts with the file's name.
//
// The mapping is private and read-only, but it is still the file: truncating the file on disk while
// it is mapped makes later reads of the lost pages fault (SIGBUS). Keys are replaced by writing a new
// file and renaming it over the old one (binfile_writer does), which leaves existing mappings intact.
//
// Thread safety: a binfile is immutable after open; any number of threads may read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.hpp"
#include "formats/file_io.hpp"

namespace cuzk::formats {

class binfile {
 public:
  struct section_entry {
    uint32_t type;
    uint64_t offset;  // of the payload, from the start of the file
    uint64_t size;
  };

  // Maps `path` and checks it as above.
  static result<binfile> open(const std::string& path, std::string_view magic, uint32_t max_version);
  // The same checks over a file mapped by the caller (mapped_file::open_private_copy); `name` stands
  // for the path in messages.
  static result<binfile> from_mapping(mapped_file m, const std::string& name, std::string_view magic,
                                      uint32_t max_version);
  // The same checks over a private copy of `path` made in `dir` (mapped_file::open_private_copy
  // says why a daemon wants one), laid out so that every section's payload starts at a multiple of
  // 8 bytes from the file's start: before a payload that would not, the copy has a section of type
  // padding_section holding 0 to 7 zero bytes, and its header counts those sections too. Readers
  // look sections up by type (see above), so they read the copy as the file; what the layout buys
  // is that points, whose limbs are 8-byte words, are used in place in every section (a zkey's
  // sections 5..9 alternate between aligned and not in the file, and a misaligned one is copied
  // into memory once more: formats/zkey.hpp). A file whose container is malformed is copied as it
  // is, so that the checks report it as they would the file; so is one that needs no padding. A
  // padded copy is never a reflink of the file (a clone keeps every byte's offset within its
  // block), so it takes the file's size on the disk of `dir` where the file system could have
  // shared the blocks. Messages name `path`; a section's offset in them is the copy's.
  static result<binfile> open_aligned_copy(const std::string& path, const std::string& dir, std::string_view magic,
                                           uint32_t max_version);
  // The type of the sections open_aligned_copy inserts; no iden3 format defines it.
  static constexpr uint32_t padding_section = 0x70616400;  // "pad\0" as a big-endian word

  // The same checks over bytes already in memory (a buffer handed over by a caller, or a test's
  // corrupted copy); `name` stands for the path in messages.
  static result<binfile> from_bytes(std::vector<uint8_t> bytes, const std::string& name,
                                    std::string_view magic, uint32_t max_version);
  // The same checks over bytes the caller owns and keeps unchanged for as long as the binfile (and
  // anything read from it) is used: an inline witness checked in the request that carries it, so
  // a large one is not copied to be looked at.
  static result<binfile> borrow(std::span<const uint8_t> bytes, const std::string& name,
                                std::string_view magic, uint32_t max_version);

  binfile(binfile&&) noexcept = default;
  binfile& operator=(binfile&&) noexcept = default;
  binfile(const binfile&) = delete;
  binfile& operator=(const binfile&) = delete;

  // The path (or name) given at open; every error message starts with it.
  const std::string& name() const noexcept { return name_; }
  uint32_t version() const noexcept { return version_; }
  std::span<const uint8_t> bytes() const noexcept { return bytes_; }
  // In file order.
  const std::vector<section_entry>& sections() const noexcept { return sections_; }

  // How many sections of this type the file has.
  std::size_t count(uint32_t type) const noexcept;
  bool has(uint32_t type) const noexcept { return count(type) != 0; }

  // The payload of the one section of this type: format_error when it is missing or duplicated.
  // `what` names the section in messages ("coefs").
  result<std::span<const uint8_t>> section(uint32_t type, const char* what = nullptr) const;
  // Its entry (for the file offset, e.g. to decide whether a section is aligned for in-place use).
  result<section_entry> entry(uint32_t type, const char* what = nullptr) const;

  // "circuit.zkey: section 4 (coefs)" for messages.
  std::string section_label(uint32_t type, const char* what = nullptr) const;

 private:
  binfile() = default;
  status parse(std::string_view magic, uint32_t max_version);

  std::string name_;
  std::variant<mapped_file, std::vector<uint8_t>, std::monostate> storage_;  // monostate: borrowed
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 0;
  std::vector<section_entry> sections_;
};

}  // namespace cuzk::formats
