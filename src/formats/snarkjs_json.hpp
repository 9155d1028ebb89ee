// SPDX-License-Identifier: MIT OR Apache-2.0
// What proof.json, public.json and verification_key.json share: snarkjs's exact text layout, and
// strict field access whose errors name the file and the field.
//
// snarkjs writes these files with bfj.write(path, stringifyBigInts(obj), {space: 1}), which gives
// the same text as JSON.stringify(obj, null, 1): one space of indent per level, "key": value,
// each array element on its own line, no newline at the end of the file. nlohmann's dump(1) of an
// ordered_json (keys kept in insertion order) produces the same bytes; the fixtures in
// tests/data/snarkjs round-trip through it byte for byte.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "formats/point_validation.hpp"
#include "formats/snarkjs_points.hpp"

namespace cuzk::formats::snarkjs_json {

using ojson = nlohmann::ordered_json;

// The deepest nesting of arrays and objects parse() accepts: snarkjs's files nest at most four
// levels (vk_alphabeta_12 is an array of arrays of arrays of numbers in an object).
inline constexpr std::size_t max_depth = 32;

// The largest proof.json, public.json or verification_key.json read_file() reads: 64 MiB. The
// real files are far smaller: a proof is under 1 KiB, a public signal about 80 bytes, and a
// verification key grows by one IC point per public input (at most about 190 bytes on BN254 and 265
// on BLS12-381; 183 and 259 in the fixtures' ten-input keys), so 64 MiB holds a key of over 250,000
// public inputs. The limit bounds what the parser is handed (its values take a few times the text):
// a 2 GiB proof.json was read whole (4.2 GB resident) before it failed at column 1.
inline constexpr uint64_t max_file_bytes = uint64_t{64} << 20;

// The text of a snarkjs JSON file; resource_exhausted naming the file, its size and max_file_bytes
// when it is larger, checked before a byte is read.
result<std::string> read_file(const std::string& path);

// parse_error "<name>: not valid JSON: <parser's message>", "<name>: not UTF-8 at byte N" (JSON is
// UTF-8, and the parser's own message would quote the byte, making the message itself not UTF-8),
// or naming max_depth when the text nests deeper (counted before parsing: the parser and the
// values it builds recurse per level).
result<ojson> parse(std::string_view text, const std::string& name);
// The text snarkjs would write for `j`.
std::string dump(const ojson& j);

// obj[key], which must exist; `name` is the file.
result<const ojson*> member(const ojson& obj, const char* key, const std::string& name);
// obj[key] == expected (a string), when present; a missing key is accepted only if `optional`.
status expect_string(const ojson& obj, const char* key, std::string_view expected, const std::string& name,
                     bool optional);

// "IC[3]", "[3]" (built with append: GCC 12 warns, wrongly, on "[" + std::to_string(i) + "]").
inline std::string index_label(std::string prefix, std::size_t i) {
  prefix += '[';
  prefix += std::to_string(i);
  prefix += ']';
  return prefix;
}

// A point in snarkjs JSON form, with "<name>: <field>: " in front of the codec's message.
template <class G>
result<typename G::affine> point(const ojson& j, const std::string& name, const std::string& field,
                                 subgroup_check check) {
  auto p = snarkjs::from_json<G>(nlohmann::json(j), check);
  if (!p) return p.error().with_context(name + ": " + field);
  return p;
}
template <class G>
ojson point_json(const typename G::affine& p) {
  return ojson(snarkjs::to_json<G>(p));
}

// A scalar-field element as snarkjs writes it: a decimal string below r.
template <class Fr>
result<Fr> scalar(const ojson& j, const std::string& name, const std::string& field) {
  if (!j.is_string())
    return status(errc::parse_error, name + ": " + field + ": expected a decimal string, found " + j.dump());
  const auto& s = j.get_ref<const std::string&>();
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  const auto v = digits ? Fr::repr::parse(s) : std::nullopt;
  if (!v) {
    return status(errc::parse_error,
                  name + ": " + field + ": expected a decimal string below r, found " + j.dump());
  }
  if (*v >= Fr::modulus) {
    return status(errc::out_of_range,
                  name + ": " + field + ": " + s + " is not below r = " + Fr::modulus.to_decimal());
  }
  return Fr::from_canonical_unchecked(*v);
}

}  // namespace cuzk::formats::snarkjs_json
