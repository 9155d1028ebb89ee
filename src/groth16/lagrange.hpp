// SPDX-License-Identifier: MIT OR Apache-2.0
// Lagrange basis polynomials evaluated at one point τ, in O(n): what a setup multiplies the
// generators by.
//
// On the domain ω^j (ω = ω_n, n a power of two) the basis polynomial of point j is
//   L_j(x) = ω^j (x^n - 1) / (n (x - ω^j)),
// since x^n - 1 = Π (x - ω^k) and its derivative at ω^j is n ω^(-j). All n values need the
// inverses of τ - ω^j, taken together with one field inversion (Montgomery's batch trick).
//
// The H points of a snarkjs key are a second basis (snarkjs's zkey setup): the Lagrange basis
// of the 2n points {ω^j} ∪ {y_j = c ω^j}, taken at the coset points y_j, where c = ω_2n, or
// c = g^2 = 25 when n is the field's largest power-of-two domain and no ω_2n exists. With
// V(x) = (x^n - 1)(x^n - c^n) and V'(y_j) = n c^n (c^n - 1) / y_j (because y_j^n = c^n):
//   L'_j(x) = (x^n - 1)(x^n - c^n) y_j / (n c^n (c^n - 1) (x - y_j)).
// For c = ω_2n, c^n = -1 and this is the 2n-domain basis at its odd points, ω_2n^(2j+1). The
// prover's h_j = (AB - C)(y_j) pairs with these points: AB - C vanishes on the ω^j, so
// Σ_j h_j L'_j(τ) = (AB - C)(τ) exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ff/roots_of_unity.hpp"

namespace cuzk::groth16 {

// x[i] <- 1 / x[i] for all i; every x[i] must be non-zero.
template <class Fr>
void batch_inverse(std::vector<Fr>& x) {
  std::vector<Fr> prefix(x.size());
  Fr acc = Fr::one();
  for (std::size_t i = 0; i < x.size(); ++i) {
    prefix[i] = acc;
    acc *= x[i];
  }
  Fr inv = acc.inverse();
  for (std::size_t i = x.size(); i-- > 0;) {
    const Fr xi = x[i];
    x[i] = inv * prefix[i];
    inv *= xi;
  }
}

// The coset shift c of the H evaluation points for a domain of 2^log_n: ω_2n, or g^2 at the
// field's 2-adicity (as snarkjs's Fr.shift).
template <class Fr>
Fr coset_shift(std::size_t log_n, uint64_t generator) {
  if (log_n < Fr::two_adicity) return ff::root_of_unity<Fr>(log_n + 1, generator);
  const Fr g = Fr::from_uint(generator);
  return g * g;
}

// The points ω^j scaled by `scale`, for j < 2^log_n.
template <class Fr>
std::vector<Fr> domain_points(std::size_t log_n, uint64_t generator, const Fr& scale) {
  const std::size_t n = std::size_t{1} << log_n;
  const Fr w = ff::root_of_unity<Fr>(log_n, generator);
  std::vector<Fr> out(n);
  Fr p = scale;
  for (std::size_t j = 0; j < n; ++j) {
    out[j] = p;
    p *= w;
  }
  return out;
}

// L_j(τ) on the n-domain. τ must not be a domain point (τ^n != 1).
template <class Fr>
std::vector<Fr> lagrange_at(const Fr& tau, std::size_t log_n, uint64_t generator) {
  const std::size_t n = std::size_t{1} << log_n;
  const std::vector<Fr> pts = domain_points<Fr>(log_n, generator, Fr::one());
  std::vector<Fr> d(n);
  for (std::size_t j = 0; j < n; ++j) d[j] = tau - pts[j];
  batch_inverse(d);
  const Fr factor = (tau.pow(uint64_t{n}) - Fr::one()) * Fr::from_uint(n).inverse();
  for (std::size_t j = 0; j < n; ++j) d[j] = factor * pts[j] * d[j];
  return d;
}

// L'_j(τ) at the coset points y_j = c ω^j (see above), for c = coset_shift or any c with
// c^n != 1. τ must not be one of the 2n points.
template <class Fr>
std::vector<Fr> coset_lagrange_at(const Fr& tau, std::size_t log_n, uint64_t generator, const Fr& c) {
  const std::size_t n = std::size_t{1} << log_n;
  const Fr cn = c.pow(uint64_t{n});
  const std::vector<Fr> pts = domain_points<Fr>(log_n, generator, c);
  std::vector<Fr> d(n);
  for (std::size_t j = 0; j < n; ++j) d[j] = tau - pts[j];
  batch_inverse(d);
  const Fr tn = tau.pow(uint64_t{n});
  const Fr factor = (tn - Fr::one()) * (tn - cn) * (Fr::from_uint(n) * cn * (cn - Fr::one())).inverse();
  for (std::size_t j = 0; j < n; ++j) d[j] = factor * pts[j] * d[j];
  return d;
}

}  // namespace cuzk::groth16
