// SPDX-License-Identifier: MIT OR Apache-2.0
// The default state folder: XDG_STATE_HOME first, then HOME, then the current folder; a candidate
// that cannot be made or written is passed over, and resolving it creates nothing.
#include "service/state_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;

struct temp_dir {
  fs::path path = fs::temp_directory_path() / ("cuzk-state-dir-test-" + std::to_string(::getpid()));
  temp_dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(path);
  }
};

TEST(state_dir, xdg_state_home_wins_then_home_then_the_current_folder) {
  temp_dir t;
  const std::string xdg = (t.path / "xdg").string();  // not made yet: its parent is writable
  const std::string home = t.path.string();
  EXPECT_EQ(default_state_dir(xdg.c_str(), home.c_str(), "/work"), xdg + "/cuzk");
  EXPECT_EQ(default_state_dir(nullptr, home.c_str(), "/work"), home + "/.local/state/cuzk");
  EXPECT_EQ(default_state_dir("", home.c_str(), "/work"), home + "/.local/state/cuzk");
  EXPECT_EQ(default_state_dir(nullptr, nullptr, "/work"), "/work/cuzk-state");
  EXPECT_FALSE(fs::exists(xdg)) << "resolving must not create the folder";
  EXPECT_FALSE(fs::exists(home + "/.local"));
}

TEST(state_dir, relative_or_unusable_candidates_are_passed_over) {
  temp_dir t;
  const std::string home = t.path.string();
  // The XDG spec: a relative path in XDG_STATE_HOME is invalid and ignored.
  EXPECT_EQ(default_state_dir("relative/state", home.c_str(), "/work"), home + "/.local/state/cuzk");
  // A HOME that does not exist (a service user's /nonexistent) is not created.
  const std::string missing_home = home + "/no-such-home";
  EXPECT_EQ(default_state_dir(nullptr, missing_home.c_str(), "/work"), "/work/cuzk-state");
  // A candidate under a regular file cannot be made.
  std::ofstream(t.path / "a-file") << "x";
  const std::string under_file = (t.path / "a-file").string();
  EXPECT_EQ(default_state_dir(under_file.c_str(), home.c_str(), "/work"), home + "/.local/state/cuzk");
  // A folder this user may not write into (root may write anywhere: nothing to check then).
  if (::geteuid() != 0) {
    fs::create_directories(t.path / "locked");
    fs::permissions(t.path / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    const std::string locked = (t.path / "locked").string();
    EXPECT_EQ(default_state_dir(locked.c_str(), nullptr, "/work"), "/work/cuzk-state");
    EXPECT_EQ(default_state_dir(nullptr, locked.c_str(), "/work"), "/work/cuzk-state");
    fs::permissions(t.path / "locked", fs::perms::owner_all);
  }
}

TEST(state_dir, the_default_socket_lies_inside_the_default_state_dir) {
  EXPECT_EQ(default_socket_path(), default_state_dir() + "/cuzk.sock");
  EXPECT_TRUE(fs::path(default_state_dir()).is_absolute()) << default_state_dir();
}

TEST(state_dir, a_client_takes_the_users_socket_then_the_system_services_then_names_the_users) {
  temp_dir t;
  const std::string user = (t.path / "user.sock").string(), system = (t.path / "system.sock").string();
  EXPECT_EQ(client_socket_path(user, system), user);  // neither there: the error names the user's
  std::ofstream(system).put('x');
  EXPECT_EQ(client_socket_path(user, system), system);
  std::ofstream(user).put('x');
  EXPECT_EQ(client_socket_path(user, system), user);
}

}  // namespace
}  // namespace cuzk::service
