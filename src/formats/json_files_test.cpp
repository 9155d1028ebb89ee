// SPDX-License-Identifier: MIT OR Apache-2.0
// proof.json, public.json and verification_key.json: the snarkjs fixtures of both curves read and
// write back byte for byte, and malformed files (wrong shapes, values out of range, wrong curve or
// protocol) are refused with the file and the field in the message.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "curves/per_curve_test.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/verification_key.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;
using snarkjs_json::ojson;

template <class C>
class JsonFilesTest : public ::testing::Test {
 protected:
  // The fixture's text with `edit` applied to its parsed form, in snarkjs's layout.
  static std::string edited(const std::string& path, const std::function<void(ojson&)>& edit) {
    auto j = ojson::parse(read_text(path));
    edit(j);
    return snarkjs_json::dump(j);
  }
  static std::string proof_path() { return fixture_dir<C>(false) + "/proof.json"; }
  static std::string vk_path() { return fixture_dir<C>(false) + "/verification_key.json"; }
};
TYPED_TEST_SUITE(JsonFilesTest, both_curves);

TYPED_TEST(JsonFilesTest, FixturesRoundTripByteForByte) {
  using C = TypeParam;
  for (const bool p : {false, true}) {
    const std::string dir = fixture_dir<C>(p);
    const auto proof = read_proof_json<C>(dir + "/proof.json");
    ASSERT_TRUE(proof.is_ok()) << proof.error().to_string();
    EXPECT_EQ(proof_to_json(*proof), read_text(dir + "/proof.json"));

    const auto pub = read_public_json<C>(dir + "/public.json");
    ASSERT_TRUE(pub.is_ok()) << pub.error().to_string();
    EXPECT_EQ(pub->size(), 3u);
    EXPECT_EQ(public_to_json<C>(*pub), read_text(dir + "/public.json"));

    const auto vk = read_verification_key_json<C>(dir + "/verification_key.json");
    ASSERT_TRUE(vk.is_ok()) << vk.error().to_string();
    EXPECT_EQ(vk->n_public(), 3u);
    EXPECT_TRUE(vk->alphabeta_12.has_value());
    EXPECT_EQ(verification_key_to_json(*vk), read_text(dir + "/verification_key.json"));
    EXPECT_EQ(detect_json_curve(dir + "/verification_key.json").value(), curve_id_of<C>);
    EXPECT_EQ(detect_json_curve(dir + "/proof.json").value(), curve_id_of<C>);
  }
  const auto pub = read_public_json<C>(fixture_dir<C>(false) + "/public.json");
  EXPECT_EQ((*pub)[0], C::fr::from_uint(172));
}

TYPED_TEST(JsonFilesTest, WritersAreAtomicFiles) {
  using C = TypeParam;
  const auto proof = read_proof_json<C>(this->proof_path()).value();
  const std::string out = temp_path("proof.json");
  ASSERT_TRUE(write_proof_json(out, proof).is_ok());
  EXPECT_EQ(read_text(out), read_text(this->proof_path()));
  const std::vector<typename C::fr> pub{C::fr::from_uint(172), C::fr::from_uint(5), C::fr::from_uint(7)};
  ASSERT_TRUE(write_public_json<C>(out, pub).is_ok());  // replaces the file
  EXPECT_EQ(read_text(out), read_text(fixture_dir<C>(false) + "/public.json"));
  std::filesystem::remove(out);
  EXPECT_FORMAT_ERROR(write_proof_json("/nonexistent/dir/proof.json", proof), errc::io_error,
                      "/nonexistent/dir/proof.json");
}

