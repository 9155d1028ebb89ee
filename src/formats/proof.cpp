// SPDX-License-Identifier: MIT OR Apache-2.0
// proof.json; see proof.hpp.
#include "formats/proof.hpp"

#include "formats/file_io.hpp"
#include "formats/snarkjs_json.hpp"

namespace cuzk::formats {

using snarkjs_json::ojson;

template <class C>
std::string proof_to_json(const proof<C>& p) {
  ojson j = ojson::object();
  j["pi_a"] = snarkjs_json::point_json<g1_group<C>>(p.a);
  j["pi_b"] = snarkjs_json::point_json<g2_group<C>>(p.b);
  j["pi_c"] = snarkjs_json::point_json<g1_group<C>>(p.c);
  j["protocol"] = "groth16";
  j["curve"] = C::snarkjs_name;
  return snarkjs_json::dump(j);
}

template <class C>
result<proof<C>> proof_from_json(std::string_view text, const std::string& name, subgroup_check check) {
  const auto j = snarkjs_json::parse(text, name);
  if (!j) return j.error();
  CUZK_TRY(snarkjs_json::expect_string(*j, "protocol", "groth16", name, false));
  CUZK_TRY(snarkjs_json::expect_string(*j, "curve", C::snarkjs_name, name, true));
  proof<C> p;
  const auto get = [&]<class G>(const char* key, typename G::affine& out) -> status {
    const auto m = snarkjs_json::member(*j, key, name);
    if (!m) return m.error();
    auto pt = snarkjs_json::point<G>(**m, name, key, check);
    if (!pt) return pt.error();
    out = *pt;
    return status::ok();
  };
  CUZK_TRY(get.template operator()<g1_group<C>>("pi_a", p.a));
  CUZK_TRY(get.template operator()<g2_group<C>>("pi_b", p.b));
  CUZK_TRY(get.template operator()<g1_group<C>>("pi_c", p.c));
  return p;
}

template <class C>
status write_proof_json(const std::string& path, const proof<C>& p) {
  return write_file_atomically(path, proof_to_json(p));
}

template <class C>
result<proof<C>> read_proof_json(const std::string& path, subgroup_check check) {
  const auto text = snarkjs_json::read_file(path);
  if (!text) return text.error();
  return proof_from_json<C>(*text, path, check);
}

#define CUZK_PROOF(C)                                                                                 \
  template std::string proof_to_json<C>(const proof<C>&);                                             \
  template result<proof<C>> proof_from_json<C>(std::string_view, const std::string&, subgroup_check); \
  template status write_proof_json<C>(const std::string&, const proof<C>&);                           \
  template result<proof<C>> read_proof_json<C>(const std::string&, subgroup_check)
CUZK_PROOF(bn254);
CUZK_PROOF(bls12_381);

}  // namespace cuzk::formats
