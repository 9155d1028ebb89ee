// SPDX-License-Identifier: MIT OR Apache-2.0
// The prover and verifier on snarkjs's fixtures and on keys from our own setup, both curves:
// proofs verify; with r = s = 0 the proof equals an independent slow computation; snarkjs's own
// proof verifies and stops verifying when a coordinate or a public signal changes; the proof does
// not depend on the thread count.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/per_curve_test.hpp"
#include "ec/test_points.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/prover.hpp"
#include "groth16/reference_prover_test_util.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/evaluate_abc.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class Curve> using groth16_test = per_curve_test<Curve>;
TYPED_TEST_SUITE(groth16_test, both_curves);

template <class Curve>
std::string fixture(const std::string& circuit, const std::string& file) {
  std::string dir = std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/" + Curve::snarkjs_name + "/";
  if (!circuit.empty()) dir += circuit + "/";
  return dir + file;
}

// A fixture's key, witness, verification key and snarkjs proof, loaded and checked.
template <class Curve>
struct fixture_set {
  formats::zkey<Curve> zk;
  proving_key<Curve> pk;
  std::vector<typename Curve::fr::repr> w;
  formats::verification_key<Curve> vk;
  formats::proof<Curve> snarkjs_proof;
  std::vector<typename Curve::fr> publics;

  static fixture_set load(const std::string& circuit) {
    auto zk = formats::zkey<Curve>::open(fixture<Curve>(circuit, "circuit.zkey"));
    EXPECT_TRUE(zk.is_ok()) << zk.error().to_string();
    auto pk = proving_key<Curve>::from_zkey(*zk);
    EXPECT_TRUE(pk.is_ok()) << pk.error().to_string();
    auto wt = formats::wtns::open(fixture<Curve>(circuit, "circuit.wtns"));
    EXPECT_TRUE(wt.is_ok()) << wt.error().to_string();
    auto w = witness_of<Curve>(*wt);
    auto vk = formats::read_verification_key_json<Curve>(fixture<Curve>(circuit, "verification_key.json"));
    EXPECT_TRUE(vk.is_ok()) << vk.error().to_string();
    auto pr = formats::read_proof_json<Curve>(fixture<Curve>(circuit, "proof.json"));
    EXPECT_TRUE(pr.is_ok()) << pr.error().to_string();
    auto pub = formats::read_public_json<Curve>(fixture<Curve>(circuit, "public.json"));
    EXPECT_TRUE(pub.is_ok()) << pub.error().to_string();
    return {std::move(zk).value(), std::move(pk).value(), std::move(w).value(),
            std::move(vk).value(), std::move(pr).value(), std::move(pub).value()};
  }
};

const char* const fixture_circuits[] = {"", "poseidon"};

TYPED_TEST(groth16_test, fixture_proofs_verify) {
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const auto f = fixture_set<TypeParam>::load(circuit);
    const auto publics = public_signals_of<TypeParam>(f.w, f.zk.n_public());
    EXPECT_EQ(publics, f.publics);
    phase_timings t;
    auto proof = prove<TypeParam>(f.pk.view(), f.w, &t);
    ASSERT_TRUE(proof.is_ok()) << proof.error().to_string();
    const status v = verify<TypeParam>(f.vk, publics, *proof);
    EXPECT_TRUE(v.is_ok()) << v.to_string();
    EXPECT_GT(t.total, 0.0);
  }
}

TYPED_TEST(groth16_test, zero_blinding_matches_reference) {
  using Fr = typename TypeParam::fr;
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const auto f = fixture_set<TypeParam>::load(circuit);
    auto proof = prove_with<TypeParam>(f.pk.view(), f.w, Fr::zero(), Fr::zero());
    ASSERT_TRUE(proof.is_ok()) << proof.error().to_string();
    EXPECT_EQ(*proof, testing::reference_proof(f.zk, f.w));
    EXPECT_TRUE(verify<TypeParam>(f.vk, f.publics, *proof).is_ok());
  }
}

