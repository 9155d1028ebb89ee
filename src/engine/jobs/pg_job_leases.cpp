// SPDX-License-Identifier: MIT OR Apache-2.0
// Leases on the shared queue (see pg_job_leases.hpp).
#include "engine/jobs/pg_job_leases.hpp"

#include <thread>

#include "engine/jobs/pg_job_result.hpp"
#include "engine/jobs/pg_schema.hpp"

namespace cuzk::engine {

result<std::unique_ptr<pg_job_leases>> pg_job_leases::open(const std::string& conninfo, std::string node,
                                                           std::chrono::milliseconds lease) {
  if (node.empty()) return status(errc::invalid_argument, "job leases: node: expected a name, found none");
  if (lease.count() < 1)
    return status(errc::invalid_argument, "job leases: lease: expected at least 1 ms, found " +
                                              std::to_string(lease.count()) + " ms");
  auto c = pg_connection::open(conninfo);
  if (!c) return c.error();
  CUZK_TRY(pg_migrate(**c));
  return std::unique_ptr<pg_job_leases>(new pg_job_leases(std::move(c).value(), std::move(node), lease));
}

namespace {

// A text[] literal: each element double-quoted, its quotes and backslashes escaped.
std::string pg_text_array(const std::vector<std::string>& v) {
  std::string out = "{";
  for (std::size_t k = 0; k < v.size(); ++k) {
    out += k > 0 ? ",\"" : "\"";
    for (char ch : v[k]) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "}";
}

}  // namespace

result<std::optional<job_lease>> pg_job_leases::claim_where(const std::string& filter_and_order,
                                                            std::vector<pg_param> params) {
  std::lock_guard lk(m_);
  // FOR UPDATE SKIP LOCKED: a row another node is claiming (or finishing) right now is passed over,
  // not waited for. A row whose claim committed after this statement's snapshot is checked again
  // under its lock, and skipped once its new lease shows it is taken.
  // The lease's end is the server's clock plus $2 milliseconds. The claim is the attempt's start
  // (state loading_key, attempts counted): a node claims only for a worker about to take the job.
  params.insert(params.begin(), {node_, lease_ms_});
  auto r = c_->exec("claim a job",
                    "UPDATE jobs SET lease_node = $1, lease_generation = lease_generation + 1, "
                    "lease_expires_at = clock_timestamp() + $2::bigint * interval '1 millisecond', "
                    "attempts = attempts + 1, state = " + std::to_string(int(job_state::loading_key)) + " "
                    "WHERE id = (SELECT id FROM jobs WHERE state NOT IN (5, 6, 7) "
                    "AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp()) " +
                        filter_and_order +
                        " LIMIT 1 FOR UPDATE SKIP LOCKED) "
                        "RETURNING id, lease_generation, circuit, priority, attempts, cancel_requested",
                    params);
  if (!r) return r.error();
  if (r->size() == 0) return std::optional<job_lease>();
  return std::optional<job_lease>(
      job_lease{static_cast<job_id>(r->i64(0, 0)), static_cast<uint64_t>(r->i64(0, 1)), r->text(0, 2),
                static_cast<priority>(r->i64(0, 3)), static_cast<uint32_t>(r->i64(0, 4)), r->boolean(0, 5)});
}

result<std::optional<job_lease>> pg_job_leases::claim(const claim_preference& prefer) {
  if (prefer.resident_circuits.empty()) return claim_where("ORDER BY priority DESC, id", {});
  // submitted_ms is the submitting node's clock against the server's now: a skew between them
  // shifts the bound by as much, never past it by more.
  return claim_where(
      "ORDER BY priority DESC, (circuit = ANY($3::text[]) OR submitted_ms <= "
      "(extract(epoch FROM clock_timestamp()) * 1000)::bigint - $4::bigint) DESC, id",
      {pg_text_array(prefer.resident_circuits), pg_text(int64_t(prefer.max_wait.count()))});
}

result<std::optional<job_lease>> pg_job_leases::claim_same(const std::string& circuit, priority prio) {
  return claim_where("AND circuit = $3 AND priority = $4 ORDER BY id", {circuit, pg_text(int64_t(prio))});
}

result<std::optional<job_lease>> pg_job_leases::claim_id(job_id id) {
  return claim_where("AND id = $3", {pg_text(int64_t(id))});
}

result<std::size_t> pg_job_leases::take_node_name() {
  std::lock_guard lk(m_);
  const auto last_heartbeat = [&]() -> result<std::optional<std::string>> {
    auto r = c_->exec("take the node name",
                      "SELECT heartbeat_at::text FROM nodes WHERE id = $1 AND heartbeat_at > "
                      "clock_timestamp() - $2::bigint * interval '1 millisecond'",
                      {node_, lease_ms_});
    if (!r) return r.error();
    if (r->size() == 0) return std::optional<std::string>();
    return std::optional<std::string>(r->text(0, 0));
  };
  auto seen = last_heartbeat();
  if (!seen) return seen.error();
  if (*seen) {
    // A live node heartbeats every third of a lease: half a lease shows at least one of its beats.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stoll(lease_ms_) / 2));
    auto again = last_heartbeat();
    if (!again) return again.error();
    if (*again && **again != **seen)
      return status(errc::already_exists, "node " + node_ + ": another live daemon of this name heartbeats on " +
                                              c_->name() + " (at " + **again +
                                              "); give each daemon its own node_name");
  }
  auto r = c_->exec("take the node name",
                    "WITH back AS (UPDATE jobs SET lease_node = NULL, lease_expires_at = NULL, state = $2 "
                    "WHERE lease_node = $1 AND state NOT IN (5, 6, 7) RETURNING id) "
                    "SELECT count(*), coalesce(pg_notify($3, min(id)::text), '') FROM back",
                    {node_, pg_text(int64_t(job_state::queued)), pg_job_queued_channel});
  if (!r) return r.error();
  return static_cast<std::size_t>(r->i64(0, 0));
}

result<heartbeat_outcome> pg_job_leases::heartbeat() {
  std::lock_guard lk(m_);
  auto r =
      c_->exec("heartbeat",
               "WITH seen AS (INSERT INTO nodes (id, heartbeat_at) VALUES ($1, clock_timestamp()) "
               "ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at) "
               "UPDATE jobs SET lease_expires_at = clock_timestamp() + $2::bigint * interval '1 millisecond' "
               "WHERE lease_node = $1 AND state NOT IN (5, 6, 7) RETURNING id, cancel_requested",
               {node_, lease_ms_});
  if (!r) return r.error();
  heartbeat_outcome out;
  out.renewed = static_cast<std::size_t>(r->size());
  for (int row = 0; row < r->size(); ++row)
    if (r->boolean(row, 1)) out.cancel_requested.push_back(static_cast<job_id>(r->i64(row, 0)));
  return out;
}

result<cancel_outcome> pg_job_leases::request_cancel(job_id id, const std::string& reason) {
  std::lock_guard lk(m_);
  auto tx = pg_transaction::begin(*c_);
  if (!tx) return tx.error();
  const std::string key = pg_text(int64_t(id));
  auto r = c_->exec("cancel",
                    "SELECT state, attempts, partitions, circuit, priority, "
                    "lease_node IS NOT NULL AND lease_expires_at >= clock_timestamp() "
                    "FROM jobs WHERE id = $1 FOR UPDATE",
                    {key});
  if (!r) return r.error();
  if (r->size() == 0) return status(errc::not_found, "job " + std::to_string(id) + ": cancel: no such job");
  const auto state = static_cast<job_state>(r->i64(0, 0));
  if (is_terminal(state))
    return status(errc::failed_precondition,
                  "job " + std::to_string(id) + ": cancel: it already ended (" + job_state_name(state) + ")");
  if (r->boolean(0, 5)) {
    auto flag = c_->exec("cancel", "UPDATE jobs SET cancel_requested = true WHERE id = $1", {key});
    if (!flag) return flag.error();
    CUZK_TRY(tx->commit());
    return cancel_outcome::holder_asked;
  }
  job_result end;
  end.id = id;
  end.state = job_state::cancelled;
  end.attempts = static_cast<uint32_t>(r->i64(0, 1));
  end.partitions = static_cast<uint32_t>(r->i64(0, 2));
  end.circuit = r->text(0, 3);
  end.prio = static_cast<priority>(r->i64(0, 4));
  end.error = status(errc::cancelled, reason);
  end.finished_at = wall_clock::now();
  CUZK_TRY(pg_write_result(*c_, end));
  auto fence =
      c_->exec("cancel",
               "UPDATE jobs SET cancel_requested = true, lease_node = NULL, lease_expires_at = NULL, "
               "lease_generation = lease_generation + 1 WHERE id = $1",
               {key});
  if (!fence) return fence.error();
  CUZK_TRY(tx->commit());
  return cancel_outcome::ended;
}

status pg_job_leases::hold_fence(const job_lease& l, const char* what, bool* ended_by_us) {
  // FOR UPDATE waits for a claim of this row in flight, then reads the row as that claim left it.
  auto r = c_->exec(
      what, "SELECT lease_generation, coalesce(lease_node, ''), state FROM jobs WHERE id = $1 FOR UPDATE",
      {pg_text(int64_t(l.id))});
  if (!r) return r.error();
  if (r->size() == 0)
    return status(errc::not_found, "job " + std::to_string(l.id) + ": " + what + ": no such job");
  const auto generation = static_cast<uint64_t>(r->i64(0, 0));
  const std::string holder = r->text(0, 1);
  const auto state = static_cast<job_state>(r->i64(0, 2));
  // Only this lease's own commit ends a job and leaves the generation and holder as they were (a
  // cancel from elsewhere moves the generation on): an ended row of this lease is a commit of ours
  // whose answer was lost with the connection.
  if (ended_by_us && generation == l.generation && holder == node_ && is_terminal(state)) {
    *ended_by_us = true;
    return status::ok();
  }
  if (generation != l.generation || holder != node_ || is_terminal(state))
    return status(errc::failed_precondition,
                  "job " + std::to_string(l.id) + ": " + what + ": the lease of node " + node_ +
                      " (generation " + std::to_string(l.generation) +
                      ") is no longer the job's: it is at generation " + std::to_string(generation) +
                      (holder.empty() ? "" : ", held by node " + holder) + ", state " +
                      job_state_name(state) + "; nothing was written");
  return status::ok();
}

status pg_job_leases::finish(const job_lease& l, const job_result& info) {
  if (info.id != l.id || !is_terminal(info.state))
    return status(errc::invalid_argument, "job " + std::to_string(l.id) +
                                              ": finish: expected a terminal result of this job, found job " +
                                              std::to_string(info.id) + " in state " +
                                              job_state_name(info.state));
  std::lock_guard lk(m_);
  auto tx = pg_transaction::begin(*c_);
  if (!tx) return tx.error();
  // A retry of a commit whose answer was lost (the connection broke as it committed) finds the
  // result already there: done, not refused as late.
  bool ended_by_us = false;
  CUZK_TRY(hold_fence(l, "commit the result", &ended_by_us));
  if (ended_by_us) return status::ok();
  CUZK_TRY(pg_write_result(*c_, info));
  auto r = c_->exec("commit the result", "UPDATE jobs SET lease_expires_at = NULL WHERE id = $1",
                    {pg_text(int64_t(l.id))});
  if (!r) return r.error();
  return tx->commit();
}

status pg_job_leases::release(const job_lease& l) {
  std::lock_guard lk(m_);
  auto tx = pg_transaction::begin(*c_);
  if (!tx) return tx.error();
  CUZK_TRY(hold_fence(l, "release"));
  auto r = c_->exec("release",
                    "UPDATE jobs SET state = $2, lease_node = NULL, lease_expires_at = NULL, "
                    "attempts = greatest(attempts - 1, 0) WHERE id = $1",
                    {pg_text(int64_t(l.id)), pg_text(int64_t(job_state::queued))});
  if (!r) return r.error();
  auto n = c_->exec("release", "SELECT pg_notify($1, $2)", {pg_job_queued_channel, pg_text(int64_t(l.id))});
  if (!n) return n.error();
  return tx->commit();
}

}  // namespace cuzk::engine
