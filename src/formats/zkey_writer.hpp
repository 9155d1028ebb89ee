// SPDX-License-Identifier: MIT OR Apache-2.0
// Writing a Groth16 .zkey that snarkjs reads: the key `cuzk setup` makes, in snarkjs's layout.
//
// groth16_key_data<C> is the key in memory, filled by a setup (or taken from a zkey with
// key_data_of(), for round trips). write_zkey() writes sections 1..10 in that order, as
// `snarkjs zkey contribute` and `zkey beacon` do, with the coefficient records sorted by
// constraint (a stable sort, as snarkjs's writeZKey: records of one constraint keep their order).
//
// Section 10. csHash is snarkjs's blake2b-512 over the *initial* key's points in uncompressed
// big-endian form, computed by `zkey new` from the powers of tau; it cannot be recomputed from a
// finished key. Only `snarkjs zkey verify` (which rebuilds the key from the r1cs and the ptau)
// compares it; `groth16 prove`, `zkey export verificationkey`, `zkey contribute` and `zkey beacon`
// read it without checking (contribute hashes it into its transcript). A development setup has no
// ptau, so `zkey verify` can never pass for it anyway: cs_hash defaults to 64 zero bytes and
// contributions to none. A key read from a snarkjs file carries its own through key_data_of().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "formats/zkey.hpp"

namespace cuzk::formats {

template <class C>
struct groth16_key_data {
  uint32_t n_vars = 0;       // signals, including wire 0
  uint32_t n_public = 0;     // public signals, not counting wire 0
  uint32_t domain_size = 0;  // power of two >= nConstraints + nPublic + 1
  g1_affine<C> alpha1, beta1, delta1;
  g2_affine<C> beta2, gamma2, delta2;  // gamma2 is the G2 generator in snarkjs keys
  std::vector<g1_affine<C>> ic;        // nPublic + 1
  std::vector<g1_affine<C>> a, b1;     // nVars
  std::vector<g2_affine<C>> b2;        // nVars
  std::vector<g1_affine<C>> c;         // nVars - nPublic - 1
  std::vector<g1_affine<C>> h;         // domainSize
  // matrix 0 (A) and 1 (B) entries with their plain values c (the writer stores c·R^2); including
  // the nPublic + 1 rows (0, nConstraints + s, s, 1).
  std::vector<zkey_coef<C>> coefs;
  std::array<uint8_t, 64> cs_hash{};
  uint32_t n_contributions = 0;
  std::vector<uint8_t> contributions;  // the section-10 bytes after the count, as stored
};

// invalid_argument naming the field when the vectors' sizes disagree with nVars, nPublic and
// domainSize, or a coefficient is out of range; io_error when the file cannot be written.
template <class C>
status write_zkey(const std::string& path, const groth16_key_data<C>& key);

// Everything a zkey holds, decoded (coefficients checked as zkey::coef does).
template <class C>
result<groth16_key_data<C>> key_data_of(const zkey<C>& key);

extern template status write_zkey<bn254>(const std::string&, const groth16_key_data<bn254>&);
extern template status write_zkey<bls12_381>(const std::string&, const groth16_key_data<bls12_381>&);
extern template result<groth16_key_data<bn254>> key_data_of<bn254>(const zkey<bn254>&);
extern template result<groth16_key_data<bls12_381>> key_data_of<bls12_381>(const zkey<bls12_381>&);

}  // namespace cuzk::formats
