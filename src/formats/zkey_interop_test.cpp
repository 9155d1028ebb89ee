// SPDX-License-Identifier: MIT OR Apache-2.0
// snarkjs 0.7.6 accepts the zkeys write_zkey makes: a fixture key rewritten with a zero csHash
// and no contributions (what a development setup writes) exports the same verification key as
// the original, and proves the fixture witness into a proof that `snarkjs groth16 verify`
// accepts. Skipped, with a message, where tools/node has not been installed (scripts/setup.sh).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "curves/per_curve_test.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/zkey_writer.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

const std::string snarkjs = CUZK_TEST_DATA_DIR "/../../tools/node/node_modules/.bin/snarkjs";

int run(const std::string& cmd) { return std::system((cmd + " > /dev/null 2>&1").c_str()); }

template <class C> using ZkeyInteropTest = per_curve_test<C>;
TYPED_TEST_SUITE(ZkeyInteropTest, both_curves);

TYPED_TEST(ZkeyInteropTest, SnarkjsAcceptsWrittenKey) {
  using C = TypeParam;
  if (!std::filesystem::exists(snarkjs))
    GTEST_SKIP() << "snarkjs not installed in tools/node (run scripts/setup.sh)";
  const std::string dir = fixture_dir<C>(false);
  const auto k = zkey<C>::open(dir + "/circuit.zkey");
  ASSERT_TRUE(k.is_ok()) << k.error().to_string();
  auto data = key_data_of(*k).value();
  data.cs_hash = {};
  data.n_contributions = 0;
  data.contributions.clear();
  const auto tmp = std::filesystem::path(temp_path("interop"));
  std::filesystem::create_directories(tmp);
  const std::string key = (tmp / "k.zkey").string(), vk = (tmp / "vk.json").string();
  ASSERT_TRUE(write_zkey(key, data).is_ok());

  ASSERT_EQ(run(snarkjs + " zkey export verificationkey " + key + " " + vk), 0);
  EXPECT_EQ(read_text(vk), read_text(dir + "/verification_key.json"));

  const std::string proof = (tmp / "proof.json").string(), pub = (tmp / "public.json").string();
  ASSERT_EQ(run(snarkjs + " groth16 prove " + key + " " + dir + "/circuit.wtns " + proof + " " + pub), 0);
  EXPECT_EQ(read_text(pub), read_text(dir + "/public.json"));
  EXPECT_EQ(run(snarkjs + " groth16 verify " + dir + "/verification_key.json " + pub + " " + proof), 0);
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace cuzk::formats
