// The config table and loader: defaults, every key printed, errors naming key, expected and found.
#include "service/config.hpp"

#include <gtest/gtest.h>

namespace cuzk::service {
namespace {

TEST(config, defaults_round_trip_through_print_config) {
  daemon_config c;
  c.circuits.push_back({"p", "/k.zkey", engine::priority::high});
  const std::string text = print_config(c);
  for (const auto& k : config_table())
    EXPECT_NE(text.find(std::string(k.name) + " = "), std::string::npos) << k.name;
  auto back = parse_config(text, "printed");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(diff_config(c, *back).empty());
  ASSERT_EQ(back->circuits.size(), 1u);
  EXPECT_EQ(back->circuits[0].prio, engine::priority::high);
}

TEST(config, errors_name_the_key_the_expectation_and_the_value) {
  auto r = parse_config("workers = 0", "f.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "f.toml: workers: expected an integer in [1, 256], found 0");
  r = parse_config("log_level = \"loud\"", "f.toml");
  EXPECT_EQ(r.error().message(),
            "f.toml: log_level: expected one of debug, info, warn, error, found \"loud\"");
  r = parse_config("verify_proofs = 1", "f.toml");
  EXPECT_EQ(r.error().message(), "f.toml: verify_proofs: expected true or false, found 1");
  r = parse_config("wokers = 2", "f.toml");
  EXPECT_NE(r.error().message().find("wokers: expected a known key"), std::string::npos);
  r = parse_config("[[circuit]]\nid = \"a\"", "f.toml");
  EXPECT_EQ(r.error().message(), "f.toml: circuit[0].zkey: expected the path of a .zkey, found nothing");
  r = parse_config("workers = ", "f.toml");
  EXPECT_EQ(r.error().code(), errc::parse_error);
  EXPECT_NE(r.error().message().find("f.toml:1:"), std::string::npos) << r.error().message();
}

TEST(config, runtime_keys_are_marked) {
  daemon_config a, b;
  b.log_level = "debug";
  b.workers = 4;
  auto d = diff_config(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].key, "workers");
  EXPECT_FALSE(d[0].runtime);
  EXPECT_EQ(d[1].key, "log_level");
  EXPECT_TRUE(d[1].runtime);
}

}  // namespace
}  // namespace cuzk::service
