// SPDX-License-Identifier: MIT OR Apache-2.0
// The config table, the TOML loader built on it, and --print-config.
#include "service/config.hpp"

#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "formats/file_io.hpp"
#include "service/node_name.hpp"

namespace cuzk::service {
namespace {

// One table row per key; the lambdas reach the field. INT/BOOL/STR keep the rows to one line each.
#define INT(key, lo, hi, rt, help)                                                                  \
  config_key {                                                                                      \
#key, key_type::integer, lo, hi, rt, help,                                                      \
        {}, [](daemon_config & c,                                                                   \
               int64_t v) { c.key = v; }, nullptr, nullptr, nullptr, nullptr,                       \
                                       [](const daemon_config& c) { return std::to_string(c.key); } \
  }
#define BOOL(key, rt, help)                                                                                  \
  config_key {                                                                                               \
#key, key_type::boolean, 0, 0, rt, help,                                                                 \
        {}, nullptr,                                                                                         \
         [](daemon_config & c,                                                                               \
            bool                                                                                             \
                v) { c.key = v; }, nullptr, nullptr, nullptr,                                                \
                                [](const daemon_config& c) { return std::string(c.key ? "true" : "false"); } \
  }
#define STR(key, rt, help, ...)                                                                           \
  config_key {                                                                                            \
#key, key_type::string, 0, 0, rt, help,                                                               \
        {__VA_ARGS__ }, nullptr, nullptr,                                                                 \
         [](daemon_config & c,                                                                            \
            std::string v) { c.key = std::move(v); }, nullptr, nullptr,                                   \
            [](const daemon_config& c) { return quote(c.key); }                                           \
  }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string show_list(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

std::string show_str_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + quote(v[i]);
  return out + "]";
}

#define INT_LIST(key, lo, hi, rt, help)                                                          \
  config_key {                                                                                   \
#key, key_type::integer_list, lo, hi, rt, help, {}, nullptr, nullptr, nullptr,               \
        [](daemon_config & c, std::vector<int64_t> v) { c.key = std::move(v); }, nullptr,        \
        [](const daemon_config& c) { return show_list(c.key); }                                  \
  }
#define STR_LIST(key, rt, help)                                                                  \
  config_key {                                                                                   \
#key, key_type::string_list, 0, 0, rt, help, {}, nullptr, nullptr, nullptr, nullptr,         \
        [](daemon_config & c, std::vector<std::string> v) { c.key = std::move(v); },             \
        [](const daemon_config& c) { return show_str_list(c.key); }                              \
  }

// A row whose value is a path on the daemon's disk (config_key::local_only).
config_key local_only(config_key k) {
  k.local_only = true;
  return k;
}

std::vector<config_key> make_table() {
  return {
      local_only(STR(data_dir, false,
                     "job database, spooled witnesses, key copies and the default socket live here; default: "
                     "$XDG_STATE_HOME/cuzk, else $HOME/.local/state/cuzk, else ./cuzk-state")),
      local_only(STR(database, false,
                     "job store in PostgreSQL, as a libpq connection string, e.g. \"host=/run/postgresql "
                     "dbname=cuzk\" (keep a password in ~/.pgpass, not here); the daemon creates and migrates "
                     "its tables; empty: the SQLite file in data_dir")),
      STR(node_name, false,
          "with database: this daemon's name, unique among the daemons on the database (its claims are held "
          "in it and the cluster view shows it; a second live daemon of the same name is refused); empty: <host "
          "name>/<digest of data_dir>"),
      INT(lease_s, 1, 3600, false,
          "with database: how long a claimed job stays this daemon's without a heartbeat (one every third "
          "of it), s; a daemon that dies loses its jobs to the others this long after its last heartbeat"),
      INT(key_preference_s, 0, 3600, false,
          "with database: how long a queued job may be passed over for one whose key this daemon holds "
          "resident, s; an older job is taken by any daemon in FIFO order"),
      local_only(STR(spool_dir, false,
                     "where inline witnesses are spooled; empty: <data_dir>/spool; with database, the root "
                     "of every daemon's spool (each writes <spool_dir>/<node_name>), on storage every "
                     "daemon mounts at the same path")),
      local_only(STR(socket, false, "gRPC Unix socket (mode 0600); empty: <data_dir>/cuzk.sock")),
      STR(listen, false,
          "gRPC over TCP as host:port; without tls_cert it has no TLS and no auth (bind to a private "
          "address); empty: off"),
      local_only(STR(tls_cert, false,
                     "TLS for the TCP listener (and HTTP on a non-loopback address): the server certificate "
                     "chain, a PEM file; needs tls_key; empty: plaintext (docs/cluster.md, \"Remote access: TLS and "
                     "tokens\")")),
      local_only(STR(tls_key, false, "the private key of tls_cert, a PEM file (keep it mode 0600)")),
      local_only(STR(tls_client_ca, false,
                     "mutual TLS: the CA certificates (PEM) that sign client certificates; a TCP client "
                     "without a certificate they verify is refused; needs tls_cert; empty: no client "
                     "certificates asked")),
      local_only(STR(auth_token_file, false,
                     "a file holding the bearer token TCP clients must send (authorization: Bearer ...); "
                     "its first line is the token; needs tls_cert (a token in plaintext can be read on "
                     "the way); empty: no token asked; the Unix socket never asks")),
      STR(http, false,
          "HTTP /healthz /status /metrics /trace as host:port; empty: off; the default (127.0.0.1:9745) "
          "is skipped with a warning when its port is taken, any other address that cannot be bound "
          "stops the start"),
      INT(max_message_mib, 0, 2047, false,
          "largest gRPC message (inline witnesses), MiB; 0: the largest witness of the circuits registered, "
          "derived again as circuits are registered or replaced, at least 4, at most max_message_ceiling_mib; "
          "a message costs up to 3x its size while gRPC reads it: send larger witnesses by path"),
      INT(max_message_ceiling_mib, 4, 2047, false,
          "the most a derived max_message_mib grows to, MiB; a message under it but over the derived limit "
          "is read before it is refused"),
      INT(request_memory_mib, 0, int64_t(1) << 20, false,
          "memory gRPC may hold for requests while they arrive, MiB (a message that would take more is "
          "reset); 0: 8 messages of max_message_mib plus 32, at least 256"),
      INT(workers, 1, 256, false, "prover workers (jobs proved at once) with the CPU backend"),
      STR(backend, false,
          "the prover: gpu, cpu, or auto (the GPU when a CUDA device answers, else the CPU); gpu refuses "
          "to start without a device",
          "auto", "cpu", "gpu"),
      INT_LIST(gpu_devices, 0, 63, false,
               "CUDA device ordinals to prove on, e.g. [0, 1]; [] = every visible device; an ordinal "
               "listed twice gives two device slots on one GPU"),
      INT(gpu_workers_per_device, 1, 16, false,
          "GPU backend: workers per device (2: one's synthesis and copies overlap the other's kernels)"),
      INT(gpu_batch_partitions, 1, 64, false,
          "GPU backend: the most partitions of one job proven together on a key streamed from host memory "
          "(its points then cross to the device once per batch); fewer when device memory is short; 1: "
          "one at a time"),
      INT(gpu_key_budget_mib, 0, int64_t(1) << 24, false,
          "GPU backend: device memory for proving keys per device, MiB; 0: 80% of the free memory at start; "
          "never more than its share of the device budget (the budget over the slots listed on that device)"),
      INT(gpu_memory_budget_mib, 0, int64_t(1) << 24, false,
          "GPU backend: device memory the daemon uses per device (key copies and workers' buffers), MiB; 0: "
          "90% of the free memory at start"),
      STR(gpu_synthesis, false,
          "GPU backend: where a, b, c are computed: device (default; on the host, pinned, for a key whose "
          "matrices and one worker's buffers do not fit the device beside it), host-pinned, or host-pageable "
          "(the slow copy, to measure what pinned memory buys)",
          "device", "host-pinned", "host-pageable"),
      INT(threads, 0, 4096, false, "CPU threads for proving; 0: all cores"),
      BOOL(verify_proofs, false, "verify every proof before returning it"),
      INT(result_retention_s, 1, 365 * 24 * 3600, false,
          "how long a finished job's result stays retrievable, s"),
      INT(witness_time_limit_s, 1, 7 * 24 * 3600, false,
          "the longest a witness from input JSON may compute before its job fails, s (witness code that never "
          "ends is stopped there)"),
      INT(witness_threads, -1, 4096, false,
          "threads that compute the input JSON witnesses of queued jobs ahead of the prover workers; -1: the "
          "cores the GPU workers leave (at least one), one with the CPU backend; 0: none, each worker computes "
          "its job's witnesses"),
      INT(max_attempts, 1, 100, false,
          "a job interrupted this many times by a crash fails instead of retrying"),
      BOOL(fail_expired_jobs, false, "fail a queued job whose deadline passed instead of running it late"),
      INT(max_batch_size, 1, 1024, false, "same-circuit jobs dispatched together; 1: no batching"),
      INT(max_batch_wait_ms, 0, 600000, false, "how long a batch waits to fill, ms"),
      BOOL(group_by_circuit, false, "prefer jobs whose key is resident over older ones (bounded delay)"),
      INT(group_max_delay_ms, 0, 3600000, false, "longest a job is passed over for grouping, ms"),
      INT(hot_budget_mib, 0, int64_t(1) << 30, false,
          "host memory for fully loaded keys, MiB; 0: keys stay mapped"),
      INT(warm_budget_mib, 0, int64_t(1) << 30, false, "mapped key files plus matrices, MiB; 0: unlimited"),
      INT(host_memory_budget_mib, 0, int64_t(1) << 30, false,
          "host memory for proofs in flight (each job reserves its working set before it starts, in "
          "priority order), witness calculations from input JSON while they run, witnesses computed "
          "ahead and the pinned staging pool, MiB; 0: 80% of the physical memory"),
      INT(drain_grace_s, 0, 86400, true,
          "on SIGTERM, how long running jobs may finish before they are requeued, s"),
      STR(log_level, true, "debug, info, warn or error", "debug", "info", "warn", "error"),
      local_only(STR_LIST(witness_dirs, false,
                          "directories under which a client may name witness files (submit by path), e.g. "
                          "[\"/srv/witnesses\"]; a path is read only when its real path lies under one of "
                          "them and names a regular file; [] = witness paths refused (inline witnesses still "
                          "work)")),
      local_only(STR_LIST(key_dirs, false,
                          "directories under which clients may register a zkey or wasm by path (cuzk "
                          "register), by the rule of witness_dirs; set, it holds every client, the daemon's "
                          "own user too; [] = only the daemon's own user on its Unix socket (mode 0600) "
                          "registers paths, anywhere, and TCP clients are refused (circuits listed in this "
                          "config are registered wherever they are)")),
  };
}

#undef INT
#undef BOOL
#undef STR
#undef INT_LIST
#undef STR_LIST

const char* type_name(key_type t) {
  switch (t) {
    case key_type::integer:
      return "an integer";
    case key_type::boolean:
      return "a boolean";
    case key_type::string:
      return "a string";
    case key_type::integer_list:
      return "an array of integers";
    case key_type::string_list:
      return "an array of strings";
  }
  return "?";
}

std::string found(const toml::node& n) {
  std::ostringstream os;
  switch (n.type()) {
    case toml::node_type::string:
      os << quote(*n.value<std::string>());
      break;
    case toml::node_type::table:
      os << "a table";
      break;
    case toml::node_type::array:
      os << "an array";
      break;
    case toml::node_type::integer:
      os << *n.value<int64_t>();
      break;
    case toml::node_type::floating_point:
      os << *n.value<double>();
      break;
    case toml::node_type::boolean:
      os << (*n.value<bool>() ? "true" : "false");
      break;
    default:
      os << "a date or time";
      break;
  }
  return os.str();
}

status bad(const std::string& origin, const std::string& key, const std::string& expected,
           const std::string& got) {
  return status(errc::invalid_argument, origin + ": " + key + ": expected " + expected + ", found " + got);
}

status apply_key(daemon_config& c, const config_key& k, const toml::node& n, const std::string& origin) {
  switch (k.type) {
    case key_type::integer: {
      auto v = n.value_exact<int64_t>();
      const std::string want = "an integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
      if (!v || *v < k.min || *v > k.max) return bad(origin, k.name, want, found(n));
      k.set_int(c, *v);
      return {};
    }
    case key_type::boolean: {
      auto v = n.value_exact<bool>();
      if (!v) return bad(origin, k.name, "true or false", found(n));
      k.set_bool(c, *v);
      return {};
    }
    case key_type::string: {
      auto v = n.value_exact<std::string>();
      if (!v) return bad(origin, k.name, "a string", found(n));
      if (!k.choices.empty()) {
        bool ok = false;
        std::string list;
        for (const char* ch : k.choices) {
          ok = ok || *v == ch;
          list += (list.empty() ? "" : ", ") + std::string(ch);
        }
        if (!ok) return bad(origin, k.name, "one of " + list, found(n));
      }
      k.set_str(c, *v);
      return {};
    }
    case key_type::integer_list: {
      const std::string want =
          "an array of integers in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
      const auto* arr = n.as_array();
      if (!arr) return bad(origin, k.name, want, found(n));
      std::vector<int64_t> out;
      for (std::size_t i = 0; i < arr->size(); ++i) {
        auto v = (*arr)[i].value_exact<int64_t>();
        if (!v || *v < k.min || *v > k.max)
          return bad(origin, std::string(k.name) + "[" + std::to_string(i) + "]",
                     "an integer in [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]",
                     found((*arr)[i]));
        out.push_back(*v);
      }
      k.set_list(c, std::move(out));
      return {};
    }
    case key_type::string_list: {
      const auto* arr = n.as_array();
      if (!arr) return bad(origin, k.name, "an array of strings", found(n));
      std::vector<std::string> out;
      for (std::size_t i = 0; i < arr->size(); ++i) {
        auto v = (*arr)[i].value_exact<std::string>();
        const std::string where = std::string(k.name) + "[" + std::to_string(i) + "]";
        if (!v) return bad(origin, where, "a string", found((*arr)[i]));
        out.push_back(*v);
      }
      k.set_str_list(c, std::move(out));
      return {};
    }
  }
  return {};
}

status apply_circuits(daemon_config& c, const toml::node& n, const std::string& origin) {
  const auto* arr = n.as_array();
  if (!arr) return bad(origin, "circuit", "an array of tables ([[circuit]])", found(n));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string where = "circuit[" + std::to_string(i) + "]";
    const auto* t = (*arr)[i].as_table();
    if (!t) return bad(origin, where, "a table", found((*arr)[i]));
    circuit_config cc;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      auto s = v.value_exact<std::string>();
      if (key != "id" && key != "zkey" && key != "priority" && key != "wasm")
        return bad(origin, where + "." + key, "one of id, zkey, priority, wasm", "an unknown key");
      if (!s) return bad(origin, where + "." + key, "a string", found(v));
      if (key == "id") cc.id = *s;
      if (key == "zkey") cc.zkey = *s;
      if (key == "wasm") cc.wasm = *s;
      if (key == "priority") {
        auto p = engine::priority_from_name(*s);
        if (!p) return bad(origin, where + ".priority", "LOW, NORMAL, HIGH or CRITICAL", quote(*s));
        cc.prio = *p;
      }
    }
    if (cc.id.empty()) return bad(origin, where + ".id", "a circuit id", "nothing");
    if (cc.zkey.empty()) return bad(origin, where + ".zkey", "the path of a .zkey", "nothing");
    if (!seen.insert(cc.id).second) return bad(origin, where + ".id", "an id not used before", quote(cc.id));
    c.circuits.push_back(std::move(cc));
  }
  return {};
}

}  // namespace

