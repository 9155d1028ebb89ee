// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/daemon.hpp"

#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

#include "base/thread_pool.hpp"
#include "engine/jobs/pg_cluster_view.hpp"
#include "service/cluster_status.hpp"
#include "service/config.hpp"
#include "service/data_dir_lock.hpp"
#include "service/grpc_log.hpp"
#include "service/grpc_service.hpp"
#include "service/http_service.hpp"
#include "service/logging.hpp"
#include "service/message_limit.hpp"
#include "service/process_metrics.hpp"
#include "service/remote_access.hpp"
#include "service/sd_notify.hpp"
#include "service/status_json.hpp"

namespace cuzk::service {
namespace {

using engine::log_level;

// A [[circuit]] already registered keeps its key (config.hpp): one whose zkey now holds another
// key is refused and logged, never re-pointed behind the jobs of the id; `cuzk register
// --replace` is the way to replace it.
void register_circuits(engine::engine& e, const daemon_config& c) {
  for (const auto& cc : c.circuits) {
    auto st = e.register_circuit(cc.id, cc.zkey, cc.prio, engine::key_change::refuse, cc.wasm);
    if (st)
      log_line(log_level::info, "service: circuit registered id=" + cc.id + " zkey=" + cc.zkey +
                                    (cc.wasm.empty() ? "" : " wasm=" + cc.wasm));
    else
      log_line(log_level::error,
               "service: circuit not registered id=" + cc.id + " error=\"" + st.to_string() + "\"");
  }
}

// The config file's keys, or every key at its default when there is no file (`cuzk daemon` alone).
result<daemon_config> load_or_default(const std::string& config_path) {
  if (config_path.empty()) return daemon_config{};
  return load_config(config_path);
}

// A Unix socket's path must fit sockaddr_un's sun_path (108 bytes with its terminating zero); gRPC
// would only say that it cannot listen, so say why, and what to change.
constexpr std::size_t max_socket_path = sizeof(sockaddr_un::sun_path) - 1;

}  // namespace

int run_daemon(const std::string& config_path) {
  auto loaded = load_or_default(config_path);
  if (!loaded) {
    std::fprintf(stderr, "cuzk: error: %s\n", loaded.error().to_string().c_str());
    return 1;
  }
  daemon_config cfg = std::move(loaded).value();
  init_logging(cfg.log_level);
  route_grpc_log();
  // Checked before anything is made on disk.
  const std::string sock = cfg.socket_path();
  if (sock.size() > max_socket_path) {
    log_line(log_level::error, "service: socket " + sock + ": expected a path of at most " +
                                   std::to_string(max_socket_path) +
                                   " bytes (a Unix socket's limit), found " + std::to_string(sock.size()) +
                                   "; set socket (or data_dir) in the config");
    return 1;
  }

  // Before any thread exists, so every thread inherits the mask and only sigwait sees them.
  sigset_t sigs;
  sigemptyset(&sigs);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&sigs, s);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

  std::error_code ec;
  std::filesystem::create_directories(cfg.data_dir, ec);
  if (ec) {
    log_line(log_level::error, "service: data_dir " + cfg.data_dir + ": " + ec.message());
    return 1;
  }
  // Only the daemon's user may read the jobs, witnesses and key copies kept there.
  if (::chmod(cfg.data_dir.c_str(), 0700) != 0) {
    log_line(log_level::error,
             "service: data_dir " + cfg.data_dir + ": cannot set mode 0700: " + std::strerror(errno));
    return 1;
  }
  // Before the store, the spool or the socket are touched: a second daemon on this directory stops here.
  auto lock = data_dir_lock::acquire(cfg.data_dir);
  if (!lock) {
    log_line(log_level::error, "service: " + lock.error().to_string());
    return 1;
  }
  if (cfg.threads > 0) (void)thread_pool::set_global_threads(static_cast<unsigned>(cfg.threads));

  std::mutex cfg_m;  // cfg is read by /status on HTTP threads and replaced on SIGHUP
  auto opt = cfg.to_engine_options();
  opt.log = log_line;
  // The node's one name in the cluster: its leases are held in it and the view publishes under it.
  const std::string self = opt.cluster.node_name;
  auto created = engine::engine::create(std::move(opt));
  if (!created) {
    log_line(log_level::error, "service: engine: " + created.error().to_string());
    return 1;
  }
  std::unique_ptr<engine::engine> eng = std::move(created).value();
  register_circuits(*eng, cfg);

