// SPDX-License-Identifier: MIT OR Apache-2.0
// A set of a Groth16 proving key's five point vectors (A, B1, B2, C, H): which of them a GPU key
// keeps resident on the device and which it streams from host memory in every proof
// (groth16/gpu/gpu_proving_key.hpp). Plain C++, so the command line reads the set the same way in
// every build.
//
// Written as "none", "all", or a comma-separated list of a, b1, b2, c, h ("b2,h").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace cuzk::groth16 {

enum class key_vector : unsigned { a, b1, b2, c, h };
inline constexpr key_vector all_key_vectors[] = {key_vector::a, key_vector::b1, key_vector::b2, key_vector::c,
                                                 key_vector::h};

inline constexpr const char* key_vector_name(key_vector v) {
  constexpr const char* names[] = {"a", "b1", "b2", "c", "h"};
  return names[static_cast<unsigned>(v)];
}

class key_vector_set {
 public:
  constexpr key_vector_set() = default;
  static constexpr key_vector_set all() { return key_vector_set(0x1f); }
  constexpr key_vector_set with(key_vector v) const { return key_vector_set(bits_ | bit(v)); }
  constexpr key_vector_set without(key_vector v) const { return key_vector_set(bits_ & ~bit(v)); }
  constexpr bool contains(key_vector v) const { return (bits_ & bit(v)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const key_vector_set&) const = default;

  // "none", "all" or the members in key order, comma-separated.
  std::string to_string() const {
    if (bits_ == 0) return "none";
    if (bits_ == 0x1f) return "all";
    std::string out;
    for (key_vector v : all_key_vectors) {
      if (!contains(v)) continue;
      if (!out.empty()) out += ',';
      out += key_vector_name(v);
    }
    return out;
  }

  // The inverse of to_string; any other word is an error naming `what` (an option or a field).
  static result<key_vector_set> parse(std::string_view text, std::string_view what) {
    if (text == "none") return key_vector_set();
    if (text == "all") return all();
    key_vector_set out;
    while (true) {
      const std::size_t comma = text.find(',');
      const std::string_view word = text.substr(0, comma);
      bool found = false;
      for (key_vector v : all_key_vectors)
        if (word == key_vector_name(v)) {
          out = out.with(v);
          found = true;
        }
      if (!found)
        return status(errc::invalid_argument, std::string(what) + ": expected none, all or a list of a, b1, b2, c, h; found '" +
                                                  std::string(word) + "'");
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
    return out;
  }

 private:
  constexpr explicit key_vector_set(unsigned bits) : bits_(bits) {}
  static constexpr unsigned bit(key_vector v) { return 1u << static_cast<unsigned>(v); }
  unsigned bits_ = 0;
};

}  // namespace cuzk::groth16