const std::vector<config_key>& config_table() {
  static const std::vector<config_key> t = make_table();
  return t;
}

engine::engine_options daemon_config::to_engine_options() const {
  engine::engine_options o;
  o.store_path = store_path();
  o.database = database;
  o.spool_dir = spool_dir.empty() ? data_dir + "/spool" : spool_dir;
  // One name for the leases, the spool and the cluster view; the default is stable across restarts
  // (a restarted daemon takes back its predecessor's leases at once) and unique on the host.
  o.cluster.node_name = node_name.empty() ? default_node_name(data_dir) : node_name;
  o.cluster.lease = std::chrono::seconds(lease_s);
  o.cluster.key_preference = std::chrono::seconds(key_preference_s);
  o.key_copy_dir = data_dir;
  o.workers = static_cast<unsigned>(workers);
  // Both strings were checked against their lists when the config was parsed.
  o.backend = groth16::parse_prover_kind(backend).value_or(groth16::prover_kind::automatic);
  for (int64_t d : gpu_devices) o.gpu.devices.push_back(static_cast<int>(d));
  o.gpu.workers_per_device = static_cast<unsigned>(gpu_workers_per_device);
  o.gpu.batch_partitions = static_cast<unsigned>(gpu_batch_partitions);
  o.gpu.key_budget = static_cast<uint64_t>(gpu_key_budget_mib) << 20;
  o.gpu.device_memory_budget = static_cast<uint64_t>(gpu_memory_budget_mib) << 20;
  o.gpu.synthesis = groth16::parse_synthesis_place(gpu_synthesis).value_or(groth16::synthesis_place::device);
  o.verify_proofs = verify_proofs;
  o.result_retention = std::chrono::seconds(result_retention_s);
  o.witness_time_limit = std::chrono::seconds(witness_time_limit_s);
  o.witness_threads = static_cast<int>(witness_threads);
  o.max_attempts = static_cast<uint32_t>(max_attempts);
  o.fail_expired_jobs = fail_expired_jobs;
  o.scheduling.max_batch_size = static_cast<std::size_t>(max_batch_size);
  o.scheduling.max_batch_wait = std::chrono::milliseconds(max_batch_wait_ms);
  o.scheduling.group_by_circuit = group_by_circuit;
  o.scheduling.group_max_delay = std::chrono::milliseconds(group_max_delay_ms);
  o.budgets.hot = static_cast<uint64_t>(hot_budget_mib) << 20;
  o.host_memory_budget = static_cast<uint64_t>(host_memory_budget_mib) << 20;
  if (warm_budget_mib > 0) o.budgets.warm = static_cast<uint64_t>(warm_budget_mib) << 20;
  o.witness_dirs = witness_dirs;
  o.key_dirs = key_dirs;
  return o;
}

