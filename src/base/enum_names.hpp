// The words of an enum's values, in the enum's order, read both ways: a value's name for messages
// and configs, and the value a name stands for (nullopt for any other word). The enum's values
// must be 0..N-1.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cuzk {

template <class E, std::size_t N>
struct enum_names {
  const char* words[N];

  constexpr const char* name(E e) const noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? words[i] : "?";
  }
  constexpr std::optional<E> parse(std::string_view word) const noexcept {
    for (std::size_t i = 0; i < N; ++i)
      if (word == words[i]) return static_cast<E>(i);
    return std::nullopt;
  }
};

}  // namespace cuzk