  // With the job store on PostgreSQL, this node publishes its report to the database and reads the
  // cluster's for /status, on a thread of its own (pg_cluster_view.hpp); a SQLite daemon is alone.
  // The view only informs: a daemon whose view cannot start still proves, and says why.
  std::unique_ptr<engine::pg_cluster_view> cluster;
  if (!cfg.database.empty()) {
    engine::pg_cluster_view::options o;
    o.conninfo = cfg.database;
    o.node = self;
    o.report = [&eng, listen = cfg.listen, http = cfg.http] {
      return node_report_json(eng->snapshot(), listen, http);
    };
    auto v = engine::pg_cluster_view::start(std::move(o));
    if (v) {
      cluster = std::move(v).value();
      log_line(log_level::info, "service: cluster node=" + self);
    } else {
      log_line(log_level::warn, "service: the cluster view is off: " + v.error().to_string());
    }
  }

  auto status_doc = [&](status_view view) {
    std::lock_guard lk(cfg_m);
    if (!cluster) return status_json(eng->snapshot(), cfg, view);
    const cluster_status c{cluster->latest(), self};
    return status_json(eng->snapshot(), cfg, view, &c);
  };
  // gRPC's callers may already name paths (register, submit by path); HTTP answers whoever reaches
  // its port, so it never gets the full view (status_json.hpp).
  auto full_status_doc = [&] { return status_doc(status_view::full); };
  auto public_status_doc = [&] { return status_doc(status_view::public_view); };
  // The engine's families, then the build's and the process's own (process_metrics.hpp).
  auto metrics_doc = [&] {
    return prometheus_text(eng->snapshot()) + build_info_text() + process_metrics_text(read_process_stats());
  };

  // What bounds the memory one request costs (message_limit.hpp). gRPC refuses a message over its
  // own limit before a handler runs; while the limit is derived, that is the ceiling and the
  // handlers refuse what is over the limit the registered keys give, which follows registrations.
  // gRPC checks a limit only once a message is whole: the quota on its transport's memory is what
  // stops a larger one while it arrives, and it follows the limit.
  grpc::ResourceQuota quota("cuzk-requests");
  message_limit::options lo;
  lo.max_message_mib = cfg.max_message_mib;
  lo.ceiling_mib = cfg.max_message_ceiling_mib;
  lo.request_memory_mib = cfg.request_memory_mib;
  lo.by_path = !cfg.witness_dirs.empty();
  lo.on_change = [&quota](int64_t bytes, int64_t request_memory) {
    quota.Resize(static_cast<std::size_t>(request_memory));
    log_line(log_level::info, "service: message limit derived again max_message_bytes=" + std::to_string(bytes) +
                                  " request_memory_bytes=" + std::to_string(request_memory));
  };
  message_limit limit(std::move(lo), eng->list_circuits());
  quota.Resize(static_cast<std::size_t>(limit.request_memory()));

  grpc_service svc(*eng, full_status_doc, metrics_doc, &limit, sock);
  grpc::ServerBuilder b;
  b.SetMaxReceiveMessageSize(static_cast<int>(limit.transport_bytes()));
  // Replies are the daemon's own (proofs, status) and keep a wide limit.
  b.SetMaxSendMessageSize(1024 << 20);
  b.SetResourceQuota(quota);
  // gRPC sets SO_REUSEPORT on its TCP listeners by default, so a second daemon on the same port
  // would bind without an error and the kernel would split the connections between the two. Off:
  // a port in use is a start-up error.
  b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::filesystem::remove(sock, ec);  // a stale socket from a crash
  b.AddListeningPort("unix:" + sock, grpc::InsecureServerCredentials());
  // TLS and client authentication guard TCP only; the socket's file mode guards it (remote_access.hpp).
  auto tcp_creds = tcp_server_credentials(cfg);
  if (!tcp_creds) {
    log_line(log_level::error, "service: " + tcp_creds.error().to_string());
    return 1;
  }
  if (!cfg.listen.empty() && cfg.tls_cert.empty()) {
    auto hp = split_host_port(cfg.listen, "listen");
    if (hp && !is_loopback_host(hp->first))
      log_line(log_level::warn, "service: listen=" + cfg.listen +
                                    " is plaintext without authentication: anyone who reaches it may submit "
                                    "and cancel jobs; set tls_cert, tls_key and tls_client_ca or auth_token_file");
  }
  int tcp_port = 0;
  if (!cfg.listen.empty()) b.AddListeningPort(cfg.listen, *tcp_creds, &tcp_port);
  b.RegisterService(&svc);
  // The socket is created with mode 0600: only the daemon's user may submit.
  const mode_t old_mask = ::umask(077);
  std::unique_ptr<grpc::Server> server = b.BuildAndStart();
  ::umask(old_mask);
  if (!server || (!cfg.listen.empty() && tcp_port == 0)) {
    log_line(log_level::error,
             "service: cannot listen on unix:" + sock + (cfg.listen.empty() ? "" : " or " + cfg.listen));
    return 1;
  }
  ::chmod(sock.c_str(), 0600);

