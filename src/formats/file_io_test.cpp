// SPDX-License-Identifier: MIT OR Apache-2.0
// file_io.hpp against the file system: a private copy survives its source being truncated or
// overwritten (a mapping of the source would die of SIGBUS on the first page past the new end), and
// what is not a regular file is refused before it is read.
#include "formats/file_io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace cuzk::formats {
namespace {

std::string temp_dir(const std::string& name) {
  auto d =
      std::filesystem::temp_directory_path() / ("cuzk-file-io-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Several pages, so that a truncation leaves whole pages past the end.
std::vector<uint8_t> pattern(std::size_t n) {
  std::vector<uint8_t> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 131 + 7);
  return b;
}

TEST(mapped_file, a_private_copy_keeps_its_bytes_when_the_source_is_truncated_or_overwritten) {
  const std::string dir = temp_dir("copy");
  const std::string src = dir + "/key.bin";
  const auto want = pattern(1 << 20);
  write_bytes(src, want);
  auto m = mapped_file::open_private_copy(src, dir);
  ASSERT_TRUE(m.is_ok()) << m.error().to_string();
  ASSERT_EQ(::truncate(src.c_str(), 4096), 0);
  // Every page read: with a mapping of the source this line is a SIGBUS.
  EXPECT_TRUE(std::equal(m->bytes().begin(), m->bytes().end(), want.begin(), want.end()));
  write_bytes(src, std::vector<uint8_t>(want.size(), 0));
  EXPECT_TRUE(std::equal(m->bytes().begin(), m->bytes().end(), want.begin(), want.end()));
  // The copy has no name in the directory: nothing is left behind, nothing else can reach it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

TEST(mapped_file, a_laid_out_private_copy_holds_its_pieces_in_order) {
  const std::string dir = temp_dir("layout");
  const std::string src = dir + "/key.bin";
  const auto source = pattern(3 << 20);
  write_bytes(src, source);
  // Pieces of the source out of order, bytes of the layout's own between them, an empty range, a
  // piece that crosses the 1 MiB steps of the plain copy.
  const mapped_file::copy_layout layout = [](const mapped_file::source_reader& read, uint64_t size)
      -> result<std::vector<mapped_file::copy_piece>> {
    EXPECT_EQ(size, uint64_t{3} << 20);
    auto head = read(size - 5, 100);  // a read past the end is short, not an error
    if (!head) return head.error();
    EXPECT_EQ(head->size(), 5u);
    return std::vector<mapped_file::copy_piece>{
        {100, 4096, {}}, {0, 0, "abc"}, {0, 7, {}}, {5, 0, {}}, {999'999, 1'500'000, {}}, {0, 0, *head}};
  };
  auto m = mapped_file::open_private_copy(src, dir, layout);
  ASSERT_TRUE(m.is_ok()) << m.error().to_string();
  std::vector<uint8_t> want;
  const auto append = [&](std::size_t from, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) want.push_back(source[from + i]);
  };
  append(100, 4096);
  for (const char c : {'a', 'b', 'c'}) want.push_back(static_cast<uint8_t>(c));
  append(0, 7);
  append(999'999, 1'500'000);
  append(source.size() - 5, 5);
  EXPECT_TRUE(std::equal(m->bytes().begin(), m->bytes().end(), want.begin(), want.end()));
  // A layout's error stops the copy; a piece past the source's end is the layout's bug, said so.
  auto refused = mapped_file::open_private_copy(src, dir, [](const mapped_file::source_reader&, uint64_t)
                                                              -> result<std::vector<mapped_file::copy_piece>> {
    return status(errc::format_error, "the layout says no");
  });
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.error().message(), "the layout says no");
  auto past = mapped_file::open_private_copy(src, dir, [](const mapped_file::source_reader&, uint64_t size)
                                                           -> result<std::vector<mapped_file::copy_piece>> {
    return std::vector<mapped_file::copy_piece>{{size - 10, 11, {}}};
  });
  ASSERT_FALSE(past.is_ok());
  EXPECT_EQ(past.error().code(), errc::internal);
  EXPECT_NE(past.error().to_string().find("past the file's 3145728 bytes"), std::string::npos)
      << past.error().to_string();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

TEST(mapped_file, a_private_copy_names_the_file_when_it_cannot_be_made) {
  const std::string dir = temp_dir("copy-missing");
  auto m = mapped_file::open_private_copy(dir + "/absent.zkey", dir);
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.error().to_string().find("absent.zkey"), std::string::npos) << m.error().to_string();
  write_bytes(dir + "/k", pattern(100));
  auto n = mapped_file::open_private_copy(dir + "/k", dir + "/no-such-dir");
  ASSERT_FALSE(n.is_ok());
  EXPECT_NE(n.error().to_string().find("no-such-dir"), std::string::npos) << n.error().to_string();
  std::filesystem::remove_all(dir);
}

// docs/HARDENING.md, finding 6: a FIFO blocked every reader forever (the open itself, with no
// writer). alarm() turns such a hang into a failed test instead of a stuck one.
TEST(file_io, readers_refuse_a_fifo_and_a_directory_without_blocking) {
  const std::string dir = temp_dir("fifo");
  const std::string fifo = dir + "/f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::alarm(20);
  auto expect_refused = [](const status& s, const std::string& path, const char* kind) {
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.to_string().find(path + ": not a regular file (" + kind + ")"), std::string::npos)
        << s.to_string();
  };
  for (const auto& [path, kind] :
       {std::pair<std::string, const char*>{fifo, "a FIFO"}, {dir, "a directory"}}) {
    auto m = mapped_file::open(path);
    expect_refused(m ? status::ok() : m.error(), path, kind);
    auto t = read_text_file(path);
    expect_refused(t ? status::ok() : t.error(), path, kind);
    auto h = read_file_head(path, 4);
    expect_refused(h ? status::ok() : h.error(), path, kind);
    auto c = mapped_file::open_private_copy(path, dir);
    expect_refused(c ? status::ok() : c.error(), path, kind);
  }
  ::alarm(0);
  std::filesystem::remove_all(dir);
}

TEST(file_io, read_file_head_reads_at_most_n_bytes) {
  const std::string dir = temp_dir("head");
  write_bytes(dir + "/x", pattern(10));
  EXPECT_EQ(read_file_head(dir + "/x", 4).value().size(), 4u);
  EXPECT_EQ(read_file_head(dir + "/x", 40).value().size(), 10u);
  EXPECT_EQ(read_text_file(dir + "/x").value().size(), 10u);
  std::filesystem::remove_all(dir);
}

TEST(file_io, an_atomic_write_in_parts_is_the_parts_in_order) {
  const std::string d = temp_dir("parts");
  const std::string path = d + "/out";
  const std::vector<uint8_t> big = pattern(3 * 4096 + 5);
  const std::string_view parts[] = {"head", "", {reinterpret_cast<const char*>(big.data()), big.size()}, "tail"};
  ASSERT_TRUE(write_file_atomically(path, parts).is_ok());
  std::string want = "head";
  want.append(reinterpret_cast<const char*>(big.data()), big.size());
  want += "tail";
  auto got = read_text_file(path, want.size() + 1, "test file");
  ASSERT_TRUE(got.is_ok()) << got.error().message();
  EXPECT_EQ(*got, want);
  // No parts: an empty file, in place of the old one.
  ASSERT_TRUE(write_file_atomically(path, std::span<const std::string_view>{}, flush_to_disk::no).is_ok());
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d), {}), 1);  // no temporary left
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace cuzk::formats
