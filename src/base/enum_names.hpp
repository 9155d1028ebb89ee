// SPDX-License-Identifier: MIT OR Apache-2.0
// The words of an enum's values, in the enum's order, read both ways: a value's name for messages
// and configs, and the value a word stands for (nullopt for any other word). The enum's values
// must be 0..N-1; words_of<last>() checks at compile time that there is a word for each.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cuzk {

template <class E, std::size_t N>
struct enum_names {
  const char* words[N];
  const char* unknown = "?";  // the name of a value outside the enum

  constexpr const char* name(E e) const noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? words[i] : unknown;
  }
  constexpr std::optional<E> parse(std::string_view word) const noexcept {
    for (std::size_t i = 0; i < N; ++i)
      if (word == words[i]) return static_cast<E>(i);
    return std::nullopt;
  }
};

// The words of an enum whose last value is `last`, one per value: a list of another length does not
// compile, so a new value cannot go unnamed.
template <auto last, std::size_t N>
constexpr enum_names<decltype(last), N> words_of(const char* const (&words)[N], const char* unknown = "?") {
  static_assert(static_cast<std::size_t>(last) + 1 == N, "one word for every value of the enum");
  enum_names<decltype(last), N> out{};
  for (std::size_t i = 0; i < N; ++i) out.words[i] = words[i];
  out.unknown = unknown;
  return out;
}

}  // namespace cuzk
