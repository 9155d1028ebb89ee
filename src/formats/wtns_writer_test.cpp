// SPDX-License-Identifier: MIT OR Apache-2.0
// The .wtns encoder (wtns_writer.hpp) against snarkjs: the values and prime of every committed
// snarkjs witness, encoded again, give the file's bytes exactly; and sizes that do not divide are
// refused.
#include "formats/wtns_writer.hpp"

#include <gtest/gtest.h>

#include "curves/per_curve_test.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/wtns.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

template <class C> using WtnsWriterTest = per_curve_test<C>;
TYPED_TEST_SUITE(WtnsWriterTest, both_curves);

TYPED_TEST(WtnsWriterTest, SnarkjsWitnessesEncodeToTheirOwnBytes) {
  for (const char* sub : {"", "/poseidon", "/wide", "/poseidon_chain"}) {
    const std::string path = snarkjs_dir + "/" + TypeParam::snarkjs_name + sub + "/circuit.wtns";
    auto w = wtns::open(path);
    ASSERT_TRUE(w) << w.error().message();
    uint8_t prime[32];
    w->header().prime.to_bytes_le(prime);
    const auto values = w->values();
    auto bytes = encode_wtns({prime, w->header().n8},
                             {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(fr_bytes)});
    ASSERT_TRUE(bytes) << bytes.error().message();
    EXPECT_EQ(*bytes, read_bytes(path)) << path;
  }
}

TEST(WtnsWriter, SizesThatDoNotDivideAreRefused) {
  const std::vector<uint8_t> prime(32, 0xff), values(40, 0);
  auto r = encode_wtns(prime, values);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
  EXPECT_EQ(r.error().message(), "a witness of 40 bytes is not a whole number of values of 32 bytes");
  EXPECT_FALSE(encode_wtns({}, {}));
}

}  // namespace
}  // namespace cuzk::formats
