// SPDX-License-Identifier: MIT OR Apache-2.0
// A bounds-checked cursor over a section's bytes, for the small structured parts of the binary
// formats (headers, length prefixes). The large arrays are not read through it: they are used in
// place.
//
// Errors are sticky: the first failed read records a message naming where (file and section) and
// which field, and every later read returns zeros and an empty span. A parser therefore reads a
// run of fields and checks once, instead of testing after each read:
//
//   byte_reader r(bytes, "circuit.zkey: section 2 (header)");
//   const uint32_t n8q = r.u32("n8q");
//   const auto q = r.bytes(n8q, "q");
//   if (!r.ok()) return r.error();
//
// All integers are little-endian, as in every iden3 file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "base/result.hpp"

namespace cuzk::formats {

class byte_reader {
 public:
  byte_reader(std::span<const uint8_t> data, std::string where) : data_(data), where_(std::move(where)) {}

  uint32_t u32(const char* field) { return read_le<uint32_t>(field); }
  uint64_t u64(const char* field) { return read_le<uint64_t>(field); }

  // The next n bytes, in place.
  std::span<const uint8_t> bytes(std::size_t n, const char* field) {
    if (!take(n, field)) return {};
    auto s = data_.subspan(pos_ - n, n);
    return s;
  }

  std::size_t position() const noexcept { return pos_; }
  std::size_t remaining() const noexcept { return data_.size() - pos_; }
  const std::string& where() const noexcept { return where_; }

  bool ok() const noexcept { return error_.is_ok(); }
  const status& error() const noexcept { return error_; }

  // Records an error found by the caller while parsing (the first error wins).
  void fail(errc code, const std::string& message) {
    if (error_.is_ok()) error_ = status(code, where_ + ": " + message);
  }

  // The section must be consumed exactly, as snarkjs's endReadSection demands: leftover bytes
  // mean the file and the reader disagree about the layout.
  status finish() {
    if (ok() && remaining() != 0) {
      fail(errc::format_error, "expected the section to end after " + std::to_string(pos_) +
                                   " bytes, found " + std::to_string(remaining()) + " more");
    }
    return error_;
  }

 private:
  template <class T>
  T read_le(const char* field) {
    if (!take(sizeof(T), field)) return 0;
    T v;
    std::memcpy(&v, data_.data() + pos_ - sizeof(T), sizeof(T));  // x86-64 and aarch64 are little-endian
    return v;
  }

  bool take(std::size_t n, const char* field) {
    if (!ok()) return false;
    if (n > remaining()) {
      fail(errc::format_error, std::string("truncated at ") + field + ": needs " + std::to_string(n) +
                                   " bytes at offset " + std::to_string(pos_) + ", only " +
                                   std::to_string(remaining()) + " left");
      return false;
    }
    pos_ += n;
    return true;
  }

  std::span<const uint8_t> data_;
  std::string where_;
  std::size_t pos_ = 0;
  status error_;
};

}  // namespace cuzk::formats
