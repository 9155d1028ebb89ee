// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 container: the section table of every fixture, out-of-order sections, and each
// structural error (magic, version, truncations, duplicates, missing, trailing bytes) with the
// file named in its message; the streaming writer round-trips and leaves nothing behind on failure.
#include "formats/binfile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "formats/binfile_writer.hpp"
#include "formats/formats_test_util.hpp"

namespace cuzk::formats {
namespace {

using namespace testing;

std::vector<uint8_t> small_file() {
  return join_sections("test", 1, {{2, {1, 2, 3}}, {1, {}}, {7, std::vector<uint8_t>(100, 0xab)}});
}

TEST(Binfile, FixtureTablesAreOutOfOrder) {
  // circom writes r1cs sections 2, 1, 3.
  const auto f = binfile::open(snarkjs_dir + "/bn128/circuit.r1cs", "r1cs", 1);
  ASSERT_TRUE(f.is_ok()) << f.error().to_string();
  ASSERT_EQ(f->sections().size(), 3u);
  EXPECT_EQ(f->sections()[0].type, 2u);
  EXPECT_EQ(f->sections()[1].type, 1u);
  EXPECT_EQ(f->sections()[0].offset, 24u);
  EXPECT_EQ(f->sections()[0].size, 480u);
  const auto s1 = f->section(1);
  ASSERT_TRUE(s1.is_ok());
  EXPECT_EQ(s1->size(), 64u);
  EXPECT_EQ(s1->data(), f->bytes().data() + 516);  // in place, no copy
}

TEST(Binfile, FromBytesAndLookup) {
  const auto f = binfile::from_bytes(small_file(), "mem.bin", "test", 1);
  ASSERT_TRUE(f.is_ok()) << f.error().to_string();
  EXPECT_EQ(f->version(), 1u);
  EXPECT_EQ(f->count(7), 1u);
  EXPECT_FALSE(f->has(3));
  EXPECT_EQ(f->section(2)->size(), 3u);
  EXPECT_EQ((*f->section(2))[2], 3);
  EXPECT_TRUE(f->section(1)->empty());
  EXPECT_FORMAT_ERROR(f->section(3, "labels"), errc::format_error, "mem.bin", "section 3 (labels)",
                      "missing");
}

TEST(Binfile, WrongMagic) {
  auto b = small_file();
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "x.zkey", "zkey", 1), errc::format_error, "x.zkey",
                      "expected the magic 'zkey'", "found 'test'");
  b[0] = 0;
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "x.zkey", "test", 1), errc::format_error, "found '\\x00est'");
}

TEST(Binfile, UnsupportedVersion) {
  const auto b = join_sections("wtns", 3, {});
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "w.wtns", "wtns", 2), errc::unsupported, "w.wtns", "version 3",
                      "1 to 2");
  EXPECT_FORMAT_ERROR(binfile::from_bytes(join_sections("wtns", 0, {}), "w.wtns", "wtns", 2),
                      errc::unsupported, "version 0");
}

TEST(Binfile, TruncatedHeader) {
  for (std::size_t n : {0u, 3u, 4u, 11u}) {
    auto b = small_file();
    b.resize(n);
    EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "t.bin", "test", 1), errc::format_error, "t.bin", "truncated");
  }
  // A section header cut in half.
  auto b = small_file();
  b.resize(12 + 12 + 3 + 6);
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "t.bin", "test", 1), errc::format_error, "t.bin", "truncated");
}

TEST(Binfile, TruncatedSection) {
  auto b = small_file();
  b.resize(b.size() - 1);
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "t.bin", "test", 1), errc::format_error, "t.bin", "section 7",
                      "declares 100 bytes", "only 99 left");
}

TEST(Binfile, SectionCountTooLarge) {
  auto b = small_file();
  b[8] = 0xff;
  b[9] = 0xff;
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "t.bin", "test", 1), errc::format_error, "t.bin",
                      "announces 65535 sections");
}

TEST(Binfile, TrailingBytes) {
  auto b = small_file();
  b.push_back(0);
  EXPECT_FORMAT_ERROR(binfile::from_bytes(b, "t.bin", "test", 1), errc::format_error, "t.bin",
                      "1 unexpected bytes");
}

