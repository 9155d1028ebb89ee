// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 container reader; see binfile.hpp.
#include "formats/binfile.hpp"

#include <algorithm>
#include <utility>

#include "formats/byte_reader.hpp"

namespace cuzk::formats {
namespace {

// The magic as text when printable, else as escaped bytes, for "expected 'zkey', found ..." messages.
std::string show_magic(std::span<const uint8_t> m) {
  std::string s = "'";
  for (const uint8_t c : m) {
    if (c >= 0x20 && c < 0x7f) {
      s.push_back(static_cast<char>(c));
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      s += "\\x";
      s.push_back(hex[c >> 4]);
      s.push_back(hex[c & 15]);
    }
  }
  return s + "'";
}

}  // namespace

result<binfile> binfile::open(const std::string& path, std::string_view magic, uint32_t max_version) {
  auto m = mapped_file::open(path);
  if (!m) return m.error();
  return from_mapping(std::move(m).value(), path, magic, max_version);
}

result<binfile> binfile::from_mapping(mapped_file m, const std::string& name, std::string_view magic,
                                      uint32_t max_version) {
  binfile f;
  f.name_ = name;
  f.bytes_ = m.bytes();
  f.storage_ = std::move(m);
  CUZK_TRY(f.parse(magic, max_version));
  return f;
}

result<binfile> binfile::from_bytes(std::vector<uint8_t> bytes, const std::string& name,
                                    std::string_view magic, uint32_t max_version) {
  binfile f;
  f.name_ = name;
  f.storage_ = std::move(bytes);
  const auto& v = std::get<std::vector<uint8_t>>(f.storage_);
  f.bytes_ = {v.data(), v.size()};
  CUZK_TRY(f.parse(magic, max_version));
  return f;
}

result<binfile> binfile::borrow(std::span<const uint8_t> bytes, const std::string& name, std::string_view magic,
                                uint32_t max_version) {
  binfile f;
  f.name_ = name;
  f.storage_ = std::monostate{};
  f.bytes_ = bytes;
  CUZK_TRY(f.parse(magic, max_version));
  return f;
}

status binfile::parse(std::string_view magic, uint32_t max_version) {
  byte_reader r(bytes_, name_);
  const auto m = r.bytes(4, "the magic");
  if (!r.ok()) return r.error();
  if (!std::equal(m.begin(), m.end(), magic.begin(), magic.end())) {
    return {errc::format_error, name_ + ": not a ." + std::string(magic) + " file: expected the magic '" +
                                    std::string(magic) + "', found " + show_magic(m)};
  }
  version_ = r.u32("the version");
  const uint32_t n = r.u32("the section count");
  if (!r.ok()) return r.error();
  if (version_ == 0 || version_ > max_version) {
    return {errc::unsupported, name_ + ": unsupported ." + std::string(magic) + " version " +
                                   std::to_string(version_) + " (supported: 1 to " +
                                   std::to_string(max_version) + ")"};
  }
  // Every section needs a 12-byte header, so a count that cannot fit is rejected before reserving.
  if (n > r.remaining() / 12) {
    return {errc::format_error, name_ + ": truncated: the header announces " + std::to_string(n) +
                                    " sections, but only " + std::to_string(r.remaining()) + " bytes follow"};
  }
  sections_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t type = r.u32("a section header (type)");
    const uint64_t size = r.u64("a section header (size)");
    if (!r.ok()) return r.error();
    const uint64_t offset = r.position();
    if (size > r.remaining()) {
      return {errc::format_error, name_ + ": truncated: section " + std::to_string(type) + " at offset " +
                                      std::to_string(offset) + " declares " + std::to_string(size) +
                                      " bytes, but the file has only " + std::to_string(r.remaining()) +
                                      " left"};
    }
    (void)r.bytes(static_cast<std::size_t>(size), "a section payload");
    sections_.push_back({type, offset, size});
  }
  if (r.remaining() != 0) {
    return {errc::format_error, name_ + ": " + std::to_string(r.remaining()) +
                                    " unexpected bytes after the last of " + std::to_string(n) +
                                    " sections (at offset " + std::to_string(r.position()) + ")"};
  }
  return status::ok();
}

std::size_t binfile::count(uint32_t type) const noexcept {
  return static_cast<std::size_t>(std::count_if(sections_.begin(), sections_.end(),
                                                [&](const section_entry& e) { return e.type == type; }));
}

std::string binfile::section_label(uint32_t type, const char* what) const {
  std::string s = name_ + ": section " + std::to_string(type);
  if (what != nullptr) s += std::string(" (") + what + ")";
  return s;
}

result<binfile::section_entry> binfile::entry(uint32_t type, const char* what) const {
  const section_entry* found = nullptr;
  for (const auto& e : sections_) {
    if (e.type != type) continue;
    if (found != nullptr) {
      return status(errc::format_error, section_label(type, what) + ": duplicated (at offsets " +
                                            std::to_string(found->offset) + " and " +
                                            std::to_string(e.offset) + "), expected exactly one");
    }
    found = &e;
  }
  if (found == nullptr) return status(errc::format_error, section_label(type, what) + ": missing");
  return *found;
}

result<std::span<const uint8_t>> binfile::section(uint32_t type, const char* what) const {
  const auto e = entry(type, what);
  if (!e) return e.error();
  return bytes_.subspan(static_cast<std::size_t>(e->offset), static_cast<std::size_t>(e->size));
}

}  // namespace cuzk::formats
