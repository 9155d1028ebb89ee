// SPDX-License-Identifier: MIT OR Apache-2.0
// public.json: the public signals w[1..nPublic] (outputs first, then public inputs) as a JSON
// array of decimal strings, in snarkjs's layout (snarkjs_json.hpp). Reading requires an array of
// decimal strings, each below r (snarkjs rejects a public value >= r too); the error names the
// file and the index: "public.json: [2]: ... is not below r = ...".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::formats {

template <class C>
std::string public_to_json(std::span<const typename C::fr> signals);
template <class C>
result<std::vector<typename C::fr>> public_from_json(std::string_view text, const std::string& name);

template <class C>
status write_public_json(const std::string& path, std::span<const typename C::fr> signals);
template <class C>
result<std::vector<typename C::fr>> read_public_json(const std::string& path);

#define CUZK_PUBLIC_EXTERN(C)                                                                           \
  extern template std::string public_to_json<C>(std::span<const C::fr>);                                \
  extern template result<std::vector<C::fr>> public_from_json<C>(std::string_view, const std::string&); \
  extern template status write_public_json<C>(const std::string&, std::span<const C::fr>);              \
  extern template result<std::vector<C::fr>> read_public_json<C>(const std::string&)
CUZK_PUBLIC_EXTERN(bn254);
CUZK_PUBLIC_EXTERN(bls12_381);
#undef CUZK_PUBLIC_EXTERN

}  // namespace cuzk::formats
