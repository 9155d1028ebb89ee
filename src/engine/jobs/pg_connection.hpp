// SPDX-License-Identifier: MIT OR Apache-2.0
// One libpq connection to PostgreSQL, as the job store uses it: statements with text parameters,
// text results, errors as values.
//
// Every statement goes through PQexecParams with its values as separate parameters, never spliced
// into the SQL text, so a request id or a path can hold any byte a client sent. Results are read in
// libpq's text format: the store's columns are integers, text, booleans and float arrays, whose
// text forms are exact (PostgreSQL 12 and later print a double with the shortest digits that read
// back to the same value).
//
// A connection that broke (the server restarted, the network was cut) is re-established before the
// next statement; the statement that saw the break fails, and is not retried here, since it may have
// committed before the answer was lost. A failure that may pass when tried again later (the
// connection broke, the server is restarting, its disk is full) is errc::unavailable, so that the
// job store's callers can tell it from one that will fail the same way again (io_error). Errors
// never carry the connection string (it may hold a
// password): they name the server by host and database.
//
// Thread safety: none; the owner serializes (pg_job_store holds a mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

struct pg_conn;
struct pg_result;

namespace cuzk::engine {

// A statement's parameter: its text form, or SQL NULL.
using pg_param = std::optional<std::string>;

// A parameter's text form: integers in decimal, doubles with the shortest digits that read back to
// the same value, booleans as true / false.
std::string pg_text(int64_t v);
std::string pg_text(double v);
std::string pg_text(bool v);

// The rows a statement returned (text format); freed with the object.
class pg_rows {
 public:
  explicit pg_rows(::pg_result* r) noexcept : r_(r) {}
  ~pg_rows();
  pg_rows(pg_rows&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  pg_rows& operator=(pg_rows&& o) noexcept;
  pg_rows(const pg_rows&) = delete;
  pg_rows& operator=(const pg_rows&) = delete;

  int size() const noexcept;
  bool is_null(int row, int col) const noexcept;
  std::string text(int row, int col) const;
  int64_t i64(int row, int col) const noexcept;
  double f64(int row, int col) const noexcept;
  bool boolean(int row, int col) const noexcept;
  // The number of rows an UPDATE or DELETE touched.
  int64_t affected() const noexcept;

 private:
  ::pg_result* r_;
};

class pg_connection {
 public:
  // Connects with a libpq connection string ("host=/run/postgresql dbname=cuzk" or
  // "postgresql://user@host/db"). unavailable, naming the server, when it cannot.
  //
  // A server that stops answering without closing the connection (its host powered off, a network
  // cut) is given up on in bounded time, where libpq by default waits for ever: a connection's
  // start (its re-establishment too) within connect_timeout, a statement whose bytes go
  // unacknowledged within tcp_user_timeout, an idle wait by keepalives (default_bounds). Each is
  // passed only where the operator set none: in the connection string, in PGCONNECT_TIMEOUT, or
  // through a service file (`service=`, PGSERVICE), where none of them is passed.
  static result<std::unique_ptr<pg_connection>> open(const std::string& conninfo);
  // The bounds above, as libpq keywords and values, in the order open() passes them.
  static const std::vector<std::pair<const char*, const char*>>& default_bounds();
  ~pg_connection();
  pg_connection(const pg_connection&) = delete;
  pg_connection& operator=(const pg_connection&) = delete;

  // One statement; `what` names it in errors ("insert job").
  result<pg_rows> exec(const char* what, const std::string& sql, const std::vector<pg_param>& params = {});
  // Several statements without parameters (schema migrations), in one round trip.
  status exec_script(const char* what, const std::string& sql);

  // The payloads of the notifications on `channel` that arrived since the last call (after LISTEN
  // on this connection), reading what the server has sent without blocking. unavailable once the
  // connection broke: it is not re-established here, since a new session does not listen.
  result<std::vector<std::string>> notifications(const std::string& channel);
  // Every notification that arrived since the last call, as (channel, payload), for a connection
  // that LISTENs on several channels.
  result<std::vector<std::pair<std::string, std::string>>> all_notifications();
  // Blocks until the server sends something on this connection or `timeout` passes.
  status wait_readable(std::chrono::milliseconds timeout);

  // "host=/tmp/x dbname=cuzk": how errors name this server.
  const std::string& name() const noexcept { return name_; }
  // Whether the connection is broken (the last statement met the break; the next one makes a new
  // connection). After a failed COMMIT it tells a refusal from a reply that never came.
  bool lost() const noexcept;
  // The SQLSTATE of the last statement that failed with one ("55P03"), empty after one that
  // succeeded or failed without a reply: for a caller that tells one refusal from the others.
  const std::string& last_sqlstate() const noexcept { return last_sqlstate_; }

 private:
  explicit pg_connection(::pg_conn* c);
  status reconnect_if_broken();
  status error(const char* what) const;
  status failure(const char* what, const ::pg_result* r) const;  // of a statement that returned r

  ::pg_conn* c_;
  std::string name_;
  std::string last_sqlstate_;
};

// A transaction on `c`: BEGIN at construction, ROLLBACK at scope exit unless commit() ran.
class pg_transaction {
 public:
  static result<pg_transaction> begin(pg_connection& c);
  ~pg_transaction();
  pg_transaction(pg_transaction&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  pg_transaction& operator=(pg_transaction&&) = delete;
  pg_transaction(const pg_transaction&) = delete;
  pg_transaction& operator=(const pg_transaction&) = delete;

  // COMMIT. A failure with the connection still open is the server's refusal: the transaction was
  // rolled back. A failure that left the connection lost() is a COMMIT whose reply never came: it
  // may have committed or not (the server may have ended the session just before or just after it
  // made the commit durable), and only a look at what the transaction wrote tells
  // (pg_job_store::insert looks).
  status commit();

 private:
  explicit pg_transaction(pg_connection* c) noexcept : c_(c) {}
  pg_connection* c_;
};

}  // namespace cuzk::engine