TEST(Binfile, DuplicatedSection) {
  const auto b = join_sections("test", 1, {{1, {1}}, {2, {2}}, {1, {3}}});
  const auto f = binfile::from_bytes(b, "d.bin", "test", 1);
  ASSERT_TRUE(f.is_ok());  // the container allows it ...
  EXPECT_EQ(f->count(1), 2u);
  EXPECT_TRUE(f->section(2).is_ok());
  // ... a reader expecting one section does not.
  EXPECT_FORMAT_ERROR(f->section(1, "header"), errc::format_error, "d.bin", "section 1 (header)",
                      "duplicated");
}

TEST(Binfile, MissingFile) {
  EXPECT_FORMAT_ERROR(binfile::open("/nonexistent/x.zkey", "zkey", 1), errc::io_error, "/nonexistent/x.zkey");
}

// Every section of `copy` that is not padding, in order, against the file's: same type, same bytes,
// and its payload 8-byte aligned in the copy. Every padding is needed: without it, the next
// section's payload would begin where the padding's begins, and that is misaligned.
void expect_same_sections_aligned(const binfile& copy, const std::vector<raw_section>& want) {
  std::size_t k = 0, pads = 0;
  bool after_pad = false;
  for (const auto& e : copy.sections()) {
    if (e.type == binfile::padding_section) {
      ++pads;
      EXPECT_LT(e.size, 8u);
      EXPECT_NE(e.offset % 8, 0u) << "a padding no section needed, at " << e.offset;
      EXPECT_FALSE(after_pad) << "two paddings in a row, at " << e.offset;
      after_pad = true;
      continue;
    }
    after_pad = false;
    ASSERT_LT(k, want.size());
    EXPECT_EQ(e.type, want[k].type) << "section " << k;
    EXPECT_EQ(e.offset % 8, 0u) << "section " << k << " at " << e.offset;
    const auto bytes = copy.bytes().subspan(e.offset, e.size);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), want[k].payload.begin(), want[k].payload.end()))
        << "section " << k;
    ++k;
  }
  EXPECT_EQ(k, want.size());
  EXPECT_LE(pads, want.size());
}

TEST(BinfileAlignedCopy, EveryPayloadStartsAtAMultipleOf8AndReadsAsTheFile) {
  const std::string dir = temp_path("aligned-copy");
  std::filesystem::create_directories(dir);
  std::mt19937_64 rng(0x5eed);
  for (int round = 0; round < 40; ++round) {
    // Sizes of every residue mod 8, empty sections, repeated types, any order.
    std::vector<raw_section> secs;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      raw_section s{static_cast<uint32_t>(1 + rng() % 6), std::vector<uint8_t>(rng() % 70)};
      for (auto& b : s.payload) b = static_cast<uint8_t>(rng());
      secs.push_back(std::move(s));
    }
    const std::string path = dir + "/f" + std::to_string(round) + ".zkey";
    write_bytes(path, join_sections("zkey", 1, secs));
    auto copy = binfile::open_aligned_copy(path, dir, "zkey", 1);
    ASSERT_TRUE(copy.is_ok()) << copy.error().to_string();
    EXPECT_EQ(copy->name(), path);
    expect_same_sections_aligned(*copy, secs);
    for (uint32_t t = 1; t <= 6; ++t) {
      auto file = binfile::open(path, "zkey", 1);
      ASSERT_TRUE(file.is_ok());
      EXPECT_EQ(copy->count(t), file->count(t));
    }
  }
  // A file whose payloads are all aligned is copied as it is, byte for byte (a reflink where the
  // file system can make one): 12 + 12 + 4, then 12 + 4, then 12 + 0.
  {
    const auto aligned = join_sections("zkey", 1, {{1, {1, 2, 3, 4}}, {2, {5, 6, 7, 8}}, {3, {}}});
    const std::string path = dir + "/aligned.zkey";
    write_bytes(path, aligned);
    auto copy = binfile::open_aligned_copy(path, dir, "zkey", 1);
    ASSERT_TRUE(copy.is_ok()) << copy.error().to_string();
    EXPECT_TRUE(std::equal(copy->bytes().begin(), copy->bytes().end(), aligned.begin(), aligned.end()));
  }
  // A real key: its point sections alternate between aligned and not in the file.
  const std::string zkey = snarkjs_dir + "/bn128/circuit.zkey";
  auto file = binfile::open(zkey, "zkey", 1);
  ASSERT_TRUE(file.is_ok());
  bool misaligned = false;
  for (const auto& e : file->sections()) misaligned = misaligned || e.offset % 8 != 0;
  EXPECT_TRUE(misaligned) << "the fixture no longer tests the padding";
  auto copy = binfile::open_aligned_copy(zkey, dir, "zkey", 1);
  ASSERT_TRUE(copy.is_ok()) << copy.error().to_string();
  expect_same_sections_aligned(*copy, split_sections(read_bytes(zkey)));
  std::filesystem::remove_all(dir);
}

