// SPDX-License-Identifier: MIT OR Apache-2.0
// The libpq connection (see pg_connection.hpp).
#include "engine/jobs/pg_connection.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string_view>

namespace cuzk::engine {

namespace {

// libpq's messages end with a newline (and sometimes hold several lines): one line for a status.
std::string one_line(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& ch : s)
    if (ch == '\n') ch = ' ';
  return s.empty() ? "no message from libpq" : s;
}

// Whether a failed statement may succeed if tried again later: the connection broke (the server
// restarted or the network was cut), the server is shutting down, starting or out of resources
// (disk full), or a transaction lost a serialization race or a deadlock, or waited past its
// lock_timeout for another's lock. The SQLSTATE classes are PostgreSQL's (Appendix A, "PostgreSQL
// Error Codes"): 08 connection exception, 53 insufficient resources, 57P01..57P03 admin/crash
// shutdown and "cannot connect now", 40001 and 40P01, 55P03 (lock not available), and 25006 (a
// read-only transaction: a standby not yet promoted after a failover). Anything else (a
// constraint, a syntax error, a missing table) will fail the same way again.
bool transient_failure(PGconn* c, const PGresult* r) {
  if (PQstatus(c) != CONNECTION_OK) return true;
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  if (!state) return r == nullptr;
  const std::string_view s(state);
  return s.starts_with("08") || s.starts_with("53") || s == "57P01" || s == "57P02" || s == "57P03" ||
         s == "40001" || s == "40P01" || s == "55P03" || s == "25006";
}

std::string server_name(PGconn* c) {
  const char* host = PQhost(c);
  const char* db = PQdb(c);
  return std::string("postgresql host=") + (host && *host ? host : "(default)") +
         " dbname=" + (db && *db ? db : "(default)");
}

}  // namespace

std::string pg_text(int64_t v) { return std::to_string(v); }
std::string pg_text(bool v) { return v ? "true" : "false"; }
std::string pg_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

pg_rows::~pg_rows() { PQclear(r_); }

pg_rows& pg_rows::operator=(pg_rows&& o) noexcept {
  if (this != &o) {
    PQclear(r_);
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}

int pg_rows::size() const noexcept { return r_ ? PQntuples(r_) : 0; }
bool pg_rows::is_null(int row, int col) const noexcept { return PQgetisnull(r_, row, col) != 0; }
std::string pg_rows::text(int row, int col) const {
  return std::string(PQgetvalue(r_, row, col), static_cast<std::size_t>(PQgetlength(r_, row, col)));
}
int64_t pg_rows::i64(int row, int col) const noexcept {
  return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
}
double pg_rows::f64(int row, int col) const noexcept {
  return std::strtod(PQgetvalue(r_, row, col), nullptr);
}
bool pg_rows::boolean(int row, int col) const noexcept { return PQgetvalue(r_, row, col)[0] == 't'; }
int64_t pg_rows::affected() const noexcept { return r_ ? std::strtoll(PQcmdTuples(r_), nullptr, 10) : 0; }

pg_connection::pg_connection(PGconn* c) : c_(c), name_(server_name(c)) {}

pg_connection::~pg_connection() { PQfinish(c_); }

const std::vector<std::pair<const char*, const char*>>& pg_connection::default_bounds() {
  // Without them a daemon whose database host vanished kept every thread that touched the store
  // (a submit, a worker recording a proof, the heartbeat) in a blocking call: an established
  // connection until the kernel's retransmissions give up (about 15 minutes with Linux's
  // tcp_retries2 = 15), a new one while its start packet waits for an answer that never comes.
  //   connect_timeout 10 s: a server's start-up answer, even under load, comes well within it.
  //   tcp_user_timeout 30 s: a statement's bytes unacknowledged that long mean the host is gone;
  //     a statement that waits on the server (a lock) has its bytes acknowledged, and goes on.
  //   keepalives after 30 s idle, every 10 s: a wait with nothing in flight (for a reply) ends
  //     about a minute after the host went (with tcp_user_timeout set, Linux ends it once 30 s
  //     pass without an acknowledgement of the probes; keepalives_count then goes unused).
  //   connect_timeout holds for each address of the host (localhost's two: up to 20 s).
  static const std::vector<std::pair<const char*, const char*>> bounds = {
      {"connect_timeout", "10"}, {"tcp_user_timeout", "30000"}, {"keepalives", "1"},
      {"keepalives_idle", "30"}, {"keepalives_interval", "10"}, {"keepalives_count", "3"}};
  return bounds;
}

namespace {

// The default bounds the operator has not set: not in the connection string (a URI too), not in
// libpq's environment (PGCONNECT_TIMEOUT), and none at all where a service file is named (it may
// set any of them). libpq reads the environment and the service file only for keywords given no
// value, so a bound passed where the operator set one would silently replace theirs.
std::vector<std::pair<const char*, const char*>> bounds_unset(const std::string& conninfo) {
  std::vector<std::pair<const char*, const char*>> out;
  const char* env_service = std::getenv("PGSERVICE");
  if (env_service != nullptr && *env_service != '\0') return out;
  std::vector<std::string> set;
  if (PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), nullptr)) {
    for (PQconninfoOption* o = parsed; o->keyword != nullptr; ++o)
      if (o->val != nullptr && *o->val != '\0') set.emplace_back(o->keyword);
    PQconninfoFree(parsed);
  }  // else not a connection string: a database name alone, which sets none of them
  if (std::ranges::find(set, "service") != set.end()) return out;
  const char* env_timeout = std::getenv("PGCONNECT_TIMEOUT");
  for (const auto& b : pg_connection::default_bounds()) {
    const std::string_view k = b.first;
    if (std::ranges::find(set, k) != set.end()) continue;
    if (k == "connect_timeout" && env_timeout != nullptr && *env_timeout != '\0') continue;
    out.push_back(b);
  }
  return out;
}

}  // namespace

