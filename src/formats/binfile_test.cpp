// SPDX-License-Identifier: MIT OR Apache-2.0
// The iden3 container: the section table of every fixture, out-of-order sections, and each
// structural error (magic, version, truncations, duplicates, missing, trailing bytes) with the
// file named in its message; the streaming writer round-trips and leaves nothing behind on failure.
#include "formats/binfile.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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
