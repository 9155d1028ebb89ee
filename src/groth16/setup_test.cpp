// SPDX-License-Identifier: MIT OR Apache-2.0
// The development setup against slow, obviously-correct versions: Lagrange values by the product
// formula, the coset basis by the interpolation identity it must satisfy, fixed-base
// multiplication against ec::scalar_mul, and every key section against per-point scalar
// multiplications of independently computed scalars.
#include "groth16/setup.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/per_curve_test.hpp"
#include "ec/scalar_mul.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/lagrange.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class Curve> using setup_test = per_curve_test<Curve>;
TYPED_TEST_SUITE(setup_test, both_curves);

// Π_{k != j} (x - p_k) / (p_j - p_k)
template <class Fr>
Fr naive_lagrange(const std::vector<Fr>& pts, std::size_t j, const Fr& x) {
  Fr num = Fr::one(), den = Fr::one();
  for (std::size_t k = 0; k < pts.size(); ++k) {
    if (k == j) continue;
    num *= x - pts[k];
    den *= pts[j] - pts[k];
  }
  return num * den.inverse();
}

template <class Fr>
std::vector<Fr> powers(const Fr& w, std::size_t n) {
  std::vector<Fr> out(n);
  Fr p = Fr::one();
  for (auto& o : out) o = p, p *= w;
  return out;
}

TYPED_TEST(setup_test, lagrange_matches_product_formula) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(1);
  for (std::size_t log_n : {0, 1, 3, 5}) {
    const std::size_t n = std::size_t{1} << log_n;
    const Fr tau = Fr::random(rng);
    const auto pts = powers(ff::root_of_unity<Fr>(log_n, TypeParam::fr_generator), n);
    const auto fast = lagrange_at<Fr>(tau, log_n, TypeParam::fr_generator);
    for (std::size_t j = 0; j < n; ++j)
      EXPECT_EQ(fast[j], naive_lagrange(pts, j, tau)) << "n " << n << " j " << j;

    // The H basis is the 2n-domain basis at the odd points when c = ω_2n.
    const auto pts2 = powers(ff::root_of_unity<Fr>(log_n + 1, TypeParam::fr_generator), 2 * n);
    const Fr c = coset_shift<Fr>(log_n, TypeParam::fr_generator);
    EXPECT_EQ(c, pts2[1]);
    const auto odd = coset_lagrange_at<Fr>(tau, log_n, TypeParam::fr_generator, c);
    for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(odd[j], naive_lagrange(pts2, 2 * j + 1, tau)) << "j " << j;
  }
}

// For any c (in particular the shift 25 used at the field's 2-adicity): P = (x^n - 1) Q with
// deg Q < n vanishes on the n-domain, so P(τ) = Σ_j P(c ω^j) L'_j(τ).
TYPED_TEST(setup_test, coset_basis_interpolates_on_the_shifted_coset) {
  using Fr = typename TypeParam::fr;
  std::mt19937_64 rng(2);
  for (std::size_t log_n : {2, 4}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (const Fr c : {Fr::from_uint(25), Fr::random(rng)}) {
      std::vector<Fr> q(n);
      for (auto& x : q) x = Fr::random(rng);
      auto p_at = [&](const Fr& x) {
        Fr acc = Fr::zero();
        for (std::size_t i = n; i-- > 0;) acc = acc * x + q[i];
        return acc * (x.pow(uint64_t{n}) - Fr::one());
      };
      const Fr tau = Fr::random(rng);
      const auto basis = coset_lagrange_at<Fr>(tau, log_n, TypeParam::fr_generator, c);
      const auto ys = powers(ff::root_of_unity<Fr>(log_n, TypeParam::fr_generator), n);
      Fr sum = Fr::zero();
      for (std::size_t j = 0; j < n; ++j) sum += p_at(c * ys[j]) * basis[j];
      EXPECT_EQ(sum, p_at(tau));
    }
  }
}

template <class G>
void check_fixed_base(std::mt19937_64& rng) {
  using Fr = typename G::scalar;
  std::vector<Fr> scalars = {Fr::zero(), Fr::one(), Fr::from_uint(2), -Fr::one(), Fr::from_uint(1u << 20)};
  for (int i = 0; i < 20; ++i) scalars.push_back(Fr::random(rng));
  for (unsigned w : {1u, 4u, 7u}) {
    const fixed_base_table<G> table(G::generator, w);
    for (const Fr& s : scalars)
      EXPECT_TRUE(table.mul(s.to_canonical()) == ec::scalar_mul(G::generator, s)) << "window " << w;
  }
  std::vector<typename G::affine> out(scalars.size());
  fixed_base_mul<G>(G::generator, scalars, out);
  for (std::size_t i = 0; i < scalars.size(); ++i)
    EXPECT_EQ(out[i], ec::scalar_mul(G::generator, scalars[i]).to_affine()) << i;
}

