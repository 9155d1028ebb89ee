// file_io.hpp against the file system: a private copy survives its source being truncated or
// overwritten (a mapping of the source would die of SIGBUS on the first page past the new end).
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

}  // namespace
}  // namespace cuzk::formats
