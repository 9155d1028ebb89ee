// SPDX-License-Identifier: MIT OR Apache-2.0
// UTF-8 validation by Unicode's table 3-7; see utf8.hpp.
#include "base/utf8.hpp"

#include <cstdint>

namespace cuzk {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    // ASCII eight bytes at a time: most of a JSON document.
    while (i + 8 <= n) {
      uint64_t w = 0;
      for (int k = 0; k < 8; ++k) w |= uint64_t{s[i + k]} << (8 * k);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range of its second byte (table 3-7).
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;  // overlong
      if (c == 0xf4) hi = 0x8f;  // past U+10FFFF
    } else {
      return i;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xbf) return i;
    i += len;
  }
  return std::nullopt;
}

}  // namespace cuzk
