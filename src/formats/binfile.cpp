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

// The little-endian word at `at` of bytes the caller has checked are long enough.
template <class T>
T word_at(const std::string& s, std::size_t at) {
  byte_reader r({reinterpret_cast<const uint8_t*>(s.data()) + at, sizeof(T)}, "a section header");
  if constexpr (sizeof(T) == 4) return r.u32("word");
  else return r.u64("word");
}

template <class T>
void append_le(std::string& s, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

constexpr uint64_t section_header_bytes = 12;  // u32 type, u64 size
constexpr uint64_t payload_alignment = 8;
// More sections than any format of ours has by far: such a file is copied as it is (one read and
// one piece per section would otherwise be the file's to choose).
constexpr uint32_t max_laid_out_sections = 4096;

// The pieces of open_aligned_copy's copy: the file's header with the count of sections grown by the
// padding, then each section (header and payload from the source) behind a padding section where
// its payload would start misaligned, the sections between two paddings in one piece. A file that
// needs no padding, and anything malformed (a short header, a count or a size the file cannot hold,
// bytes after the last section, more than max_laid_out_sections): the file as it is, in one piece,
// which copy_file_range can make a reflink of.
result<std::vector<mapped_file::copy_piece>> aligned_layout(const mapped_file::source_reader& read, uint64_t size) {
  using piece = mapped_file::copy_piece;
  const std::vector<piece> as_is{piece{0, size, {}}};
  auto head = read(0, 12);
  if (!head) return head.error();
  if (head->size() < 12) return as_is;
  const uint32_t n = word_at<uint32_t>(*head, 8);
  if (n > max_laid_out_sections) return as_is;
  std::vector<piece> body;
  uint64_t in = 12, out = 12;
  uint32_t pads = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (size - in < section_header_bytes) return as_is;
    auto h = read(in, section_header_bytes);
    if (!h) return h.error();
    if (h->size() < section_header_bytes) return as_is;
    const uint64_t payload = word_at<uint64_t>(*h, 4);
    if (payload > size - in - section_header_bytes) return as_is;
    if ((out + section_header_bytes) % payload_alignment != 0) {
      // A padding section of p zero bytes puts this section's payload at out + 12 + p + 12.
      const uint64_t p = (payload_alignment - (out + 2 * section_header_bytes) % payload_alignment) % payload_alignment;
      std::string pad;
      append_le<uint32_t>(pad, binfile::padding_section);
      append_le<uint64_t>(pad, p);
      pad.append(static_cast<std::size_t>(p), '\0');
      out += pad.size();
      body.push_back(piece{0, 0, std::move(pad)});
      ++pads;
    }
    if (!body.empty() && body.back().bytes.empty() && body.back().from + body.back().size == in)
      body.back().size += section_header_bytes + payload;  // the source's next bytes: one piece
    else
      body.push_back(piece{in, section_header_bytes + payload, {}});
    in += section_header_bytes + payload;
    out += section_header_bytes + payload;
  }
  if (in != size || pads == 0 || pads > UINT32_MAX - n) return as_is;
  std::string header = head->substr(0, 8);
  append_le<uint32_t>(header, n + pads);
  std::vector<piece> all;
  all.reserve(body.size() + 1);
  all.push_back(piece{0, 0, std::move(header)});
  for (auto& p : body) all.push_back(std::move(p));
  return all;
}

}  // namespace

result<binfile> binfile::open_aligned_copy(const std::string& path, const std::string& dir, std::string_view magic,
                                           uint32_t max_version) {
  auto m = mapped_file::open_private_copy(path, dir, aligned_layout);
  if (!m) return m.error();
  return from_mapping(std::move(m).value(), path, magic, max_version);
}

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
