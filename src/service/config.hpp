// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's configuration: one TOML file, every key described once in a table.
//
// The table (config_table()) is the single source of truth: each key's name, type, default,
// bounds, whether SIGHUP can change it without a restart, and its help line. The loader, the
// validation messages, `cuzk daemon --print-config` and /status all read it, so a key cannot be
// documented in one place and parsed differently in another.
//
// Circuits are the one structured part: `[[circuit]]` tables with id, zkey, priority and wasm (the
// circuit's witness generator, so that it takes input JSON), registered
// at start and again on SIGHUP (new ones are added; existing ones keep their key: one whose zkey
// now holds another key is refused, and `cuzk register --replace` replaces it).
//
// Validation errors name the key, what was expected and what was found:
//   "cuzk.toml: workers: expected an integer in [1, 256], found 0"
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/engine_options.hpp"
#include "engine/jobs/job.hpp"
#include "service/state_dir.hpp"

namespace cuzk::service {

struct circuit_config {
  std::string id;
  std::string zkey;
  engine::priority prio = engine::priority::normal;
  std::string wasm;  // empty: witnesses only
};

// HTTP is on by default, on loopback only, at a fixed port so that bookmarks and Prometheus scrape
// configs stay valid across restarts. When this default address cannot be bound (another user's
// daemon has it), the daemon starts without HTTP and says so: HTTP is for watching, and the gRPC
// socket, which is this user's own, is what proves. An address the config names is a promise the
// operator made, so failing to bind that one stops the start.
inline constexpr const char* default_http_address = "127.0.0.1:9745";

struct daemon_config {
  std::string data_dir = default_state_dir();  // state_dir.hpp: $XDG_STATE_HOME/cuzk, ...
  // A libpq connection string: the job store is that PostgreSQL database (docs/cluster.md); empty:
  // the embedded SQLite file in data_dir.
  std::string database;
  // With `database`: this daemon's name in the cluster (empty: node_name.hpp's default), how long its
  // claims last without a heartbeat, how long a job may wait for a node that holds its key, and
  // the root of every node's witness spool (empty: <data_dir>/spool); docs/cluster.md.
  std::string node_name;
  int64_t lease_s = 30;
  int64_t key_preference_s = 10;
  std::string spool_dir;
  std::string socket;  // empty: <data_dir>/cuzk.sock
  std::string listen;  // host:port for TCP; empty: none
  // Remote access (remote_access.hpp): PEM paths for TLS on the TCP listener, the CA that signs
  // client certificates (mutual TLS), and a file holding the bearer token. Empty: off.
  std::string tls_cert, tls_key, tls_client_ca, auth_token_file;
  std::string http = default_http_address;  // host:port for HTTP; empty: none
  int64_t max_message_mib = 0;     // 0: from the keys registered, as they change (message_limit.hpp)
  int64_t max_message_ceiling_mib = 256;  // the most a derived limit grows to (message_limit.hpp)
  int64_t request_memory_mib = 0;  // 0: from the message limit (message_limit.hpp)
  int64_t workers = 1;
  std::string backend = "auto";
  std::vector<int64_t> gpu_devices;  // empty: every visible device
  int64_t gpu_workers_per_device = 2;
  int64_t gpu_batch_partitions = 16;
  int64_t gpu_key_budget_mib = 0;  // 0: 80% of the device's free memory at start
  int64_t gpu_memory_budget_mib = 0;  // 0: 90% of the device's free memory at start
  std::string gpu_synthesis = "device";
  int64_t threads = 0;
  bool verify_proofs = true;
  int64_t result_retention_s = 24 * 3600;
  int64_t witness_time_limit_s = 600;
  int64_t witness_threads = -1;
  int64_t max_attempts = 3;
  bool fail_expired_jobs = false;
  int64_t max_batch_size = 1;
  int64_t max_batch_wait_ms = 50;
  bool group_by_circuit = false;
  int64_t group_max_delay_ms = 2000;
  int64_t hot_budget_mib = 0;
  int64_t host_memory_budget_mib = 0;
  int64_t warm_budget_mib = 0;  // 0: unlimited
  int64_t drain_grace_s = 30;
  std::string log_level = "info";
  std::vector<std::string> witness_dirs;  // empty: witness paths refused (witness_dirs.hpp in engine/jobs)
  std::vector<std::string> key_dirs;      // empty: key paths registered only over the socket
  std::vector<circuit_config> circuits;

  std::string socket_path() const { return socket.empty() ? data_dir + "/" + socket_file_name : socket; }
  std::string store_path() const { return data_dir + "/jobs.sqlite"; }
  engine::engine_options to_engine_options() const;
};

enum class key_type { integer, boolean, string, integer_list, string_list };

struct config_key {
  const char* name;
  key_type type;
  int64_t min = 0, max = 0;  // integers (and each integer of a list) only
  bool runtime = false;      // SIGHUP applies it
  const char* help;
  std::vector<const char*> choices;  // strings with a fixed set of values
  // Field access, so the table drives loading, printing and status.
  std::function<void(daemon_config&, int64_t)> set_int;
  std::function<void(daemon_config&, bool)> set_bool;
  std::function<void(daemon_config&, std::string)> set_str;
  std::function<void(daemon_config&, std::vector<int64_t>)> set_list;
  std::function<void(daemon_config&, std::vector<std::string>)> set_str_list;
  std::function<std::string(const daemon_config&)> show;  // as TOML
  // A filesystem path (the data directory, the socket, witness_dirs): shown by `cuzk status` over
  // the Unix socket, left out of HTTP's /status (status_json.hpp).
  bool local_only = false;
};

const std::vector<config_key>& config_table();

// Parses TOML text (`origin` names it in errors); unknown keys are errors.
result<daemon_config> parse_config(const std::string& text, const std::string& origin);
result<daemon_config> load_config(const std::string& path);

// A complete, commented TOML file: every key with its help, bounds and current value.
std::string print_config(const daemon_config& c);

// The keys whose values differ between a and b, and whether each can change at runtime.
struct config_change {
  std::string key;
  bool runtime;
};
std::vector<config_change> diff_config(const daemon_config& a, const daemon_config& b);

}  // namespace cuzk::service
