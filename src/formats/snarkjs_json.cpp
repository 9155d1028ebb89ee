// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared JSON helpers; see snarkjs_json.hpp.
#include "formats/snarkjs_json.hpp"

#include <algorithm>

#include "base/utf8.hpp"
#include "formats/file_io.hpp"

namespace cuzk::formats::snarkjs_json {

namespace {

// How deep `text` nests arrays and objects, counted without parsing (brackets inside strings do
// not count), stopping as soon as it passes `limit`.
std::size_t nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

result<std::string> read_file(const std::string& path) {
  return read_text_file(path, max_file_bytes, "a snarkjs JSON file: proof, public signals or verification key");
}

result<ojson> parse(std::string_view text, const std::string& name) {
  if (const auto at = first_invalid_utf8(text))
    return status(errc::parse_error, name + ": not UTF-8 at byte " + std::to_string(*at));
  // nlohmann::json builds and frees nested values recursively: tens of thousands of levels
  // overflow the stack (a crash, not an error). snarkjs's files nest four levels at most.
  if (const std::size_t d = nesting_depth(text, max_depth); d > max_depth)
    return status(errc::parse_error, name + ": not valid snarkjs JSON: nesting deeper than " +
                                         std::to_string(max_depth) + " levels of arrays and objects");
  try {
    return ojson::parse(text);
  } catch (const ojson::exception& e) {
    return status(errc::parse_error, name + ": not valid JSON: " + e.what());
  }
}

std::string dump(const ojson& j) { return j.dump(1); }

result<const ojson*> member(const ojson& obj, const char* key, const std::string& name) {
  if (!obj.is_object())
    return status(errc::parse_error,
                  name + ": expected a JSON object, found " + std::string(obj.type_name()));
  const auto it = obj.find(key);
  if (it == obj.end()) return status(errc::parse_error, name + ": " + key + ": missing");
  return &*it;
}

status expect_string(const ojson& obj, const char* key, std::string_view expected, const std::string& name,
                     bool optional) {
  if (!obj.is_object())
    return {errc::parse_error, name + ": expected a JSON object, found " + std::string(obj.type_name())};
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (optional) return status::ok();
    return {errc::parse_error, name + ": " + key + ": missing"};
  }
  if (!it->is_string() || it->get_ref<const std::string&>() != expected) {
    return {errc::parse_error,
            name + ": " + key + ": expected \"" + std::string(expected) + "\", found " + it->dump()};
  }
  return status::ok();
}

}  // namespace cuzk::formats::snarkjs_json
