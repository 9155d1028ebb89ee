// SPDX-License-Identifier: MIT OR Apache-2.0
// verification_key.json; see verification_key.hpp.
#include "formats/verification_key.hpp"

#include "formats/file_io.hpp"
#include "formats/snarkjs_json.hpp"

namespace cuzk::formats {

using snarkjs_json::ojson;

template <class C>
verification_key<C> verification_key_of(const zkey<C>& key) {
  const auto& h = key.header();
  return {h.alpha1, h.beta2, h.gamma2, h.delta2, {key.ic().begin(), key.ic().end()}, std::nullopt};
}

template <class C>
std::string verification_key_to_json(const verification_key<C>& vk) {
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  ojson j = ojson::object();
  j["protocol"] = "groth16";
  j["curve"] = C::snarkjs_name;
  j["nPublic"] = vk.ic.empty() ? 0 : vk.ic.size() - 1;
  j["vk_alpha_1"] = snarkjs_json::point_json<G1>(vk.alpha1);
  j["vk_beta_2"] = snarkjs_json::point_json<G2>(vk.beta2);
  j["vk_gamma_2"] = snarkjs_json::point_json<G2>(vk.gamma2);
  j["vk_delta_2"] = snarkjs_json::point_json<G2>(vk.delta2);
  if (vk.alphabeta_12) j["vk_alphabeta_12"] = *vk.alphabeta_12;
  ojson ic = ojson::array();
  for (const auto& p : vk.ic) ic.push_back(snarkjs_json::point_json<G1>(p));
  j["IC"] = std::move(ic);
  return snarkjs_json::dump(j);
}

template <class C>
result<verification_key<C>> verification_key_from_json(std::string_view text, const std::string& name,
                                                       subgroup_check check) {
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  const auto j = snarkjs_json::parse(text, name);
  if (!j) return j.error();
  CUZK_TRY(snarkjs_json::expect_string(*j, "protocol", "groth16", name, false));
  CUZK_TRY(snarkjs_json::expect_string(*j, "curve", C::snarkjs_name, name, false));
  verification_key<C> vk;
  const auto get = [&]<class G>(const char* key, typename G::affine& out) -> status {
    const auto m = snarkjs_json::member(*j, key, name);
    if (!m) return m.error();
    auto p = snarkjs_json::point<G>(**m, name, key, check);
    if (!p) return p.error();
    out = *p;
    return status::ok();
  };
  CUZK_TRY(get.template operator()<G1>("vk_alpha_1", vk.alpha1));
  CUZK_TRY(get.template operator()<G2>("vk_beta_2", vk.beta2));
  CUZK_TRY(get.template operator()<G2>("vk_gamma_2", vk.gamma2));
  CUZK_TRY(get.template operator()<G2>("vk_delta_2", vk.delta2));

  const auto ic = snarkjs_json::member(*j, "IC", name);
  if (!ic) return ic.error();
  if (!(*ic)->is_array() || (*ic)->empty()) {
    return status(errc::parse_error,
                  name + ": IC: expected a non-empty array of G1 points, found " + (*ic)->dump());
  }
  for (std::size_t i = 0; i < (*ic)->size(); ++i) {
    auto p = snarkjs_json::point<G1>((**ic)[i], name, snarkjs_json::index_label("IC", i), check);
    if (!p) return p.error();
    vk.ic.push_back(*p);
  }
  const auto n = snarkjs_json::member(*j, "nPublic", name);
  if (!n) return n.error();
  if (!(*n)->is_number_unsigned() || (*n)->get<uint64_t>() + 1 != vk.ic.size()) {
    return status(errc::parse_error, name + ": nPublic: expected " + std::to_string(vk.ic.size() - 1) +
                                         " (the number of IC points minus one), found " + (*n)->dump());
  }
  if (const auto it = j->find("vk_alphabeta_12"); it != j->end()) vk.alphabeta_12 = *it;
  return vk;
}

template <class C>
status write_verification_key_json(const std::string& path, const verification_key<C>& vk) {
  return write_file_atomically(path, verification_key_to_json(vk));
}

template <class C>
result<verification_key<C>> read_verification_key_json(const std::string& path, subgroup_check check) {
  const auto text = snarkjs_json::read_file(path);
  if (!text) return text.error();
  return verification_key_from_json<C>(*text, path, check);
}

result<curve_id> detect_json_curve(const std::string& path) {
  const auto text = snarkjs_json::read_file(path);
  if (!text) return text.error();
  const auto j = snarkjs_json::parse(*text, path);
  if (!j) return j.error();
  const auto c = snarkjs_json::member(*j, "curve", path);
  if (!c) return c.error();
  if (!(*c)->is_string())
    return status(errc::parse_error, path + ": curve: expected a string, found " + (*c)->dump());
  return curve_from_snarkjs_name((*c)->get<std::string>(), path + ": curve");
}

#define CUZK_VK(C)                                                                                         \
  template verification_key<C> verification_key_of<C>(const zkey<C>&);                                     \
  template std::string verification_key_to_json<C>(const verification_key<C>&);                            \
  template result<verification_key<C>> verification_key_from_json<C>(std::string_view, const std::string&, \
                                                                     subgroup_check);                      \
  template status write_verification_key_json<C>(const std::string&, const verification_key<C>&);          \
  template result<verification_key<C>> read_verification_key_json<C>(const std::string&, subgroup_check)
CUZK_VK(bn254);
CUZK_VK(bls12_381);

}  // namespace cuzk::formats