TYPED_TEST(setup_test, fixed_base_matches_scalar_mul) {
  std::mt19937_64 rng(3);
  check_fixed_base<g1_group<TypeParam>>(rng);
  check_fixed_base<g2_group<TypeParam>>(rng);
}

// Every section of a small key against scalars computed with the product-formula Lagrange basis.
TYPED_TEST(setup_test, key_sections_match_their_definitions) {
  using Fr = typename TypeParam::fr;
  using G1 = g1_group<TypeParam>;
  using G2 = g2_group<TypeParam>;
  std::mt19937_64 rng(4);
  const auto circuit = synth::make_synthetic_circuit<Fr>(3, synth::witness_kind::dense, 5);
  const auto& cs = circuit.cs;
  const toxic_waste<TypeParam> tw{Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng),
                                  Fr::random(rng)};
  auto key = setup<TypeParam>(cs, tw);
  ASSERT_TRUE(key.is_ok()) << key.error().to_string();
  const std::size_t n = cs.domain_size(), log_n = 3;
  ASSERT_EQ(key->key.domain_size, n);
  EXPECT_EQ(key->vk.ic, key->key.ic);
  const auto pts = powers(ff::root_of_unity<Fr>(log_n, TypeParam::fr_generator), n);
  auto col = [&](const synth::csr_matrix<Fr>& m, std::size_t s) {
    Fr acc = Fr::zero();
    for (std::size_t j = 0; j < m.rows; ++j) {
      const auto cols = m.row_cols(j);
      const auto vals = m.row_values(j);
      for (std::size_t k = 0; k < cols.size(); ++k)
        if (cols[k] == s) acc += vals[k] * naive_lagrange(pts, j, tw.tau);
    }
    return acc;
  };
  auto g1 = [](const Fr& s) { return ec::scalar_mul(G1::generator, s).to_affine(); };
  auto g2 = [](const Fr& s) { return ec::scalar_mul(G2::generator, s).to_affine(); };
  for (std::size_t s = 0; s < cs.n_vars; ++s) {
    Fr ua = col(cs.a, s);
    if (s <= cs.n_public) ua += naive_lagrange(pts, cs.n_constraints + s, tw.tau);
    const Fr ub = col(cs.b, s), uc = col(cs.c, s);
    EXPECT_EQ(key->key.a[s], g1(ua)) << s;
    EXPECT_EQ(key->key.b1[s], g1(ub)) << s;
    EXPECT_EQ(key->key.b2[s], g2(ub)) << s;
    const Fr k = tw.beta * ua + tw.alpha * ub + uc;
    if (s <= cs.n_public) {
      EXPECT_EQ(key->key.ic[s], g1(k * tw.gamma.inverse())) << s;
    } else {
      EXPECT_EQ(key->key.c[s - cs.n_public - 1], g1(k * tw.delta.inverse())) << s;
    }
  }
  const auto pts2 = powers(ff::root_of_unity<Fr>(log_n + 1, TypeParam::fr_generator), 2 * n);
  for (std::size_t j = 0; j < n; ++j)
    EXPECT_EQ(key->key.h[j], g1(naive_lagrange(pts2, 2 * j + 1, tw.tau) * tw.delta.inverse())) << j;
  EXPECT_EQ(key->key.alpha1, g1(tw.alpha));
  EXPECT_EQ(key->key.beta1, g1(tw.beta));
  EXPECT_EQ(key->key.delta1, g1(tw.delta));
  EXPECT_EQ(key->key.beta2, g2(tw.beta));
  EXPECT_EQ(key->key.gamma2, g2(tw.gamma));
  EXPECT_EQ(key->key.delta2, g2(tw.delta));
  EXPECT_EQ(key->key.coefs.size(), cs.a.nnz() + cs.b.nnz() + cs.n_public + 1);
  EXPECT_NE(key->provenance.find("NOT a trusted-setup ceremony"), std::string::npos);
}

TYPED_TEST(setup_test, rejects_bad_toxic_waste) {
  using Fr = typename TypeParam::fr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(2, synth::witness_kind::dense, 5);
  toxic_waste<TypeParam> tw{Fr::from_uint(7), Fr::one(), Fr::one(), Fr::zero(), Fr::one()};
  EXPECT_FALSE(setup<TypeParam>(circuit.cs, tw).is_ok());
  tw.gamma = Fr::one();
  tw.tau = ff::root_of_unity<Fr>(2, TypeParam::fr_generator);  // a domain point
  EXPECT_FALSE(setup<TypeParam>(circuit.cs, tw).is_ok());
  EXPECT_TRUE(development_setup<TypeParam>(circuit.cs).is_ok());
}

}  // namespace
}  // namespace cuzk::groth16