TEST(BinfileAlignedCopy, AMalformedFileIsCopiedAsItIsAndReportedAsTheFileWouldBe) {
  const std::string dir = temp_path("aligned-copy-bad");
  std::filesystem::create_directories(dir);
  const auto good = join_sections("zkey", 1, {{1, {1, 2, 3}}, {2, std::vector<uint8_t>(21, 7)}, {3, {9}}});
  std::vector<std::vector<uint8_t>> bad;
  bad.emplace_back(good.begin(), good.begin() + 10);   // a short header
  bad.emplace_back(good.begin(), good.end() - 1);      // the last payload cut
  bad.emplace_back(good.begin(), good.begin() + 20);   // a section header cut
  bad.push_back(good);
  bad.back().push_back(0);                             // a byte after the last section
  bad.push_back(good);
  bad.back()[8] = 200;                                 // a count the file cannot hold
  bad.push_back(good);
  bad.back()[0] = 'x';                                 // the wrong magic (the layout does not look)
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const std::string path = dir + "/bad" + std::to_string(i) + ".zkey";
    write_bytes(path, bad[i]);
    auto file = binfile::open(path, "zkey", 1);
    auto copy = binfile::open_aligned_copy(path, dir, "zkey", 1);
    ASSERT_FALSE(file.is_ok()) << i;
    ASSERT_FALSE(copy.is_ok()) << i;
    EXPECT_EQ(copy.error().to_string(), file.error().to_string()) << i;
  }
  auto missing = binfile::open_aligned_copy(dir + "/absent.zkey", dir, "zkey", 1);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.error().to_string().find("absent.zkey"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(BinfileWriter, RoundTripAndStreaming) {
  const std::string path = temp_path("w.bin");
  {
    auto w = binfile_writer::create(path, "test", 1);
    ASSERT_TRUE(w.is_ok()) << w.error().to_string();
    const std::vector<uint8_t> a{1, 2, 3};
    ASSERT_TRUE(w->write_section(2, a).is_ok());
    ASSERT_TRUE(w->begin_section(1).is_ok());
    ASSERT_TRUE(w->end_section().is_ok());
    ASSERT_TRUE(w->begin_section(7).is_ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w->write(std::vector<uint8_t>(10, 0xab)).is_ok());
    ASSERT_TRUE(w->end_section().is_ok());
    EXPECT_FALSE(std::filesystem::exists(path));  // nothing visible before commit
    ASSERT_TRUE(w->commit().is_ok());
  }
  EXPECT_EQ(read_bytes(path), small_file());
  std::filesystem::remove(path);
}

TEST(BinfileWriter, DroppedWriterLeavesNothing) {
  const auto dir = std::filesystem::path(temp_path("dir"));
  std::filesystem::create_directory(dir);
  {
    auto w = binfile_writer::create((dir / "k.zkey").string(), "zkey", 1);
    ASSERT_TRUE(w.is_ok());
    ASSERT_TRUE(w->write_section(1, std::vector<uint8_t>{1, 0, 0, 0}).is_ok());
    EXPECT_FORMAT_ERROR(w->end_section(), errc::invalid_argument, "k.zkey");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuzk::formats
