// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for synthetic_circuit.hpp, compiled once per curve in synth_<curve>.cpp.
#pragma once

#include <random>

#include "synth/synthetic_circuit.hpp"

namespace cuzk::synth {

template <class Fr>
synthetic_circuit<Fr> make_synthetic_circuit(unsigned log_size, witness_kind kind, uint64_t seed) {
  const std::size_t n_public = 1;
  const std::size_t m = (std::size_t{1} << log_size) - n_public - 1;
  const std::size_t first_defined = 3;  // wires 0 (one), 1 (public), 2 (private input)
  const std::size_t n_vars = first_defined + m;

  std::mt19937_64 rng(seed);
  std::vector<Fr> w(n_vars);
  w[0] = Fr::one();
  const bool boolean = kind == witness_kind::mostly_boolean;
  w[1] = boolean ? Fr::from_uint(rng() % 2) : Fr::random(rng);
  w[2] = boolean ? Fr::from_uint(rng() % 2) : Fr::random(rng);

  std::vector<triplet<Fr>> ta, tb, tc;
  ta.reserve(2 * m);
  tb.reserve(2 * m);
  tc.reserve(m);
  auto earlier = [&](std::size_t z) { return static_cast<uint32_t>(1 + rng() % (z - 1)); };
  for (std::size_t j = 0; j < m; ++j) {
    const auto row = static_cast<uint32_t>(j);
    const std::size_t z = first_defined + j;
    const auto zc = static_cast<uint32_t>(z);
    if (boolean && rng() % 10 != 0) {
      // z * (z - 1) = 0
      w[z] = Fr::from_uint(rng() % 2);
      ta.push_back({row, zc, Fr::one()});
      tb.push_back({row, zc, Fr::one()});
      tb.push_back({row, 0, -Fr::one()});
    } else if (boolean) {
      // z = x * y
      const uint32_t x = earlier(z), y = earlier(z);
      w[z] = w[x] * w[y];
      ta.push_back({row, x, Fr::one()});
      tb.push_back({row, y, Fr::one()});
      tc.push_back({row, zc, Fr::one()});
    } else {
      // (c1 x + c2 y) * (c3 u) = z
      const uint32_t x = earlier(z), y = earlier(z), u = earlier(z);
      const Fr c1 = Fr::random(rng), c2 = Fr::random(rng), c3 = Fr::random(rng);
      w[z] = (c1 * w[x] + c2 * w[y]) * (c3 * w[u]);
      ta.push_back({row, x, c1});
      ta.push_back({row, y, c2});
      tb.push_back({row, u, c3});
      tc.push_back({row, zc, Fr::one()});
    }
  }

  synthetic_circuit<Fr> out;
  out.cs.n_vars = n_vars;
  out.cs.n_public = n_public;
  out.cs.n_constraints = m;
  auto to_csr = [&](const std::vector<triplet<Fr>>& t) {
    return build_csr<Fr>(m, n_vars, t.size(), [&](std::size_t i) { return t[i]; });
  };
  out.cs.a = to_csr(ta);
  out.cs.b = to_csr(tb);
  out.cs.c = to_csr(tc);
  out.witness.resize(n_vars);
  for (std::size_t i = 0; i < n_vars; ++i) out.witness[i] = w[i].to_canonical();
  return out;
}

}  // namespace cuzk::synth
