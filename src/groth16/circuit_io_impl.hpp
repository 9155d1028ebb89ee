// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for circuit_io.hpp, compiled once per curve in groth16_<curve>.cpp.
#pragma once

#include <string>

#include "formats/binfile_writer.hpp"
#include "groth16/circuit_io.hpp"

namespace cuzk::groth16 {

template <class Curve>
result<synth::constraint_system<typename Curve::fr>> constraint_system_of(const formats::r1cs& r1cs) {
  using Fr = typename Curve::fr;
  const auto& h = r1cs.header();
  if (!(h.prime == Fr::modulus))
    return status(errc::invalid_argument, std::string("r1cs: prime: expected ") + Curve::name + "'s r = " +
                                              Fr::modulus.to_decimal() + ", found " + h.prime.to_decimal());
  synth::constraint_system<Fr> cs;
  cs.n_vars = h.n_wires;
  cs.n_public = h.n_public();
  cs.n_constraints = h.n_constraints;
  if (cs.n_vars < cs.n_public + 1)
    return status(errc::format_error,
                  "r1cs: nWires: expected at least nPublic + 1 = " + std::to_string(cs.n_public + 1) +
                      ", found " + std::to_string(cs.n_vars));

  std::vector<synth::triplet<Fr>> t[3];
  uint32_t row = 0;
  for (const formats::r1cs_constraint& con : r1cs.constraints()) {
    const formats::linear_combination* lcs[3] = {&con.a, &con.b, &con.c};
    for (int m = 0; m < 3; ++m) {
      for (std::size_t k = 0; k < lcs[m]->size(); ++k) {
        const formats::r1cs_term term = (*lcs[m])[k];
        const auto where = [&] {
          return "r1cs: constraint " + std::to_string(row) + ": " + "ABC"[m] + "[" + std::to_string(k) +
                 "]: ";
        };
        if (term.wire >= cs.n_vars)
          return status(errc::format_error, where() + "wire: expected < nWires " + std::to_string(cs.n_vars) +
                                                ", found " + std::to_string(term.wire));
        const auto c = Fr::from_canonical(term.coef->integer());
        if (!c)
          return status(errc::format_error,
                        where() + "coefficient: expected < r, found " + term.coef->integer().to_decimal());
        t[m].push_back({row, term.wire, *c});
      }
    }
    ++row;
  }
  if (row != cs.n_constraints)
    return status(errc::format_error,
                  "r1cs: constraints: expected nConstraints = " + std::to_string(cs.n_constraints) +
                      ", found " + std::to_string(row));
  auto to_csr = [&](const std::vector<synth::triplet<Fr>>& v) {
    return synth::build_csr<Fr>(cs.n_constraints, cs.n_vars, v.size(), [&](std::size_t i) { return v[i]; });
  };
  cs.a = to_csr(t[0]);
  cs.b = to_csr(t[1]);
  cs.c = to_csr(t[2]);
  return cs;
}

template <class Curve>
result<std::vector<typename Curve::fr::repr>> witness_of(const formats::wtns& wtns) {
  using Fr = typename Curve::fr;
  if (!(wtns.header().prime == Fr::modulus))
    return status(errc::invalid_argument, std::string("wtns: prime: expected ") + Curve::name +
                                              "'s r = " + Fr::modulus.to_decimal() + ", found " +
                                              wtns.header().prime.to_decimal());
  CUZK_TRY(wtns.validate());
  std::vector<typename Fr::repr> w(wtns.size());
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = wtns.value(i);
  return w;
}

template <class Curve>
status write_wtns(const std::string& path, std::span<const typename Curve::fr::repr> witness) {
  using Fr = typename Curve::fr;
  auto w = formats::binfile_writer::create(path, "wtns", 2);
  if (!w) return w.error();
  uint8_t buf[Fr::num_bytes];
  CUZK_TRY(w->begin_section(1));
  CUZK_TRY(w->write_u32(static_cast<uint32_t>(Fr::num_bytes)));
  Fr::modulus.to_bytes_le(buf);
  CUZK_TRY(w->write(buf));
  CUZK_TRY(w->write_u32(static_cast<uint32_t>(witness.size())));
  CUZK_TRY(w->end_section());
  CUZK_TRY(w->begin_section(2));
  CUZK_TRY(w->write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(witness.data()),
                                             witness.size() * sizeof(typename Fr::repr))));
  CUZK_TRY(w->end_section());
  return w->commit();
}

}  // namespace cuzk::groth16
