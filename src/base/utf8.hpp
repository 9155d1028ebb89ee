// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a text stops being UTF-8: JSON (RFC 8259, section 8.1) and protobuf's string fields must
// be UTF-8, and their parsers refuse anything else with a message about the parser (nlohmann's
// "ill-formed UTF-8 byte", quoting the byte) or with none at all (a gRPC request whose string
// field is not UTF-8 fails to parse before any handler runs). Checked first, the caller can say
// which document and which byte.
//
// Well-formed UTF-8 as Unicode 15, table 3-7 defines it: no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing past U+10FFFF.
//
// Thread safety: a pure function.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cuzk {

// The offset of the first byte that does not begin or continue a well-formed sequence (for a
// sequence cut short, the offset of its first byte); nullopt for well-formed text.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

}  // namespace cuzk
