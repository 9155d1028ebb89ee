// SPDX-License-Identifier: MIT OR Apache-2.0
// The version the build reports: the project's (major.minor.patch) and the line `cuzk --version`
// prints, with the git revision in it when the build had one.
#include "base/version.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace cuzk {
namespace {

TEST(version, is_the_projects_and_the_line_names_it_and_the_revision) {
  EXPECT_TRUE(std::regex_match(version(), std::regex(R"(\d+\.\d+\.\d+)"))) << version();
  const std::string rev = revision();
  EXPECT_EQ(version_line(), "cuzk " + std::string(version()) + (rev.empty() ? "" : " (git " + rev + ")"));
  EXPECT_EQ(rev.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace cuzk
