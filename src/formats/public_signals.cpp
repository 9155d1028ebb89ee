// SPDX-License-Identifier: MIT OR Apache-2.0
// public.json; see public_signals.hpp.
#include "formats/public_signals.hpp"

#include "formats/file_io.hpp"
#include "formats/snarkjs_json.hpp"

namespace cuzk::formats {

using snarkjs_json::ojson;

template <class C>
std::string public_to_json(std::span<const typename C::fr> signals) {
  ojson j = ojson::array();
  for (const auto& s : signals) j.push_back(s.to_decimal());
  return snarkjs_json::dump(j);
}

template <class C>
result<std::vector<typename C::fr>> public_from_json(std::string_view text, const std::string& name) {
  const auto j = snarkjs_json::parse(text, name);
  if (!j) return j.error();
  if (!j->is_array()) {
    return status(errc::parse_error,
                  name + ": expected an array of decimal strings, found " + std::string(j->type_name()));
  }
  std::vector<typename C::fr> out;
  out.reserve(j->size());
  for (std::size_t i = 0; i < j->size(); ++i) {
    auto v = snarkjs_json::scalar<typename C::fr>((*j)[i], name, snarkjs_json::index_label("", i));
    if (!v) return v.error();
    out.push_back(*v);
  }
  return out;
}

template <class C>
status write_public_json(const std::string& path, std::span<const typename C::fr> signals) {
  return write_file_atomically(path, public_to_json<C>(signals));
}

template <class C>
result<std::vector<typename C::fr>> read_public_json(const std::string& path) {
  const auto text = snarkjs_json::read_file(path);
  if (!text) return text.error();
  return public_from_json<C>(*text, path);
}

#define CUZK_PUBLIC(C)                                                                           \
  template std::string public_to_json<C>(std::span<const C::fr>);                                \
  template result<std::vector<C::fr>> public_from_json<C>(std::string_view, const std::string&); \
  template status write_public_json<C>(const std::string&, std::span<const C::fr>);              \
  template result<std::vector<C::fr>> read_public_json<C>(const std::string&)
CUZK_PUBLIC(bn254);
CUZK_PUBLIC(bls12_381);

}  // namespace cuzk::formats
