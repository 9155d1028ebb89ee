// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/daemon_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "service/config.hpp"
#include "service/daemon.hpp"
#include "service/state_dir.hpp"

namespace cuzk::apps {

void daemon_command::add_to(CLI::App& app) {
  sub = app.add_subcommand(
      "daemon",
      "run the proving daemon (gRPC on a Unix socket, HTTP status and metrics); with no --config every key "
      "has its default: state, socket included, in " +
          service::default_state_dir() + ", HTTP on http://" + service::default_http_address + "/status");
  sub->add_option("--config", config,
                  "the TOML config file; keys it leaves out keep their defaults (cuzk daemon --print-config "
                  "shows every key)");
  sub->add_flag("--print-config", print_config,
                "print the effective config (every key, its help and value) and exit");
}

int daemon_command::run(const global_options&) const {
  if (print_config) {
    service::daemon_config c;
    if (!config.empty()) {
      auto r = service::load_config(config);
      if (!r) return report_error(r.error());
      c = std::move(r).value();
    }
    std::fputs(service::print_config(c).c_str(), stdout);
    return exit_ok;
  }
  return service::run_daemon(config);  // no --config: the defaults (service/daemon.hpp)
}

}  // namespace cuzk::apps
