// SPDX-License-Identifier: MIT OR Apache-2.0
// read_witness() over a client's file: the values are used where open_witness() read them (the file
// read 4 bytes into its buffer puts them on an 8-byte boundary), with no second buffer, and are the
// very values the copying path gives; a file whose values lie elsewhere (a section before them) is
// copied and reads the same. A spooled file's mapping is copied. A value >= r is named by its index,
// the lowest of several, however the check is split.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "engine/engine_test_util.hpp"
#include "engine/jobs/witness.hpp"
#include "formats/wtns_writer.hpp"

namespace cuzk::engine {
namespace {

using namespace cuzk::engine::test;

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

std::vector<bn254::fr::repr> values_of(const any_witness& w) { return {w.values.begin(), w.values.end()}; }

TEST(witness_read, a_clients_file_is_used_in_place_and_gives_the_copied_values) {
  const std::string dir = temp_dir("witness-read");
  const std::string path = dir + "/w.wtns";
  write_file(path, multiplier_witness(small_wtns, 5));
  const auto key = read_key_summary(small_zkey).value();
  const auto dirs = witness_dirs::create({dir}).value();

  auto copied = read_witness(formats::wtns::open(path).value(), key);
  ASSERT_TRUE(copied.is_ok()) << copied.error().to_string();

  auto file = open_witness(path, witness_origin::client_path, dirs, key);
  ASSERT_TRUE(file.is_ok()) << file.error().to_string();
  const void* values_in_file = file->wtns.values().data();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values_in_file) % 8, 0u);
  auto in_place = read_witness(std::move(file).value(), key);
  ASSERT_TRUE(in_place.is_ok()) << in_place.error().to_string();
  EXPECT_EQ(static_cast<const void*>(in_place->values.data()), values_in_file);
  EXPECT_EQ(in_place->curve, key.curve);
  EXPECT_EQ(values_of(*in_place), values_of(*copied));
  EXPECT_EQ(in_place->values.size(), key.n_vars);

  // The same file as the engine's own spooled copy: a mapping, whose values are copied out.
  auto spooled = open_witness(path, witness_origin::spooled, dirs, key);
  ASSERT_TRUE(spooled.is_ok()) << spooled.error().to_string();
  EXPECT_TRUE(spooled->bytes.empty());
  const void* mapped_values = spooled->wtns.values().data();
  auto from_mapping = read_witness(std::move(spooled).value(), key);
  ASSERT_TRUE(from_mapping.is_ok()) << from_mapping.error().to_string();
  EXPECT_NE(static_cast<const void*>(from_mapping->values.data()), mapped_values);
  EXPECT_EQ(values_of(*from_mapping), values_of(*copied));
}

// Section 1, a section of 3 bytes the reader skips, then the values: they start at byte 91 of the
// file, 95 of the buffer, not 8-byte aligned, so they are copied.
TEST(witness_read, values_that_do_not_lie_aligned_are_copied_and_read_the_same) {
  const std::string dir = temp_dir("witness-read-odd");
  const std::string path = dir + "/w.wtns";
  const std::vector<uint8_t> plain = multiplier_witness(small_wtns, 2);
  ASSERT_GT(plain.size(), 76u);
  std::vector<uint8_t> odd(plain.begin(), plain.begin() + 64);  // magic, version, count, section 1
  odd[8] = 3;                                                     // three sections
  const uint8_t extra[15] = {9, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb, 0xcc};
  odd.insert(odd.end(), extra, extra + 15);
  odd.insert(odd.end(), plain.begin() + 64, plain.end());
  write_file(path, odd);
  write_file(dir + "/plain.wtns", plain);
  const auto key = read_key_summary(small_zkey).value();
  const auto dirs = witness_dirs::create({dir}).value();

  auto file = open_witness(path, witness_origin::client_path, dirs, key);
  ASSERT_TRUE(file.is_ok()) << file.error().to_string();
  const void* values_in_file = file->wtns.values().data();
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(values_in_file) % 8, 0u);
  auto got = read_witness(std::move(file).value(), key);
  ASSERT_TRUE(got.is_ok()) << got.error().to_string();
  EXPECT_NE(static_cast<const void*>(got->values.data()), values_in_file);
  auto want = read_witness(open_witness(dir + "/plain.wtns", witness_origin::client_path, dirs, key).value(), key);
  ASSERT_TRUE(want.is_ok()) << want.error().to_string();
  EXPECT_EQ(values_of(*got), values_of(*want));
}

// A value >= r in a file read for proving: refused with its index, in place or not.
TEST(witness_read, a_value_not_below_r_is_refused_before_the_values_are_taken) {
  const std::string dir = temp_dir("witness-read-bad");
  const std::string path = dir + "/w.wtns";
  std::vector<uint8_t> bytes = multiplier_witness(small_wtns, 0);
  std::memset(bytes.data() + bytes.size() - 32, 0xff, 32);  // the last value: 2^256 - 1
  write_file(path, bytes);
  const auto key = read_key_summary(small_zkey).value();
  const auto dirs = witness_dirs::create({dir}).value();
  auto got = read_witness(open_witness(path, witness_origin::client_path, dirs, key).value(), key);
  ASSERT_FALSE(got.is_ok());
  EXPECT_EQ(got.error().code(), errc::out_of_range);
  EXPECT_NE(got.error().message().find("w[8]"), std::string::npos) << got.error().to_string();
}

// A witness of 2^18 values (four of the check's chunks) with two values >= r, the lower one in the
// second chunk and the higher in the fourth: at submit (inline and by path) and at run, the error
// names the lower, whichever thread saw which first.
TEST(witness_read, the_first_value_not_below_r_is_named_across_the_checks_threads) {
  constexpr std::size_t n = std::size_t{1} << 18;
  std::vector<uint8_t> values(32 * n, 0);
  values[0] = 1;
  for (std::size_t i = 1; i < n; ++i) values[32 * i] = static_cast<uint8_t>(i % 2);
  for (const std::size_t bad : {std::size_t{70001}, std::size_t{200003}}) std::memset(&values[32 * bad], 0xff, 32);
  std::vector<uint8_t> prime(32);
  for (std::size_t i = 0; i < 32; ++i) prime[i] = static_cast<uint8_t>(bn254::fr::modulus.limb[i / 8] >> (8 * (i % 8)));
  const auto bytes = formats::encode_wtns(prime, values);
  ASSERT_TRUE(bytes.is_ok()) << bytes.error().to_string();
  key_summary key;
  key.curve = formats::curve_id::bn254;
  key.n_vars = static_cast<uint32_t>(n);

  const status inline_check = check_inline_witness(*bytes, key, "partition 0");
  EXPECT_EQ(inline_check.code(), errc::out_of_range);
  EXPECT_NE(inline_check.message().find("w[70001]"), std::string::npos) << inline_check.to_string();

  const std::string dir = temp_dir("witness-read-big");
  write_file(dir + "/w.wtns", *bytes);
  const auto dirs = witness_dirs::create({dir}).value();
  auto file = open_witness(dir + "/w.wtns", witness_origin::client_path, dirs, key);
  ASSERT_TRUE(file.is_ok()) << file.error().to_string();
  const status at_submit = check_witness(file->wtns, key, "partition 0");
  EXPECT_NE(at_submit.message().find("w[70001]"), std::string::npos) << at_submit.to_string();
  auto at_run = read_witness(std::move(file).value(), key);
  ASSERT_FALSE(at_run.is_ok());
  EXPECT_NE(at_run.error().message().find("w[70001]"), std::string::npos) << at_run.error().to_string();
}

}  // namespace
}  // namespace cuzk::engine
