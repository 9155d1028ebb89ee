// SPDX-License-Identifier: MIT OR Apache-2.0
// The client verbs: `cuzk submit|await|cancel|status|metrics|circuits|preload|evict|register|prove-remote`
// against a running daemon, over gRPC (--socket PATH, or --addr host:port, with TLS and a token
// when the daemon asks for them; neither: the socket of a daemon started with the defaults,
// service/state_dir.hpp). Each prints what the
// daemon answered; errors are the daemon's messages with the engine's code in front
// ("cuzk: error: daemon: not_found: job 7: unknown"), exit status 1. A job that ends failed or
// cancelled also exits 1; an await that times out first prints the job's state and exits 0.
#pragma once

#include <string>
#include <vector>

#include "apps/cli_support.hpp"
#include "service/client_credentials.hpp"

namespace CLI {
class App;
}

namespace cuzk::apps {

// The help line of every --socket option (the client verbs and `cuzk bench`), with the default
// resolved for this user.
std::string socket_option_help();

// --tls-ca, --tls-cert, --tls-key and --token-file (or their CUZK_* variables) for --addr, on a
// client verb or a `cuzk bench` mode (service/client_credentials.hpp).
void add_remote_options(CLI::App* s, service::client_credentials& creds);

struct client_commands {
  std::string socket, addr;
  service::client_credentials creds;
  std::string circuit, priority, request_id, out_dir, tier, zkey, wasm;
  std::vector<std::string> witnesses, inputs;
  bool by_path = false, replace = false, json = false, cluster = false;
  int64_t deadline_unix_ms = 0;
  uint64_t job = 0, timeout_ms = 0;
  CLI::App *submit = nullptr, *await = nullptr, *cancel = nullptr, *status = nullptr, *metrics = nullptr,
           *preload = nullptr, *evict = nullptr, *reg = nullptr, *prove = nullptr, *circuits = nullptr;

  void add_to(CLI::App& app);
  bool chosen() const;
  int run(const global_options& g) const;
};

}  // namespace cuzk::apps
