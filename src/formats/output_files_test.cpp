// SPDX-License-Identifier: MIT OR Apache-2.0
// output_files.hpp: outputs renamed into place only together, and the paths it refuses (a symbolic
// link, a FIFO standing in for any node that is not a regular file, one file given twice, an output
// that is an input), each left as it was.
#include "formats/output_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/file_io.hpp"

namespace cuzk::formats {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("cuzk-output-files-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

std::string text(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(output_files, nothing_is_replaced_until_every_output_is_written) {
  const std::string d = temp_dir("together");
  std::ofstream(d + "/proof.json") << "old proof";
  {
    auto out = output_files::prepare(
        {{"the proof output", d + "/proof.json"}, {"the public output", d + "/public.json"}}, {});
    ASSERT_TRUE(out.is_ok()) << out.error().to_string();
    ASSERT_TRUE(write_file_atomically(out->staging_path(0), "new proof").is_ok());
    // The second output fails (never written, the command gives up): the first stays as it was.
  }
  EXPECT_EQ(text(d + "/proof.json"), "old proof");
  EXPECT_FALSE(fs::exists(d + "/public.json"));
  EXPECT_EQ(entries(d), 1u) << "a temporary file was left behind";
  auto out = output_files::prepare(
      {{"the proof output", d + "/proof.json"}, {"the public output", d + "/public.json"}}, {});
  ASSERT_TRUE(out.is_ok());
  ASSERT_TRUE(write_file_atomically(out->staging_path(0), "new proof").is_ok());
  // Unflushed (flush_to_disk::no): the same file, whole, under the same mode.
  ASSERT_TRUE(write_file_atomically(out->staging_path(1), "new public", flush_to_disk::no).is_ok());
  ASSERT_TRUE(out->commit().is_ok());
  EXPECT_EQ(text(d + "/proof.json"), "new proof");
  EXPECT_EQ(text(d + "/public.json"), "new public");
  for (const char* name : {"/proof.json", "/public.json"}) {
    struct stat st {};
    ASSERT_EQ(::stat((d + name).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u) << name;
  }
  EXPECT_EQ(entries(d), 2u);
  fs::remove_all(d);
}

TEST(output_files, an_output_in_a_missing_folder_fails_before_anything_is_written) {
  const std::string d = temp_dir("missing");
  std::ofstream(d + "/proof.json") << "old proof";
  auto out = output_files::prepare(
      {{"the proof output", d + "/proof.json"}, {"the public output", d + "/missing/public.json"}}, {});
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.error().message().find(d + "/missing/public.json"), std::string::npos)
      << out.error().to_string();
  EXPECT_EQ(text(d + "/proof.json"), "old proof");
  EXPECT_EQ(entries(d), 1u);
  fs::remove_all(d);
}

TEST(output_files, refuses_links_nodes_one_file_twice_and_an_input_and_leaves_them) {
  const std::string d = temp_dir("refused");
  std::ofstream(d + "/target") << "target";
  fs::create_symlink(d + "/target", d + "/link");
  ASSERT_EQ(::mkfifo((d + "/fifo").c_str(), 0600), 0);
  std::ofstream(d + "/key.zkey") << "key";
  fs::create_hard_link(d + "/key.zkey", d + "/hardlink.zkey");
  auto refused = [](const result<output_files>& r, const std::string& needle) {
    ASSERT_FALSE(r.is_ok()) << needle;
    EXPECT_NE(r.error().message().find(needle), std::string::npos) << r.error().to_string();
  };
  refused(output_files::prepare({{"the proof output", d + "/link"}}, {}),
          d + "/link: the proof output is a symbolic link");
  refused(output_files::prepare({{"the proof output", d + "/fifo"}}, {}),
          d + "/fifo: the proof output is a FIFO");
  refused(output_files::prepare({{"the proof output", d + "/p.json"}, {"the public output", d + "/./p.json"}},
                                {}),
          "given as both the proof output and the public output");
  refused(
      output_files::prepare({{"the proof output", d + "/key.zkey"}}, {{"the zkey input", d + "/key.zkey"}}),
      "the proof output is the same file as the zkey input");
  refused(output_files::prepare({{"the proof output", d + "/hardlink.zkey"}},
                                {{"the zkey input", d + "/key.zkey"}}),
          "the same file as the zkey input");
  EXPECT_TRUE(fs::is_symlink(d + "/link"));
  EXPECT_EQ(text(d + "/target"), "target");
  EXPECT_TRUE(fs::is_fifo(d + "/fifo"));
  EXPECT_EQ(text(d + "/key.zkey"), "key");
  EXPECT_FALSE(fs::exists(d + "/p.json"));
  EXPECT_EQ(entries(d), 5u) << "a temporary file was left behind";
  fs::remove_all(d);
}

}  // namespace
}  // namespace cuzk::formats
