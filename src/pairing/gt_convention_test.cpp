// SPDX-License-Identifier: MIT OR Apache-2.0
// Which element of GT the pairing produces, pinned down two ways for both curves:
//
//  1. Against a slow oracle: final_exponentiation(f) equals f raised to (q^12 - 1)/r * c, with the
//     exponent computed by GMP and c = 3 (BLS12-381) or c = 2x(6x^2 + 3x + 1) (BN254).
//  2. Against snarkjs: e(vk_alpha_1, vk_beta_2) equals the vk_alphabeta_12 that snarkjs 0.7.6
//     wrote into the committed verification keys, and the textbook reduced pairing (c = 1) does
//     not. Together with 1 this shows that snarkjs's GT values are e^c for these same c: its final
//     exponentiations (ffjavascript/wasmcurves) use chains for those same multiples, and its
//     Fq12 tower and coefficient order match ours.
//
// The committed proofs are also checked with pairing_check, as a Groth16 verifier would.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "curves/per_curve_test.hpp"
#include "ff/gmp_oracle.hpp"
#include "pairing/naive_affine_test_util.hpp"
#include "pairing/pairing.hpp"
#include "pairing/pairing_params.hpp"

namespace cuzk::pairing {
namespace {

using json = nlohmann::json;

template <class Curve>
struct gt_convention {
  // The c in e^c; see final_exponentiation.hpp.
  static mpz_class c() {
    using params = pairing_params<Curve>;
    if constexpr (params::family == curve_family::bn) {
      mpz_class x(std::to_string(params::x_abs));
      if (params::x_is_negative) x = -x;
      return 2 * x * (6 * x * x + 3 * x + 1);
    } else {
      return 3;
    }
  }
  static mpz_class full_exponent() {
    const mpz_class q = ff::testing::modulus_mpz<typename Curve::fq>();
    const mpz_class r = ff::testing::modulus_mpz<typename Curve::fr>();
    mpz_class q12;
    mpz_pow_ui(q12.get_mpz_t(), q.get_mpz_t(), 12);
    const mpz_class e = (q12 - 1) / r;
    EXPECT_EQ(e * r, q12 - 1);
    return e * c();
  }
  static constexpr std::size_t exponent_limbs = 12 * Curve::fq::N;
};

template <class Curve>
class GtConventionTest : public ::testing::Test {
 protected:
  using fq_t = typename Curve::fq;
  using fq2_t = typename Curve::fq2;
  using gt_t = fq12<Curve>;
  std::mt19937_64 rng{99};

