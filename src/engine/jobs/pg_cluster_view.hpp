// SPDX-License-Identifier: MIT OR Apache-2.0
// The cluster as the daemons on one PostgreSQL database see it: every node with what it published
// about itself and how long ago it was last heard from, and the shared queue counted by priority.
//
// Each node publishes a report, a JSON document it builds from its own status (its devices with
// their memory and key budgets, the keys resident on them, its workers and how many are busy, its
// version), into its row of `nodes` (schema version 5), every `interval`, on a thread and a
// connection of its own: a slow /status reader or a claim in flight never delays it, and it runs
// whether or not the node holds leases. Writing the report also counts as a heartbeat: `nodes`'
// heartbeat_at is the latest of this and the leases' heartbeat (pg_job_leases.hpp).
//
// The same thread then reads the whole cluster and keeps it: /status answers from what was read
// last (at most one interval old), so however often and by whomever /status is asked, the database
// sees one read per node per interval. A node is alive while its last heartbeat is younger than
// `stale_after` by the server's clock (never a node's), stale after that: a node that was killed,
// lost its network or was stopped stays listed, stale, so that its absence shows.
//
// The queue is counted over the whole database, not this node's jobs: per priority class, the jobs
// waiting (queued) and those a node is working on (loading a key, synthesizing, proving,
// verifying), with the jobs each node holds under a live lease.
//
// Thread safety: latest() from any thread; the publishing thread is the object's own.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/jobs/job.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

// One node of the cluster as the database last heard from it.
struct cluster_node {
  std::string id;
  std::string report = "{}";           // the JSON document it published; "{}" when it never did
  int64_t started_unix_ms = 0;         // when its row was first written
  double heartbeat_age_s = 0;          // since its last heartbeat or report (the server's clock)
  std::optional<double> report_age_s;  // since its last report; none when it never published one
  bool alive = false;                  // heartbeat_age_s < the view's stale_after
  uint64_t leases = 0;                 // jobs it holds under a lease that has not ended
};

// Jobs of one priority class across the cluster.
struct cluster_queue_counts {
  uint64_t queued = 0;
  uint64_t running = 0;  // loading a key, synthesizing, proving or verifying on some node
};

struct cluster_state {
  std::vector<cluster_node> nodes;                           // by id
  std::array<cluster_queue_counts, priority_count> queue{};  // indexed by priority
  double stale_after_s = 0;
  int64_t read_unix_ms = 0;  // when it was read (this node's clock)
};

// Writes `report` (a JSON document) as `node`'s, with its heartbeat, creating the node's row.
status pg_publish_node_report(pg_connection& c, const std::string& node, const std::string& report);
// Reads every node and the queue's counts; a node is alive while its heartbeat is younger than
// `stale_after`.
result<cluster_state> pg_read_cluster(pg_connection& c, std::chrono::milliseconds stale_after);

class pg_cluster_view {
 public:
  struct options {
    std::string conninfo;
    std::string node;                              // this node's name, unique in the cluster
    std::function<std::string()> report;           // this node's report, a JSON object
    std::chrono::milliseconds interval{2000};      // how often it publishes and reads
    std::chrono::milliseconds stale_after{10000};  // a heartbeat older than this is stale
  };

  // Connects, migrates the schema as the store does (pg_schema.hpp), publishes and reads once (so
  // the first /status already has the cluster), then starts the thread.
  static result<std::unique_ptr<pg_cluster_view>> start(options o);
  // Stops the thread; the node's row stays, and turns stale.
  ~pg_cluster_view();
  pg_cluster_view(const pg_cluster_view&) = delete;
  pg_cluster_view& operator=(const pg_cluster_view&) = delete;

  struct latest_read {
    std::optional<cluster_state> state;  // the last read that succeeded
    std::string error;                   // why the last round failed; empty when it did not
  };
  latest_read latest() const;

 private:
  explicit pg_cluster_view(options o, std::unique_ptr<pg_connection> c);
  // Publishes this node's report, then reads the cluster; the outcome goes to latest().
  void round();
  void run();

  options o_;
  std::unique_ptr<pg_connection> c_;  // the thread's alone after start()
  mutable std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  latest_read latest_;
  std::thread thread_;
};

}  // namespace cuzk::engine
