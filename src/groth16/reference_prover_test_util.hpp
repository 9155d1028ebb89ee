// SPDX-License-Identifier: MIT OR Apache-2.0
// Test-only: the Groth16 proof with r = s = 0 computed the slow, obviously-correct way, sharing
// no code with the prover: coefficients decoded as plain values (not the double-Montgomery
// trick), a, b, c as dense sums, the coset values by evaluating the Lagrange interpolant of the
// n-domain values at each coset point (O(n^2)), and every sum by ec::naive_msm.
#pragma once

#include <bit>
#include <vector>

#include "ec/naive_msm.hpp"
#include "ff/roots_of_unity.hpp"
#include "formats/proof.hpp"
#include "formats/zkey.hpp"

namespace cuzk::groth16::testing {

template <class Curve>
formats::proof<Curve> reference_proof(const formats::zkey<Curve>& zk,
                                      const std::vector<typename Curve::fr::repr>& wr) {
  using Fr = typename Curve::fr;
  const std::size_t n = zk.domain_size();
  const std::size_t log_n = static_cast<std::size_t>(std::countr_zero(n));
  std::vector<Fr> w(wr.size());
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = *Fr::from_canonical(wr[i]);

  std::vector<Fr> a(n), b(n), c(n);
  for (std::size_t i = 0; i < zk.coef_records().size(); ++i) {
    const auto rec = zk.coef(i);
    (rec->matrix == 0 ? a : b)[rec->constraint] += rec->value * w[rec->signal];
  }
  for (std::size_t j = 0; j < n; ++j) c[j] = a[j] * b[j];

  // P(x) = Σ_j v_j ω^j (x^n - 1) / (n (x - ω^j)) at x_k = shift ω^k.
  const Fr omega = ff::root_of_unity<Fr>(log_n, Curve::fr_generator);
  const Fr shift = log_n < Fr::two_adicity ? ff::root_of_unity<Fr>(log_n + 1, Curve::fr_generator)
                                           : Fr::from_uint(Curve::fr_generator * Curve::fr_generator);
  std::vector<Fr> om(n);
  om[0] = Fr::one();
  for (std::size_t j = 1; j < n; ++j) om[j] = om[j - 1] * omega;
  const Fr n_inv = Fr::from_uint(n).inverse();
  std::vector<typename Fr::repr> h(n);
  for (std::size_t k = 0; k < n; ++k) {
    const Fr x = shift * om[k];
    const Fr f = (x.pow(uint64_t{n}) - Fr::one()) * n_inv;
    // 1 / (x - ω^j) for all j with one inversion (prefix products).
    std::vector<Fr> pre(n + 1);
    pre[0] = Fr::one();
    for (std::size_t j = 0; j < n; ++j) pre[j + 1] = pre[j] * (x - om[j]);
    std::vector<Fr> inv(n);
    Fr t = pre[n].inverse();
    for (std::size_t j = n; j-- > 0;) {
      inv[j] = t * pre[j];
      t *= x - om[j];
    }
    Fr va = Fr::zero(), vb = Fr::zero(), vc = Fr::zero();
    for (std::size_t j = 0; j < n; ++j) {
      const Fr l = f * om[j] * inv[j];
      va += a[j] * l;
      vb += b[j] * l;
      vc += c[j] * l;
    }
    h[k] = (va * vb - vc).to_canonical();
  }

  const auto& hd = zk.header();
  const std::size_t nv = zk.n_vars(), np = zk.n_public();
  const auto pa = ec::naive_msm(zk.a().data(), wr.data(), nv) + hd.alpha1;
  const auto pb = ec::naive_msm(zk.b2().data(), wr.data(), nv) + hd.beta2;
  const auto pc = ec::naive_msm(zk.c().data(), wr.data() + np + 1, nv - np - 1) +
                  ec::naive_msm(zk.h().data(), h.data(), n);
  return {pa.to_affine(), pb.to_affine(), pc.to_affine()};
}

}  // namespace cuzk::groth16::testing
