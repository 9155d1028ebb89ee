// SPDX-License-Identifier: MIT OR Apache-2.0
// Interop with snarkjs 0.7.6 (tools/node): snarkjs verifies our proofs, and snarkjs proves with a
// key from our development setup, which both verifiers then accept. Skipped, with a message,
// where the npm tools are not installed (scripts/setup.sh installs them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/per_curve_test.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "formats/zkey_writer.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::groth16 {
namespace {

namespace fs = std::filesystem;

template <class Curve> using groth16_interop_test = per_curve_test<Curve>;
TYPED_TEST_SUITE(groth16_interop_test, both_curves);

const std::string snarkjs = std::string(CUZK_TEST_DATA_DIR) + "/../../tools/node/node_modules/.bin/snarkjs";

// Runs snarkjs with `args`; its output goes to `log` (shown on failure). Returns the exit code.
int run_snarkjs(const std::string& args, const fs::path& log) {
  const std::string cmd = "\"" + snarkjs + "\" " + args + " > \"" + log.string() + "\" 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const fs::path& p) {
  std::string out;
  if (FILE* f = std::fopen(p.string().c_str(), "rb")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

template <class Curve>
std::string fixture(const std::string& circuit, const std::string& file) {
  std::string dir = std::string(CUZK_TEST_DATA_DIR) + "/snarkjs/" + Curve::snarkjs_name + "/";
  if (!circuit.empty()) dir += circuit + "/";
  return dir + file;
}

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("cuzk_interop_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

const char* const fixture_circuits[] = {"", "poseidon"};

TYPED_TEST(groth16_interop_test, snarkjs_verifies_our_proofs) {
  if (!fs::exists(snarkjs))
    GTEST_SKIP() << "snarkjs not installed at " << snarkjs << " (run scripts/setup.sh)";
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const fs::path dir = scratch(std::string(TypeParam::name) + "_ours_" + circuit);
    auto zk = formats::zkey<TypeParam>::open(fixture<TypeParam>(circuit, "circuit.zkey"));
    ASSERT_TRUE(zk.is_ok()) << zk.error().to_string();
    auto pk = proving_key<TypeParam>::from_zkey(*zk);
    ASSERT_TRUE(pk.is_ok());
    auto wt = formats::wtns::open(fixture<TypeParam>(circuit, "circuit.wtns"));
    ASSERT_TRUE(wt.is_ok());
    auto w = witness_of<TypeParam>(*wt);
    ASSERT_TRUE(w.is_ok());
    auto proof = prove<TypeParam>(pk->view(), *w);
    ASSERT_TRUE(proof.is_ok());
    const auto publics = public_signals_of<TypeParam>(*w, zk->n_public());
    ASSERT_TRUE(formats::write_proof_json<TypeParam>((dir / "proof.json").string(), *proof).is_ok());
    ASSERT_TRUE(formats::write_public_json<TypeParam>((dir / "public.json").string(), publics).is_ok());
    EXPECT_EQ(slurp(dir / "public.json"), slurp(fixture<TypeParam>(circuit, "public.json")));
    const int rc =
        run_snarkjs("groth16 verify \"" + fixture<TypeParam>(circuit, "verification_key.json") + "\" \"" +
                        (dir / "public.json").string() + "\" \"" + (dir / "proof.json").string() + "\"",
                    dir / "log");
    EXPECT_EQ(rc, 0) << slurp(dir / "log");

    // And it says no to a proof of other public signals.
    auto wrong = publics;
    wrong[0] += TypeParam::fr::one();
    ASSERT_TRUE(formats::write_public_json<TypeParam>((dir / "public.json").string(), wrong).is_ok());
    EXPECT_NE(
        run_snarkjs("groth16 verify \"" + fixture<TypeParam>(circuit, "verification_key.json") + "\" \"" +
                        (dir / "public.json").string() + "\" \"" + (dir / "proof.json").string() + "\"",
                    dir / "log"),
        0);
    fs::remove_all(dir);
  }
}

// Our setup -> zkey and vk files -> snarkjs groth16 prove -> snarkjs verify and our verify; and our
// proof with the same key -> snarkjs verify.
TYPED_TEST(groth16_interop_test, snarkjs_proves_with_our_key) {
  if (!fs::exists(snarkjs))
    GTEST_SKIP() << "snarkjs not installed at " << snarkjs << " (run scripts/setup.sh)";
  for (const char* circuit : fixture_circuits) {
    SCOPED_TRACE(circuit);
    const fs::path dir = scratch(std::string(TypeParam::name) + "_setup_" + circuit);
    auto r1 = formats::r1cs::open(fixture<TypeParam>(circuit, "circuit.r1cs"));
    ASSERT_TRUE(r1.is_ok());
    auto cs = constraint_system_of<TypeParam>(*r1);
    ASSERT_TRUE(cs.is_ok());
    auto dk = development_setup<TypeParam>(*cs);
    ASSERT_TRUE(dk.is_ok());
    const std::string zkey_path = (dir / "circuit.zkey").string(), vk_path = (dir / "vk.json").string();
    ASSERT_TRUE(formats::write_zkey<TypeParam>(zkey_path, dk->key).is_ok());
    ASSERT_TRUE(formats::write_verification_key_json<TypeParam>(vk_path, dk->vk).is_ok());

    const std::string wtns = fixture<TypeParam>(circuit, "circuit.wtns");
    const std::string proof_path = (dir / "proof.json").string(),
                      public_path = (dir / "public.json").string();
    ASSERT_EQ(run_snarkjs("groth16 prove \"" + zkey_path + "\" \"" + wtns + "\" \"" + proof_path + "\" \"" +
                              public_path + "\"",
                          dir / "log"),
              0)
        << slurp(dir / "log");
    EXPECT_EQ(run_snarkjs("groth16 verify \"" + vk_path + "\" \"" + public_path + "\" \"" + proof_path + "\"",
                          dir / "log"),
              0)
        << slurp(dir / "log");
    auto their = formats::read_proof_json<TypeParam>(proof_path);
    ASSERT_TRUE(their.is_ok()) << their.error().to_string();
    auto pub = formats::read_public_json<TypeParam>(public_path);
    ASSERT_TRUE(pub.is_ok());
    const status ours_on_theirs = verify<TypeParam>(dk->vk, *pub, *their);
    EXPECT_TRUE(ours_on_theirs.is_ok()) << ours_on_theirs.to_string();

    auto zk = formats::zkey<TypeParam>::open(zkey_path);
    ASSERT_TRUE(zk.is_ok());
    auto pk = proving_key<TypeParam>::from_zkey(*zk);
    ASSERT_TRUE(pk.is_ok());
    auto wt = formats::wtns::open(wtns);
    ASSERT_TRUE(wt.is_ok());
    auto w = witness_of<TypeParam>(*wt);
    auto proof = prove<TypeParam>(pk->view(), *w);
    ASSERT_TRUE(proof.is_ok());
    ASSERT_TRUE(formats::write_proof_json<TypeParam>(proof_path, *proof).is_ok());
    EXPECT_EQ(run_snarkjs("groth16 verify \"" + vk_path + "\" \"" + public_path + "\" \"" + proof_path + "\"",
                          dir / "log"),
              0)
        << slurp(dir / "log");
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace cuzk::groth16
