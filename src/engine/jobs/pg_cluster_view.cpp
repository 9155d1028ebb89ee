// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster's nodes and queue (see pg_cluster_view.hpp).
#include "engine/jobs/pg_cluster_view.hpp"

#include "engine/jobs/pg_schema.hpp"

namespace cuzk::engine {

status pg_publish_node_report(pg_connection& c, const std::string& node, const std::string& report) {
  // The server's clock for both times, as the leases' heartbeat has it.
  auto r = c.exec("publish the node's report",
                  "INSERT INTO nodes (id, heartbeat_at, report, reported_at) "
                  "VALUES ($1, clock_timestamp(), $2::jsonb, clock_timestamp()) "
                  "ON CONFLICT (id) DO UPDATE SET heartbeat_at = greatest(nodes.heartbeat_at, "
                  "EXCLUDED.heartbeat_at), report = EXCLUDED.report, reported_at = EXCLUDED.reported_at",
                  {node, report});
  if (!r) return r.error();
  return status::ok();
}

result<cluster_state> pg_read_cluster(pg_connection& c, std::chrono::milliseconds stale_after) {
  cluster_state out;
  out.stale_after_s = std::chrono::duration<double>(stale_after).count();
  // One snapshot for both reads: the counts and the nodes' leases agree with each other.
  auto tx = pg_transaction::begin(c);
  if (!tx) return tx.error();
  {
    auto snapshot = c.exec("read the cluster", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (!snapshot) return snapshot.error();
  }
  auto nodes = c.exec("read the cluster's nodes",
                      "SELECT n.id, n.report::text, (extract(epoch FROM n.started_at) * 1000)::bigint, "
                      "extract(epoch FROM clock_timestamp() - n.heartbeat_at)::double precision, "
                      "extract(epoch FROM clock_timestamp() - n.reported_at)::double precision, "
                      "(SELECT count(*) FROM jobs j WHERE j.lease_node = n.id AND j.state NOT IN (5, 6, 7) "
                      "AND j.lease_expires_at >= clock_timestamp()) "
                      "FROM nodes n ORDER BY n.id");
  if (!nodes) return nodes.error();
  for (int row = 0; row < nodes->size(); ++row) {
    cluster_node n;
    n.id = nodes->text(row, 0);
    n.report = nodes->text(row, 1);
    n.started_unix_ms = nodes->i64(row, 2);
    n.heartbeat_age_s = nodes->f64(row, 3);
    if (!nodes->is_null(row, 4)) n.report_age_s = nodes->f64(row, 4);
    n.alive = n.heartbeat_age_s < out.stale_after_s;
    n.leases = static_cast<uint64_t>(nodes->i64(row, 5));
    out.nodes.push_back(std::move(n));
  }
  // The unfinished jobs only: the claim order's partial index covers them.
  auto queue = c.exec("count the cluster's queue",
                      "SELECT priority, state = 0, count(*) FROM jobs WHERE state NOT IN (5, 6, 7) "
                      "GROUP BY 1, 2");
  if (!queue) return queue.error();
  for (int row = 0; row < queue->size(); ++row) {
    const int64_t p = queue->i64(row, 0);
    if (p < 0 || p >= priority_count) continue;  // a class this build does not know
    auto& counts = out.queue[static_cast<std::size_t>(p)];
    (queue->boolean(row, 1) ? counts.queued : counts.running) += static_cast<uint64_t>(queue->i64(row, 2));
  }
  CUZK_TRY(tx->commit());
  out.read_unix_ms = to_unix_ms(wall_clock::now());
  return out;
}

result<std::unique_ptr<pg_cluster_view>> pg_cluster_view::start(options o) {
  if (o.node.empty())
    return status(errc::invalid_argument, "cluster view: node: expected a name, found none");
  if (!o.report)
    return status(errc::invalid_argument, "cluster view: report: expected a function, found none");
  if (o.interval.count() < 1 || o.stale_after <= o.interval)
    return status(
        errc::invalid_argument,
        "cluster view: expected an interval of at least 1 ms and a staleness longer than it, found " +
            std::to_string(o.interval.count()) + " ms and " + std::to_string(o.stale_after.count()) + " ms");
  auto c = pg_connection::open(o.conninfo);
  if (!c) return c.error();
  CUZK_TRY(pg_migrate(**c));
  std::unique_ptr<pg_cluster_view> v(new pg_cluster_view(std::move(o), std::move(c).value()));
  v->round();
  v->thread_ = std::thread([p = v.get()] { p->run(); });
  return v;
}

pg_cluster_view::pg_cluster_view(options o, std::unique_ptr<pg_connection> c)
    : o_(std::move(o)), c_(std::move(c)) {}

pg_cluster_view::~pg_cluster_view() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

pg_cluster_view::latest_read pg_cluster_view::latest() const {
  std::lock_guard lk(m_);
  return latest_;
}

void pg_cluster_view::round() {
  // The report is built outside the lock: it reads the engine's snapshot, which takes its own.
  status published = pg_publish_node_report(*c_, o_.node, o_.report());
  auto read = pg_read_cluster(*c_, o_.stale_after);
  std::lock_guard lk(m_);
  if (read) latest_.state = std::move(read).value();
  latest_.error = !published ? published.to_string() : !read ? read.error().to_string() : std::string();
}

void pg_cluster_view::run() {
  std::unique_lock lk(m_);
  while (!cv_.wait_for(lk, o_.interval, [this] { return stop_; })) {
    lk.unlock();
    round();
    lk.lock();
  }
}

}  // namespace cuzk::engine