TYPED_TEST(JsonFilesTest, ProofRejections) {
  using C = TypeParam;
  const auto bad = [&](const std::function<void(ojson&)>& edit) {
    return proof_from_json<C>(this->edited(this->proof_path(), edit), "proof.json");
  };
  const std::string q = C::fq::modulus.to_decimal();
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["pi_b"][1][0] = q; }), errc::out_of_range, "proof.json", "pi_b",
                      "y.c0", "not below the modulus q");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["pi_a"][1] = "5"; }), errc::not_on_curve, "proof.json", "pi_a");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) {
                        j["pi_c"] = ojson::array({"1", "2", "3", "4"});
                      }),
                      errc::parse_error, "proof.json", "pi_c");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["pi_a"][0] = 12; }), errc::parse_error, "proof.json", "pi_a",
                      "decimal string");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["pi_b"][0] = "7"; }), errc::parse_error, "proof.json", "pi_b");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j.erase("pi_c"); }), errc::parse_error, "proof.json", "pi_c",
                      "missing");
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["protocol"] = "plonk"; }), errc::parse_error, "proof.json",
                      "protocol", "\"groth16\"");
  const char* other = std::is_same_v<C, bn254> ? "bls12381" : "bn128";
  EXPECT_FORMAT_ERROR(bad([&](ojson& j) { j["curve"] = other; }), errc::parse_error, "proof.json", "curve",
                      other);
  // rapidsnark omits "curve".
  EXPECT_TRUE(bad([&](ojson& j) { j.erase("curve"); }).is_ok());
  EXPECT_FORMAT_ERROR(proof_from_json<C>("[1, 2]", "proof.json"), errc::parse_error, "proof.json", "object");
  EXPECT_FORMAT_ERROR(proof_from_json<C>("{\"pi_a\": ", "proof.json"), errc::parse_error, "proof.json",
                      "not valid JSON");
  EXPECT_FORMAT_ERROR(read_proof_json<C>("/nonexistent/proof.json"), errc::io_error,
                      "/nonexistent/proof.json");
}

TYPED_TEST(JsonFilesTest, PublicRejections) {
  using C = TypeParam;
  const std::string r = C::fr::modulus.to_decimal();
  EXPECT_FORMAT_ERROR(public_from_json<C>("[\"1\", \"" + r + "\"]", "public.json"), errc::out_of_range,
                      "public.json", "[1]", "not below r");
  EXPECT_FORMAT_ERROR(public_from_json<C>("[\"1\", 2]", "public.json"), errc::parse_error, "public.json",
                      "[1]", "decimal string");
  EXPECT_FORMAT_ERROR(public_from_json<C>("[\"-1\"]", "public.json"), errc::parse_error, "public.json",
                      "[0]");
  EXPECT_FORMAT_ERROR(public_from_json<C>("[\"0x10\"]", "public.json"), errc::parse_error, "[0]");
  EXPECT_FORMAT_ERROR(public_from_json<C>("{\"a\": \"1\"}", "public.json"), errc::parse_error, "public.json",
                      "array");
  const auto empty = public_from_json<C>("[]", "public.json");
  ASSERT_TRUE(empty.is_ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(public_to_json<C>({}), "[]");
}

TYPED_TEST(JsonFilesTest, VerificationKeyRejections) {
  using C = TypeParam;
  const auto bad = [&](const std::function<void(ojson&)>& edit) {
    return verification_key_from_json<C>(this->edited(this->vk_path(), edit), "verification_key.json");
  };
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j["nPublic"] = 2; }), errc::parse_error, "verification_key.json",
                      "nPublic", "expected 3");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j["nPublic"] = "3"; }), errc::parse_error, "nPublic");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j["IC"][2][0] = "1"; }), errc::not_on_curve, "verification_key.json",
                      "IC[2]");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j["IC"] = ojson::array(); }), errc::parse_error, "IC", "non-empty");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j.erase("vk_gamma_2"); }), errc::parse_error, "vk_gamma_2",
                      "missing");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) {
                        j["vk_delta_2"][2] = ojson::array({"2", "0"});
                      }),
                      errc::parse_error, "vk_delta_2", "z");
  EXPECT_FORMAT_ERROR(bad([](ojson& j) { j.erase("curve"); }), errc::parse_error, "verification_key.json",
                      "curve", "missing");
  // No alphabeta: accepted, and written without it.
  const auto vk = bad([](ojson& j) { j.erase("vk_alphabeta_12"); });
  ASSERT_TRUE(vk.is_ok());
  EXPECT_EQ(verification_key_to_json(*vk),
            this->edited(this->vk_path(), [](ojson& j) { j.erase("vk_alphabeta_12"); }));
}

