// SPDX-License-Identifier: MIT OR Apache-2.0
// The example config that packages install (packaging/cuzk.toml, /etc/cuzk/cuzk.toml) against the
// daemon's own parser and config table, so it cannot fall behind the daemon: it parses as shipped,
// it names every key of the table exactly once, each key left commented shows the daemon's default,
// and with every commented setting (the [[circuit]] example too, naming every key of a circuit)
// uncommented it still parses.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "service/config.hpp"
#include "service/http_service.hpp"
#include "service/state_dir.hpp"

namespace cuzk::service {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

const std::string example_path = CUZK_EXAMPLE_CONFIG;
const std::string unit_path = CUZK_EXAMPLE_UNIT;
const std::string docker_path = CUZK_EXAMPLE_DOCKERFILE;

const config_key* row(const std::string& name) {
  for (const auto& k : config_table())
    if (name == k.name) return &k;
  return nullptr;
}

struct example_lines {
  std::map<std::string, std::string> commented;  // key -> value text, from "# key = value"
  std::map<std::string, int> seen;               // key -> times named, commented or not
  std::string uncommented_text;                  // the file with every "# key = value" uncommented
};

example_lines scan(const std::string& text) {
  static const std::regex commented(R"(^# ?([a-z_]+) = (.*)$)");
  static const std::regex set(R"(^([a-z_]+) = (.*)$)");
  static const std::regex circuit_header(R"(^# ?(\[\[circuit\]\])\s*$)");
  example_lines out;
  bool in_circuit = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, circuit_header)) {
      in_circuit = true;
      out.uncommented_text += m[1].str() + "\n";
    } else if (std::regex_match(line, m, commented)) {
      if (!in_circuit) {
        out.commented[m[1]] = m[2];
        ++out.seen[m[1]];
      }
      out.uncommented_text += m[1].str() + " = " + m[2].str() + "\n";
    } else {
      if (std::regex_match(line, m, set) && !in_circuit) ++out.seen[m[1]];
      out.uncommented_text += line + "\n";
    }
  }
  return out;
}

TEST(example_config, parses_as_shipped_with_the_units_directories) {
  const std::string text = read_file(example_path);
  ASSERT_FALSE(text.empty()) << example_path;
  auto c = parse_config(text, example_path);
  ASSERT_TRUE(c) << c.error().to_string();
  // The unit's StateDirectory=cuzk is where the daemon writes, and its socket the one clients find
  // when their user runs no daemon (service::system_socket_path).
  EXPECT_EQ(c->data_dir, "/var/lib/cuzk");
  EXPECT_EQ(c->socket_path(), system_socket_path);
  const std::string unit = read_file(unit_path);
  EXPECT_NE(unit.find("\nStateDirectory=cuzk\n"), std::string::npos) << unit_path;
  EXPECT_NE(unit.find("\nReadWritePaths=" + c->data_dir + "\n"), std::string::npos) << unit_path;
  EXPECT_TRUE(c->circuits.empty());
}

// The container publishes the port the packaged config serves HTTP on, and checks /healthz there.
TEST(example_config, the_container_exposes_and_checks_the_configs_http_port) {
  auto c = parse_config(read_file(example_path), example_path);
  ASSERT_TRUE(c) << c.error().to_string();
  const auto hp = split_host_port(c->http, "http");
  ASSERT_TRUE(hp) << c->http;
  const std::string port = std::to_string(hp->second);
  const std::string docker = read_file(docker_path);
  ASSERT_FALSE(docker.empty()) << docker_path;
  EXPECT_NE(docker.find("\nEXPOSE " + port + "\n"), std::string::npos) << docker_path << ": EXPOSE " << port;
  const auto health = docker.find("\nHEALTHCHECK ");
  ASSERT_NE(health, std::string::npos) << docker_path << ": no HEALTHCHECK";
  EXPECT_NE(docker.find("/" + port + " ", health), std::string::npos) << docker_path << ": HEALTHCHECK not on " << port;
  EXPECT_NE(docker.find("/healthz", health), std::string::npos) << docker_path;
}

// The unit waits for the daemon's READY=1 (sd_notify.hpp) and keeps the hardening it documents.
TEST(example_config, the_unit_is_type_notify_and_hardened) {
  const std::string unit = read_file(unit_path);
  for (const char* line : {"\nType=notify\n", "\nNotifyAccess=main\n", "\nSystemCallFilter=@system-service\n",
                           "\nProtectProc=invisible\n", "\nNoNewPrivileges=yes\n", "\nProtectSystem=strict\n"})
    EXPECT_NE(unit.find(line), std::string::npos) << unit_path << ": lacks" << line;
  // Left out on purpose (the driver reads /proc/driver/nvidia), with the reason in a comment.
  EXPECT_EQ(unit.find("\nProcSubset="), std::string::npos) << unit_path;
  EXPECT_NE(unit.find("# - ProcSubset=pid: "), std::string::npos) << unit_path;
}

TEST(example_config, names_every_key_once_and_commented_keys_show_the_default) {
  const auto lines = scan(read_file(example_path));
  const daemon_config defaults;
  for (const auto& k : config_table()) {
    auto it = lines.seen.find(k.name);
    EXPECT_TRUE(it != lines.seen.end() && it->second == 1)
        << k.name << ": named " << (it == lines.seen.end() ? 0 : it->second)
        << " times in the example config; add it, as \"# " << k.name << " = " << k.show(defaults) << "\"";
  }
  for (const auto& [name, value] : lines.commented) {
    const config_key* k = row(name);
    ASSERT_NE(k, nullptr) << name << ": in the example config but not a key of the daemon";
    auto one = parse_config(name + " = " + value, example_path);
    ASSERT_TRUE(one) << one.error().to_string();
    EXPECT_EQ(k->show(*one), k->show(defaults))
        << name << ": the example config says " << value << ", the daemon's default is " << k->show(defaults);
  }
}

TEST(example_config, parses_with_every_commented_setting_and_the_circuit_example_uncommented) {
  const auto lines = scan(read_file(example_path));
  auto c = parse_config(lines.uncommented_text, example_path + " (uncommented)");
  ASSERT_TRUE(c) << c.error().to_string() << "\n" << lines.uncommented_text;
  ASSERT_EQ(c->circuits.size(), 1u);
  // Every key a [[circuit]] takes is in the example.
  EXPECT_FALSE(c->circuits[0].id.empty());
  EXPECT_FALSE(c->circuits[0].zkey.empty());
  EXPECT_FALSE(c->circuits[0].wasm.empty());
}

}  // namespace
}  // namespace cuzk::service
