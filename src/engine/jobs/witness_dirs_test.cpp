// SPDX-License-Identifier: MIT OR Apache-2.0
// witness_dirs::read: a client's file whole and exact, read in pieces on the pool, whatever its
// size against a piece; refusals as witness_dirs.hpp states them.
#include "engine/jobs/witness_dirs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

std::vector<uint8_t> random_bytes(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

// Sizes around the 8 MiB piece: none, a few bytes, one piece less one, one piece, and several
// pieces and a tail (the last piece shorter than the rest).
TEST(witness_dirs, reads_a_file_whole_and_exact_at_every_size_against_a_piece) {
  const std::string dir = temp_dir("witness-dirs-read");
  auto dirs = witness_dirs::create({dir}).value();
  constexpr std::size_t piece = std::size_t{8} << 20;
  for (const std::size_t n : {std::size_t{0}, std::size_t{3}, piece - 1, piece, 3 * piece + 12345}) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    const std::string path = dir + "/w" + std::to_string(n) + ".wtns";
    const auto bytes = random_bytes(n, n + 1);
    write_file(path, bytes);
    auto got = dirs.read(path, n);
    ASSERT_TRUE(got.is_ok()) << got.error().to_string();
    ASSERT_EQ(got->size(), n);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), got->begin()));
    // With room before the file's bytes (a .wtns's values then aligned): the same bytes, 4 in.
    auto led = dirs.read(path, n, 4);
    ASSERT_TRUE(led.is_ok()) << led.error().to_string();
    ASSERT_EQ(led->size(), n + 4);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), led->begin() + 4));
  }
}

TEST(witness_dirs, refuses_a_file_larger_than_asked_and_one_outside_the_directories) {
  const std::string dir = temp_dir("witness-dirs-refuse");
  fs::create_directories(dir + "/allowed");
  auto dirs = witness_dirs::create({dir + "/allowed"}).value();
  write_file(dir + "/allowed/big.wtns", random_bytes(100, 1));
  auto big = dirs.read(dir + "/allowed/big.wtns", 99);
  ASSERT_FALSE(big.is_ok());
  EXPECT_EQ(big.error().code(), errc::resource_exhausted) << big.error().to_string();
  write_file(dir + "/outside.wtns", random_bytes(10, 2));
  auto outside = dirs.read(dir + "/outside.wtns", 100);
  ASSERT_FALSE(outside.is_ok());
  EXPECT_EQ(outside.error().code(), errc::failed_precondition) << outside.error().to_string();
  auto missing = dirs.read(dir + "/allowed/missing.wtns", 100);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.error().code(), errc::failed_precondition) << missing.error().to_string();
}

}  // namespace
}  // namespace cuzk::engine