result<daemon_config> parse_config(const std::string& text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return status(errc::parse_error, origin + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                                         ": " + std::string(e.description()));
  }
  daemon_config c;
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (key == "circuit") {
      CUZK_TRY(apply_circuits(c, v, origin));
      continue;
    }
    const config_key* row = nullptr;
    for (const auto& r : config_table())
      if (key == r.name) row = &r;
    if (!row) return bad(origin, key, "a known key (see cuzk daemon --print-config)", "an unknown key");
    CUZK_TRY(apply_key(c, *row, v, origin));
  }
  return c;
}

result<daemon_config> load_config(const std::string& path) {
  auto text = formats::read_text_file(path);
  if (!text) return text.error().with_context("the config file");
  return parse_config(*text, path);
}

std::string print_config(const daemon_config& c) {
  std::ostringstream os;
  os << "# cuzk daemon configuration (every key, with its current value)\n";
  for (const auto& k : config_table()) {
    os << "\n# " << k.help << "\n# " << type_name(k.type);
    if (k.type == key_type::integer || k.type == key_type::integer_list)
      os << " in [" << k.min << ", " << k.max << "]";
    os << (k.runtime ? "; SIGHUP applies changes" : "; needs a restart") << "\n";
    os << k.name << " = " << k.show(c) << "\n";
  }
  os << "\n# Circuits registered at start (and added on SIGHUP):\n# [[circuit]]\n# id = \"poseidon\"\n"
        "# zkey = \"/path/circuit.zkey\"\n# priority = \"NORMAL\"\n# wasm = \"/path/circuit.wasm\"\n";
  for (const auto& cc : c.circuits) {
    os << "\n[[circuit]]\nid = " << quote(cc.id) << "\nzkey = " << quote(cc.zkey)
       << "\npriority = " << quote(engine::priority_name(cc.prio)) << "\n";
    if (!cc.wasm.empty()) os << "wasm = " << quote(cc.wasm) << "\n";
  }
  return os.str();
}

std::vector<config_change> diff_config(const daemon_config& a, const daemon_config& b) {
  std::vector<config_change> out;
  for (const auto& k : config_table())
    if (k.show(a) != k.show(b)) out.push_back({k.name, k.runtime});
  return out;
}

}  // namespace cuzk::service
