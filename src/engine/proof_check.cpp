// SPDX-License-Identifier: MIT OR Apache-2.0
// Verification and encoding of a partition's proof (see proof_check.hpp).
#include "engine/proof_check.hpp"

#include "formats/curve_id.hpp"
#include "formats/public_signals.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {

namespace {

template <class C>
struct typed {
  const key_material<C>* key;
  std::span<const typename C::fr::repr> w;
  const formats::proof<C>* p;
};

template <class C>
result<typed<C>> unpack(const loaded_key& key, const any_witness& witness, const any_proof& proof) {
  const bool same_curve = witness.curve == formats::curve_id_of<C>;
  typed<C> t{key.get<C>(), std::span<const typename C::fr::repr>(witness.values),
             std::get_if<formats::proof<C>>(&proof)};
  if (!t.key || !same_curve || !t.p)
    return status(errc::internal, std::string("key, witness and proof are not all for ") + C::name);
  return t;
}

template <class C>
status verify_as(const loaded_key& key, const any_witness& witness, const any_proof& proof) {
  auto t = unpack<C>(key, witness, proof);
  if (!t) return t.error();
  const auto pub = groth16::public_signals_of<C>(t->w, t->key->view.n_public);
  return groth16::verify<C>(*t->key->vk, pub, *t->p);
}

template <class C>
result<partition_proof> encode_as(const loaded_key& key, const any_witness& witness, const any_proof& proof) {
  auto t = unpack<C>(key, witness, proof);
  if (!t) return t.error();
  const auto pub = groth16::public_signals_of<C>(t->w, t->key->view.n_public);
  return partition_proof{formats::proof_to_json<C>(*t->p), formats::public_to_json<C>(pub)};
}

}  // namespace

status verify_partition(const loaded_key& key, const any_witness& witness, const any_proof& proof) {
  return formats::with_curve(key.curve(), [&]<class C>() { return verify_as<C>(key, witness, proof); });
}

result<partition_proof> encode_partition(const loaded_key& key, const any_witness& witness,
                                         const any_proof& proof) {
  return formats::with_curve(key.curve(), [&]<class C>() { return encode_as<C>(key, witness, proof); });
}

}  // namespace cuzk::engine