// docs/HARDENING.md, finding 3: 70,000 nested arrays overflowed the stack. Every reader refuses
// nesting past max_depth with the file named, counted before parsing; brackets inside strings do
// not count.
TEST(snarkjs_json, refuses_deep_nesting_before_parsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string just_over =
      std::string(snarkjs_json::max_depth + 1, '[') + std::string(snarkjs_json::max_depth + 1, ']');
  for (const auto& text : {deep, just_over}) {
    auto p = proof_from_json<bn254>(text, "deep.json");
    ASSERT_FALSE(p.is_ok());
    EXPECT_NE(p.error().message().find("deep.json: not valid snarkjs JSON: nesting deeper than 32 levels"),
              std::string::npos)
        << p.error().to_string();
    EXPECT_FALSE(public_from_json<bn254>(text, "deep.json").is_ok());
    EXPECT_FALSE(verification_key_from_json<bls12_381>(text, "deep.json").is_ok());
  }
  const std::string at_limit =
      std::string(snarkjs_json::max_depth, '[') + std::string(snarkjs_json::max_depth, ']');
  EXPECT_TRUE(snarkjs_json::parse(at_limit, "ok.json").is_ok());
  const std::string in_string = "{\"a\": \"" + std::string(1000, '[') + "\\\"{\"}";
  auto j = snarkjs_json::parse(in_string, "s.json");
  EXPECT_TRUE(j.is_ok()) << j.error().to_string();
}

// docs/HARDENING.md, finding 14: a 2 GiB proof.json was read whole (4.2 GB resident) before it
// failed at column 1. Every reader, and the curve detection `cuzk verify` starts with, checks the
// size first: the files are sparse, so a refusal costs nothing and a regression reads (and fails)
// visibly.
TEST(snarkjs_json, refuses_files_over_the_size_limit_before_reading_them) {
  const auto sparse = [](const std::string& name, uint64_t size) {
    const std::string path = temp_path(name);
    std::ofstream{path};
    std::filesystem::resize_file(path, size);
    return path;
  };
  const auto error_of = [](const auto& r) { return r.is_ok() ? status::ok() : r.error(); };
  const uint64_t limit = snarkjs_json::max_file_bytes;
  ASSERT_EQ(limit, uint64_t{64} << 20);
  for (const uint64_t size : {uint64_t{2} << 30, limit + 1}) {
    const std::string path = sparse("huge.json", size);
    const std::string want = path + ": file size: expected at most 67108864 bytes (a snarkjs JSON file";
    const std::string found = "found " + std::to_string(size);
    for (const status& e : {error_of(read_proof_json<bn254>(path)), error_of(read_public_json<bls12_381>(path)),
                            error_of(read_verification_key_json<bn254>(path)), error_of(detect_json_curve(path))}) {
      EXPECT_EQ(e.code(), errc::resource_exhausted) << e.to_string();
      EXPECT_NE(e.message().find(want), std::string::npos) << e.to_string();
      EXPECT_NE(e.message().find(found), std::string::npos) << e.to_string();
    }
    std::filesystem::remove(path);
  }
  // At the limit the file is read, and fails as the zero bytes it holds.
  const std::string at = sparse("at_limit.json", limit);
  auto a = read_proof_json<bn254>(at);
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.error().code(), errc::parse_error) << a.error().to_string();
  std::filesystem::remove(at);
}

}  // namespace
}  // namespace cuzk::formats