result<std::unique_ptr<pg_connection>> pg_connection::open(const std::string& conninfo) {
  // The bounds come first and the connection string after them as dbname, expanded (libpq's
  // expand_dbname), so that it could replace them too; only those the operator left unset are
  // passed (bounds_unset).
  std::vector<const char*> keywords, values;
  for (const auto& [k, v] : bounds_unset(conninfo)) {
    keywords.push_back(k);
    values.push_back(v);
  }
  keywords.push_back("dbname");
  values.push_back(conninfo.c_str());
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* c = PQconnectdbParams(keywords.data(), values.data(), 1);
  if (!c) return status(errc::resource_exhausted, "postgresql: cannot allocate a connection");
  if (PQstatus(c) != CONNECTION_OK) {
    status s(errc::unavailable, server_name(c) + ": cannot connect: " + one_line(PQerrorMessage(c)));
    PQfinish(c);
    return s;
  }
  std::unique_ptr<pg_connection> conn(new pg_connection(c));
  // Notices (e.g. "relation already exists, skipping") would go to stderr, past the daemon's log.
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);
  return conn;
}

status pg_connection::error(const char* what) const {
  return status(transient_failure(c_, nullptr) ? errc::unavailable : errc::io_error,
                name_ + ": " + what + ": " + one_line(PQerrorMessage(c_)));
}

status pg_connection::failure(const char* what, const PGresult* r) const {
  if (!r) return error(what);
  return status(transient_failure(c_, r) ? errc::unavailable : errc::io_error,
                name_ + ": " + what + ": " + one_line(PQresultErrorMessage(r)));
}

bool pg_connection::lost() const noexcept { return PQstatus(c_) != CONNECTION_OK; }

status pg_connection::reconnect_if_broken() {
  if (PQstatus(c_) == CONNECTION_OK) return status::ok();
  PQreset(c_);
  if (PQstatus(c_) == CONNECTION_OK) return status::ok();
  return status(errc::unavailable,
                name_ + ": connection lost and not re-established: " + one_line(PQerrorMessage(c_)));
}

result<pg_rows> pg_connection::exec(const char* what, const std::string& sql,
                                    const std::vector<pg_param>& params) {
  last_sqlstate_.clear();
  CUZK_TRY(reconnect_if_broken());
  std::vector<const char*> values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) values[i] = params[i] ? params[i]->c_str() : nullptr;
  PGresult* r = PQexecParams(c_, sql.c_str(), static_cast<int>(params.size()), nullptr, values.data(),
                             nullptr, nullptr, 0);
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return pg_rows(r);
  if (const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr) last_sqlstate_ = state;
  status s = failure(what, r);
  PQclear(r);
  return s;
}

status pg_connection::exec_script(const char* what, const std::string& sql) {
  last_sqlstate_.clear();
  CUZK_TRY(reconnect_if_broken());
  PGresult* r = PQexec(c_, sql.c_str());
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    if (const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr) last_sqlstate_ = state;
  status s = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? status::ok() : failure(what, r);
  PQclear(r);
  return s;
}

result<std::vector<std::string>> pg_connection::notifications(const std::string& channel) {
  auto all = all_notifications();
  if (!all) return all.error();
  std::vector<std::string> out;
  for (auto& [on, payload] : *all)
    if (on == channel) out.push_back(std::move(payload));
  return out;
}

result<std::vector<std::pair<std::string, std::string>>> pg_connection::all_notifications() {
  // Not re-established here: a new session would hold none of this one's LISTENs, and wait on
  // silently for notifications that never come. The owner opens a new connection and listens again.
  if (PQstatus(c_) != CONNECTION_OK)
    return status(errc::unavailable, name_ + ": read notifications: the connection was lost, and its LISTENs with it");
  if (PQconsumeInput(c_) == 0) return error("read notifications");
  std::vector<std::pair<std::string, std::string>> out;
  while (PGnotify* n = PQnotifies(c_)) {
    out.emplace_back(n->relname, n->extra);
    PQfreemem(n);
  }
  return out;
}

status pg_connection::wait_readable(std::chrono::milliseconds timeout) {
  pollfd p{PQsocket(c_), POLLIN, 0};
  if (p.fd < 0) return error("wait for the server");
  const int ms = static_cast<int>(std::min<int64_t>(timeout.count(), 1 << 30));
  if (::poll(&p, 1, ms < 0 ? 0 : ms) < 0 && errno != EINTR) return error("wait for the server");
  return status::ok();
}

result<pg_transaction> pg_transaction::begin(pg_connection& c) {
  auto r = c.exec("begin a transaction", "BEGIN");
  if (!r) return r.error();
  return pg_transaction(&c);
}

pg_transaction::~pg_transaction() {
  // A transaction left open (an error returned early) is undone; a broken connection has none.
  if (c_) (void)c_->exec("roll back a transaction", "ROLLBACK");
}

status pg_transaction::commit() {
  pg_connection* c = c_;
  c_ = nullptr;
  auto r = c->exec("commit", "COMMIT");
  return r ? status::ok() : r.error();
}

}  // namespace cuzk::engine
