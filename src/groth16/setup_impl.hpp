// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for setup.hpp, compiled once per curve in groth16_<curve>.cpp.
#pragma once

#include <bit>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "groth16/fixed_base.hpp"
#include "groth16/lagrange.hpp"
#include "groth16/os_random.hpp"
#include "groth16/alphabeta.hpp"
#include "groth16/setup.hpp"

namespace cuzk::groth16 {

template <class Curve>
toxic_waste<Curve> random_toxic_waste() {
  using Fr = typename Curve::fr;
  return {os_random_nonzero_scalar<Fr>(), os_random_nonzero_scalar<Fr>(), os_random_nonzero_scalar<Fr>(),
          os_random_nonzero_scalar<Fr>(), os_random_nonzero_scalar<Fr>()};
}

template <class Curve>
result<development_key<Curve>> setup(const synth::constraint_system<typename Curve::fr>& cs,
                                     const toxic_waste<Curve>& tw, const fixed_base_engine<Curve>& engine) {
  using Fr = typename Curve::fr;
  using G1 = g1_group<Curve>;
  using G2 = g2_group<Curve>;
  const std::size_t n = cs.domain_size();
  const std::size_t log_n = static_cast<std::size_t>(std::countr_zero(n));
  const std::size_t m = cs.n_constraints;
  if (log_n > Fr::two_adicity)
    return status(errc::invalid_argument, "setup: domain size: expected at most 2^" +
                                              std::to_string(Fr::two_adicity) + ", found 2^" +
                                              std::to_string(log_n));
  if (cs.n_vars < cs.n_public + 1)
    return status(errc::invalid_argument,
                  "setup: nVars: expected at least nPublic + 1 = " + std::to_string(cs.n_public + 1) +
                      ", found " + std::to_string(cs.n_vars));
  if (tw.gamma.is_zero() || tw.delta.is_zero())
    return status(errc::invalid_argument, "setup: toxic waste: gamma and delta must be non-zero");
  const Fr tn = tw.tau.pow(uint64_t{n});
  const Fr shift = coset_shift<Fr>(log_n, Curve::fr_generator);
  const Fr cn = shift.pow(uint64_t{n});
  if (tn == Fr::one() || tn == cn)
    return status(errc::invalid_argument, "setup: toxic waste: tau is an evaluation point of the domain");

  // Per-signal QAP values at τ: A_s, B_s, C_s.
  std::vector<Fr> ua(cs.n_vars), ub(cs.n_vars), uc(cs.n_vars);
  {
    const std::vector<Fr> lag = lagrange_at<Fr>(tw.tau, log_n, Curve::fr_generator);
    auto accumulate = [&](const synth::csr_matrix<Fr>& mat, std::vector<Fr>& out) {
      for (std::size_t j = 0; j < mat.rows; ++j) {
        const auto cols = mat.row_cols(j);
        const auto vals = mat.row_values(j);
        for (std::size_t k = 0; k < cols.size(); ++k) out[cols[k]] += vals[k] * lag[j];
      }
    };
    accumulate(cs.a, ua);
    accumulate(cs.b, ub);
    accumulate(cs.c, uc);
    for (std::size_t s = 0; s <= cs.n_public; ++s) ua[s] += lag[m + s];
  }

  // Each point vector is made in the key's own vector, from scalars that live only as long as
  // they are needed, so the peak is about the key's size (setup.hpp). On the CPU one G1 table
  // serves every G1 vector and one G2 table B2.
  const std::size_t n_priv = cs.n_vars - cs.n_public - 1;
  const std::size_t n_ic = cs.n_public + 1;
  std::optional<fixed_base_table<G1>> t1;
  std::optional<fixed_base_table<G2>> t2;
  if (!engine.g1)
    t1.emplace(G1::generator, fixed_base_table<G1>::choose_window(2 * cs.n_vars + n_priv + n_ic + n + 3));
  if (!engine.g2) t2.emplace(G2::generator, fixed_base_table<G2>::choose_window(cs.n_vars + 3));
  development_key<Curve> out;
  formats::groth16_key_data<Curve>& key = out.key;
  key.n_vars = static_cast<uint32_t>(cs.n_vars);
  key.n_public = static_cast<uint32_t>(cs.n_public);
  key.domain_size = static_cast<uint32_t>(n);
  auto g1_points = [&](std::vector<g1_affine<Curve>>& v, std::span<const Fr> scalars) -> status {
    v.resize(scalars.size());
    if (engine.g1) return engine.g1(scalars, v);
    fixed_base_mul<G1>(*t1, scalars, v);
    return status::ok();
  };
  auto g2_points = [&](std::vector<g2_affine<Curve>>& v, std::span<const Fr> scalars) -> status {
    v.resize(scalars.size());
    if (engine.g2) return engine.g2(scalars, v);
    fixed_base_mul<G2>(*t2, scalars, v);
    return status::ok();
  };
  const Fr delta_inv = tw.delta.inverse(), gamma_inv = tw.gamma.inverse();
  {
    // C (private signals, over delta) and IC (public, over gamma): beta A_s + alpha B_s + C_s.
    std::vector<Fr> sc(n_priv), sic(n_ic);
    for (std::size_t s = 0; s < cs.n_vars; ++s) {
      const Fr v = tw.beta * ua[s] + tw.alpha * ub[s] + uc[s];
      if (s < n_ic)
        sic[s] = v * gamma_inv;
      else
        sc[s - n_ic] = v * delta_inv;
    }
    uc = {};
    CUZK_TRY(g1_points(key.c, sc));
    CUZK_TRY(g1_points(key.ic, sic));
  }
  CUZK_TRY(g1_points(key.a, ua));
  ua = {};
  CUZK_TRY(g1_points(key.b1, ub));
  CUZK_TRY(g2_points(key.b2, ub));
  ub = {};
  {
    std::vector<Fr> sh = coset_lagrange_at<Fr>(tw.tau, log_n, Curve::fr_generator, shift);
    for (Fr& v : sh) v *= delta_inv;
    CUZK_TRY(g1_points(key.h, sh));
  }
  std::vector<g1_affine<Curve>> p1;
  CUZK_TRY(g1_points(p1, std::vector<Fr>{tw.alpha, tw.beta, tw.delta}));
  key.alpha1 = p1[0];
  key.beta1 = p1[1];
  key.delta1 = p1[2];
  std::vector<g2_affine<Curve>> p2;
  CUZK_TRY(g2_points(p2, std::vector<Fr>{tw.beta, tw.gamma, tw.delta}));
  key.beta2 = p2[0];
  key.gamma2 = p2[1];
  key.delta2 = p2[2];

  // Section 4 in `zkey new`'s order: constraint by constraint (A entries, then B), then the
  // public-input rows.
  key.coefs.reserve(cs.a.nnz() + cs.b.nnz() + n_ic);
  for (std::size_t j = 0; j < m; ++j) {
    for (uint32_t which = 0; which < 2; ++which) {
      const synth::csr_matrix<Fr>& mat = which == 0 ? cs.a : cs.b;
      const auto cols = mat.row_cols(j);
      const auto vals = mat.row_values(j);
      for (std::size_t k = 0; k < cols.size(); ++k)
        key.coefs.push_back({which, static_cast<uint32_t>(j), cols[k], vals[k]});
    }
  }
  for (std::size_t s = 0; s < n_ic; ++s)
    key.coefs.push_back({0, static_cast<uint32_t>(m + s), static_cast<uint32_t>(s), Fr::one()});

  out.vk.alpha1 = key.alpha1;
  out.vk.beta2 = key.beta2;
  out.vk.gamma2 = key.gamma2;
  out.vk.delta2 = key.delta2;
  out.vk.ic = key.ic;
  add_alphabeta_12(out.vk);
  out.provenance = development_setup_provenance;
  return out;
}

}  // namespace cuzk::groth16
