// SPDX-License-Identifier: MIT OR Apache-2.0
// Between files and the prover's inputs: an .r1cs as a constraint system (for setup), a .wtns as
// the witness's integers (for prove), and a witness written as a .wtns (synthetic circuits).
//
// The formats layer maps the files and checks their structure; here their values are checked
// against the field (every coefficient and witness value < r, every wire index < nWires) and
// copied into the aligned forms the prover uses. The witness copy is nVars * 32 bytes, small next
// to the key, and gives the MSMs 8-byte-aligned scalars (the .wtns's values sit at offset 76).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "synth/constraint_system.hpp"

namespace cuzk::groth16 {

// The r1cs's constraints as CSR matrices; nPublic = nPubOut + nPubIn. The file must be for Curve
// (its prime is r).
template <class Curve>
result<synth::constraint_system<typename Curve::fr>> constraint_system_of(const formats::r1cs& r1cs);

// The witness values, each checked < r.
template <class Curve>
result<std::vector<typename Curve::fr::repr>> witness_of(const formats::wtns& wtns);

// The public signals w[1..n_public] of a witness, as public.json lists them.
template <class Curve>
std::vector<typename Curve::fr> public_signals_of(std::span<const typename Curve::fr::repr> witness,
                                                  std::size_t n_public) {
  std::vector<typename Curve::fr> out;
  for (std::size_t i = 1; i <= n_public && i < witness.size(); ++i)
    out.push_back(Curve::fr::from_canonical_unchecked(witness[i]));
  return out;
}

// A .wtns (version 2) as circom and snarkjs write it.
template <class Curve>
status write_wtns(const std::string& path, std::span<const typename Curve::fr::repr> witness);

#define CUZK_CIRCUIT_IO_EXTERN(C)                                                                        \
  extern template result<synth::constraint_system<C::fr>> constraint_system_of<C>(const formats::r1cs&); \
  extern template result<std::vector<C::fr::repr>> witness_of<C>(const formats::wtns&);                  \
  extern template status write_wtns<C>(const std::string&, std::span<const C::fr::repr>)
CUZK_CIRCUIT_IO_EXTERN(bn254);
CUZK_CIRCUIT_IO_EXTERN(bls12_381);
#undef CUZK_CIRCUIT_IO_EXTERN

}  // namespace cuzk::groth16
