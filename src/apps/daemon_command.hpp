// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk daemon [--config F] [--print-config]`: the proving daemon (service/daemon.hpp; without a
// config it runs with every key at its default, state under the user's state folder), and the
// client verbs that talk to a running one over gRPC (client_commands.hpp). Built only when the
// service layer is (gRPC and friends installed).
#pragma once

#include <string>

#include "apps/cli_support.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

struct daemon_command {
  std::string config;
  bool print_config = false;
  CLI::App* sub = nullptr;

  void add_to(CLI::App& app);
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