  static std::string dir() { return std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/" + Curve::snarkjs_name; }
  static json load(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot open " << path;
    return json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  static fq_t fq_of(const json& s) {
    const auto v = fq_t::from_string(s.get<std::string>());
    EXPECT_TRUE(v.has_value()) << s;
    return v.value_or(fq_t::zero());
  }
  static fq2_t fq2_of(const json& a) { return {fq_of(a[0]), fq_of(a[1])}; }
  // snarkjs writes projective coordinates with z = 1, or z = 0 for infinity.
  static g1_affine<Curve> g1_of(const json& a) {
    if (fq_of(a[2]).is_zero()) return g1_affine<Curve>::infinity();
    EXPECT_TRUE(fq_of(a[2]).is_one());
    return {fq_of(a[0]), fq_of(a[1])};
  }
  static g2_affine<Curve> g2_of(const json& a) {
    if (fq2_of(a[2]).is_zero()) return g2_affine<Curve>::infinity();
    EXPECT_TRUE(fq2_of(a[2]).is_one());
    return {fq2_of(a[0]), fq2_of(a[1])};
  }
  // [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each an Fq2 pair.
  static gt_t gt_of(const json& a) {
    using fq6 = typename gt_t::fq6;
    return {fq6{fq2_of(a[0][0]), fq2_of(a[0][1]), fq2_of(a[0][2])},
            fq6{fq2_of(a[1][0]), fq2_of(a[1][1]), fq2_of(a[1][2])}};
  }
  static gt_t gt_pow(const gt_t& x, const mpz_class& e) {
    return x.pow(ff::testing::from_mpz<gt_convention<Curve>::exponent_limbs>(e));
  }
};
TYPED_TEST_SUITE(GtConventionTest, both_curves);

TYPED_TEST(GtConventionTest, FinalExponentiationIsTheFixedPowerOfTheReducedPairing) {
  using gt = typename TestFixture::gt_t;
  const mpz_class e = gt_convention<TypeParam>::full_exponent();
  for (int i = 0; i < 2; ++i) {
    const gt f = gt::random(this->rng);
    EXPECT_EQ(final_exponentiation<TypeParam>(f), TestFixture::gt_pow(f, e));
  }
}

TYPED_TEST(GtConventionTest, MatchesSnarkjsVkAlphaBeta12) {
  using gt = typename TestFixture::gt_t;
  for (const char* sub : {"", "/poseidon"}) {
    const json vk = TestFixture::load(TestFixture::dir() + sub + "/verification_key.json");
    ASSERT_TRUE(vk.is_object());
    ASSERT_EQ(vk["curve"], TypeParam::snarkjs_name);
    const auto alpha = TestFixture::g1_of(vk["vk_alpha_1"]);
    const auto beta = TestFixture::g2_of(vk["vk_beta_2"]);
    const gt expected = TestFixture::gt_of(vk["vk_alphabeta_12"]);

    const gt ours = pairing<TypeParam>(alpha, beta);
    EXPECT_EQ(ours, expected) << "e(vk_alpha_1, vk_beta_2) differs from snarkjs's vk_alphabeta_12" << sub;

    // The textbook reduced pairing e' = e^(1/c) is a different element: snarkjs does not print it.
    const mpz_class r = ff::testing::modulus_mpz<typename TypeParam::fr>();
    mpz_class c_inv;
    const mpz_class c = gt_convention<TypeParam>::c();
    ASSERT_NE(mpz_invert(c_inv.get_mpz_t(), c.get_mpz_t(), r.get_mpz_t()), 0);
    const gt textbook = TestFixture::gt_pow(ours, c_inv);
    EXPECT_NE(textbook, expected);
    EXPECT_EQ(TestFixture::gt_pow(textbook, c), expected);
  }
}

// Groth16 verification of the committed proofs: e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta)
// == 1 with vk_x = IC[0] + sum_i public[i] IC[i + 1]; and a changed public input fails.
TYPED_TEST(GtConventionTest, CommittedProofsVerify) {
  using fr = typename TypeParam::fr;
  for (const char* sub : {"", "/poseidon"}) {
    const std::string d = TestFixture::dir() + sub;
    const json vk = TestFixture::load(d + "/verification_key.json");
    const json proof = TestFixture::load(d + "/proof.json");
    const json pub = TestFixture::load(d + "/public.json");
    ASSERT_TRUE(vk.is_object() && proof.is_object() && pub.is_array());
    ASSERT_EQ(vk["IC"].size(), pub.size() + 1);

    const auto verify = [&](const std::vector<fr>& inputs) {
      auto vk_x = TestFixture::g1_of(vk["IC"][0]);
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto term =
            test_util::affine_mul(TestFixture::g1_of(vk["IC"][i + 1]), inputs[i].to_canonical());
        vk_x = test_util::affine_add(vk_x, term);
      }
      const std::vector<g1g2_pair<TypeParam>> terms{
          {-TestFixture::g1_of(proof["pi_a"]), TestFixture::g2_of(proof["pi_b"])},
          {TestFixture::g1_of(vk["vk_alpha_1"]), TestFixture::g2_of(vk["vk_beta_2"])},
          {vk_x, TestFixture::g2_of(vk["vk_gamma_2"])},
          {TestFixture::g1_of(proof["pi_c"]), TestFixture::g2_of(vk["vk_delta_2"])}};
      return pairing_check<TypeParam>(terms);
    };
    std::vector<fr> inputs;
    for (const auto& s : pub) inputs.push_back(fr::from_string(s.get<std::string>()).value());
    EXPECT_TRUE(verify(inputs)) << d;
    inputs[0] += fr::one();
    EXPECT_FALSE(verify(inputs)) << d;
  }
}

}  // namespace
}  // namespace cuzk::pairing