TYPED_TEST(groth16_test, snarkjs_proof_accepted_and_tampering_rejected) {
  using Fr = typename TypeParam::fr;
  using G1 = g1_group<TypeParam>;
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const auto f = fixture_set<TypeParam>::load(circuit);
    const status ok = verify<TypeParam>(f.vk, f.publics, f.snarkjs_proof);
    EXPECT_TRUE(ok.is_ok()) << ok.to_string();

    auto p = f.snarkjs_proof;
    p.a.y = -p.a.y;  // still on the curve: only the pairing notices
    EXPECT_EQ(verify<TypeParam>(f.vk, f.publics, p).code(), errc::verification_failed);
    p = f.snarkjs_proof;
    p.c.x += decltype(p.c.x)::one();  // off the curve
    EXPECT_EQ(verify<TypeParam>(f.vk, f.publics, p).code(), errc::not_on_curve);
    p = f.snarkjs_proof;
    p.b.x.c1 += decltype(p.b.x.c1)::one();
    EXPECT_EQ(verify<TypeParam>(f.vk, f.publics, p).code(), errc::not_on_curve);
    p = f.snarkjs_proof;
    p.c = (ec::jacobian<typename G1::field>::from_affine(p.c) + G1::generator).to_affine();
    EXPECT_EQ(verify<TypeParam>(f.vk, f.publics, p).code(), errc::verification_failed);

    for (std::size_t i = 0; i < f.publics.size(); ++i) {
      auto pub = f.publics;
      pub[i] += Fr::one();
      EXPECT_EQ(verify<TypeParam>(f.vk, pub, f.snarkjs_proof).code(), errc::verification_failed)
          << "public " << i;
    }
    auto fewer = f.publics;
    fewer.pop_back();
    const status count = verify<TypeParam>(f.vk, fewer, f.snarkjs_proof);
    EXPECT_EQ(count.code(), errc::invalid_argument);
    EXPECT_NE(count.message().find("count"), std::string::npos) << count.to_string();
  }
}

TYPED_TEST(groth16_test, points_outside_the_subgroup_are_named) {
  using G2 = g2_group<TypeParam>;
  const auto f = fixture_set<TypeParam>::load("");
  std::mt19937_64 rng(5);
  auto p = f.snarkjs_proof;
  p.b = ec::testing::random_curve_point<G2>(rng);
  const status s = verify<TypeParam>(f.vk, f.publics, p);
  EXPECT_EQ(s.code(), errc::not_in_subgroup) << s.to_string();
  EXPECT_NE(s.message().find("pi_b"), std::string::npos);
}

TYPED_TEST(groth16_test, same_proof_on_any_thread_count) {
  using Fr = typename TypeParam::fr;
  const auto f = fixture_set<TypeParam>::load("poseidon");
  std::mt19937_64 rng(6);
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  thread_pool one(1), three(3);
  auto p1 = prove_with<TypeParam>(f.pk.view(), f.w, r, s, nullptr, one);
  auto p3 = prove_with<TypeParam>(f.pk.view(), f.w, r, s, nullptr, three);
  ASSERT_TRUE(p1.is_ok() && p3.is_ok());
  EXPECT_EQ(*p1, *p3);
  EXPECT_TRUE(verify<TypeParam>(f.vk, f.publics, *p1).is_ok());
}

TYPED_TEST(groth16_test, wrong_witness_length_is_an_error) {
  const auto f = fixture_set<TypeParam>::load("");
  auto w = f.w;
  w.pop_back();
  auto proof = prove<TypeParam>(f.pk.view(), w);
  ASSERT_FALSE(proof.is_ok());
  EXPECT_NE(proof.error().message().find("nVars"), std::string::npos) << proof.error().to_string();
}