  std::unique_ptr<http_service> http;
  if (!cfg.http.empty()) {
    auto tls = http_tls_for(cfg);
    if (!tls) {
      log_line(log_level::error, "service: " + tls.error().to_string());
      server->Shutdown();
      return 1;
    }
    auto h = http_service::start(cfg.http, *eng, public_status_doc, metrics_doc, *tls);
    if (h) {
      http = std::move(h).value();
    } else if (cfg.http == default_http_address) {
      // The default address is a convenience, not a promise (config.hpp): another user's daemon may
      // hold it, and this one still proves over its own socket.
      log_line(log_level::warn,
               "service: HTTP is off: " + h.error().message() +
                   " (the port is taken; set http = \"127.0.0.1:<port>\" in a config to serve "
                   "/status and /metrics elsewhere)");
    } else {
      log_line(log_level::error, "service: " + h.error().to_string());
      server->Shutdown();
      return 1;
    }
  }
  log_line(log_level::info,
           "service: listening socket=" + sock + (cfg.listen.empty() ? "" : " tcp=" + cfg.listen) +
               (cfg.tls_cert.empty() ? "" : " tls=on") +
               (cfg.tls_client_ca.empty() ? "" : " client_certificates=required") +
               (cfg.auth_token_file.empty() ? "" : " token=required") +
               (http ? " http=" + std::string(http->secure() ? "https" : "http") + "://" +
                           split_host_port(cfg.http, "http")->first + ":" +
                           std::to_string(http->port()) + "/status"
                     : " http=off") +
               " data_dir=" + cfg.data_dir + " max_message_bytes=" + std::to_string(limit.bytes()) +
               (limit.derived() ? " (derived, ceiling " + std::to_string(limit.transport_bytes()) + ")" : "") +
               " request_memory_bytes=" + std::to_string(limit.request_memory()));

  // Type=notify (packaging/systemd): `systemctl start` returns once clients can connect.
  if (auto st = sd_notify("READY=1\nSTATUS=listening on " + sock); !st)
    log_line(log_level::warn, "service: " + st.to_string());

  for (;;) {
    int sig = 0;
    if (sigwait(&sigs, &sig) != 0) continue;
    if (sig == SIGHUP) {
      if (config_path.empty()) {
        log_line(log_level::info, "service: reload: started without --config, nothing to reread");
        continue;
      }
      auto next = load_config(config_path);
      if (!next) {
        log_line(log_level::error, "service: reload refused: " + next.error().to_string());
        continue;
      }
      std::lock_guard lk(cfg_m);
      for (const auto& ch : diff_config(cfg, *next)) {
        if (ch.runtime) continue;
        log_line(log_level::warn,
                 "service: reload: key=" + ch.key + " changed; it takes effect after a restart");
      }
      // Only the runtime keys (drain_grace_s, log_level: the table marks them) and the circuit list
      // are taken from the new file.
      daemon_config merged = cfg;
      merged.drain_grace_s = next->drain_grace_s;
      merged.log_level = next->log_level;
      merged.circuits = next->circuits;
      cfg = std::move(merged);
      set_log_level(cfg.log_level);
      register_circuits(*eng, cfg);
      limit.follow(eng->list_circuits());
      log_line(log_level::info, "service: reloaded config=" + config_path);
      continue;
    }
    break;
  }

  int64_t grace;
  {
    std::lock_guard lk(cfg_m);
    grace = cfg.drain_grace_s;
  }
  log_line(log_level::info, "service: draining grace_s=" + std::to_string(grace));
  (void)sd_notify("STOPPING=1\nSTATUS=draining");
  eng->drain(std::chrono::seconds(grace));
  svc.stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (http) http->stop();
  cluster.reset();  // its report reads the engine
  eng.reset();
  std::filesystem::remove(sock, ec);
  log_line(log_level::info, "service: stopped");
  return 0;
}

}  // namespace cuzk::service