// On circom's circuits the zkey's matrices give c = a∘b equal to C w from the .r1cs, row by row:
// the check that the coefficient section was read right (the zkey has no C to compare with).
TYPED_TEST(groth16_test, zkey_synthesis_matches_r1cs_c) {
  using Fr = typename TypeParam::fr;
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const auto f = fixture_set<TypeParam>::load(circuit);
    auto r1 = formats::r1cs::open(fixture<TypeParam>(circuit, "circuit.r1cs"));
    ASSERT_TRUE(r1.is_ok()) << r1.error().to_string();
    auto cs = constraint_system_of<TypeParam>(*r1);
    ASSERT_TRUE(cs.is_ok()) << cs.error().to_string();
    ASSERT_TRUE(cs->is_satisfied(f.w));
    const std::size_t n = f.zk.domain_size();
    std::vector<Fr> a(n), b(n), c(n);
    ASSERT_TRUE(synth::evaluate_abc<Fr>(f.pk.matrices(), f.w, a, b, c).is_ok());
    for (std::size_t j = 0; j < n; ++j) {
      Fr cw = Fr::zero();
      if (j < cs->n_constraints) {
        const auto cols = cs->c.row_cols(j);
        const auto vals = cs->c.row_values(j);
        for (std::size_t k = 0; k < cols.size(); ++k) cw += vals[k] * *Fr::from_canonical(f.w[cols[k]]);
      }
      ASSERT_EQ(c[j], cw) << "row " << j;
    }
  }
}

// Our setup from the fixture's .r1cs, then a zkey file, then our prover and verifier.
TYPED_TEST(groth16_test, setup_from_r1cs_then_prove_and_verify) {
  const auto f = fixture_set<TypeParam>::load("poseidon");
  auto r1 = formats::r1cs::open(fixture<TypeParam>("poseidon", "circuit.r1cs"));
  ASSERT_TRUE(r1.is_ok()) << r1.error().to_string();
  auto cs = constraint_system_of<TypeParam>(*r1);
  ASSERT_TRUE(cs.is_ok()) << cs.error().to_string();
  EXPECT_TRUE(cs->is_satisfied(f.w));
  auto dk = development_setup<TypeParam>(*cs);
  ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
  EXPECT_EQ(dk->key.domain_size, f.zk.domain_size());
  EXPECT_EQ(dk->key.coefs.size(), f.zk.coef_records().size());

  const std::string path =
      (std::filesystem::temp_directory_path() / (std::string("cuzk_setup_") + TypeParam::name + ".zkey"))
          .string();
  ASSERT_TRUE(formats::write_zkey<TypeParam>(path, dk->key).is_ok());
  auto zk = formats::zkey<TypeParam>::open(path);
  ASSERT_TRUE(zk.is_ok()) << zk.error().to_string();
  auto pk = proving_key<TypeParam>::from_zkey(*zk);
  ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
  auto proof = prove<TypeParam>(pk->view(), f.w);
  ASSERT_TRUE(proof.is_ok());
  EXPECT_TRUE(verify<TypeParam>(dk->vk, f.publics, *proof).is_ok());
  EXPECT_EQ(formats::verification_key_of(*zk).ic, dk->vk.ic);
  std::filesystem::remove(path);
}

// Synthetic circuits of both witness shapes, from memory.
TYPED_TEST(groth16_test, synthetic_circuits_prove_and_verify) {
  using Fr = typename TypeParam::fr;
  for (const auto kind : {synth::witness_kind::dense, synth::witness_kind::mostly_boolean}) {
    const auto circuit = synth::make_synthetic_circuit<Fr>(8, kind, 11);
    auto dk = development_setup<TypeParam>(circuit.cs);
    ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
    auto pk = proving_key<TypeParam>::from_key_data(dk->key);
    ASSERT_TRUE(pk.is_ok()) << pk.error().to_string();
    auto proof = prove<TypeParam>(pk->view(), circuit.witness);
    ASSERT_TRUE(proof.is_ok());
    const auto publics = public_signals_of<TypeParam>(circuit.witness, circuit.cs.n_public);
    EXPECT_TRUE(verify<TypeParam>(dk->vk, publics, *proof).is_ok());
    auto wrong = publics;
    wrong[0] += Fr::one();
    EXPECT_FALSE(verify<TypeParam>(dk->vk, wrong, *proof).is_ok());
  }
}

}  // namespace
}  // namespace cuzk::groth16
