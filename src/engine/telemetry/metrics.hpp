// SPDX-License-Identifier: MIT OR Apache-2.0
// Counters and latency histograms, per circuit and phase, as data.
//
// The service renders these as Prometheus text (cumulative `_bucket{le=...}` lines from the
// per-bucket counts here, plus `_sum` and `_count`); the engine only counts. Buckets are fixed,
// from 5 ms (a small circom proof's verification) to 10 min (a 2^27 BLS12-381 proof on a CPU), so
// every daemon's histograms line up and can be summed across machines.
//
// Labels are bounded: a circuit label is only ever a registered circuit's id (counted once a job of
// it is accepted). A refused submission is counted by its reason, one of a fixed set, and never by
// the circuit it named: a client that sends made-up ids would otherwise add a Prometheus series per
// id, without bound.
//
// Thread safety: any thread; one mutex (a few increments per phase of a job).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "engine/jobs/job.hpp"

namespace cuzk::engine {

inline constexpr std::array<double, 16> latency_buckets_s = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                             2.5,   5,    10,    25,   60,  120,  300, 600};

struct histogram {
  // counts[i]: observations <= latency_buckets_s[i] and above the previous bound; the last slot
  // counts those above every bound (+Inf).
  std::array<uint64_t, latency_buckets_s.size() + 1> counts{};
  double sum = 0;
  uint64_t count = 0;
  void observe(double seconds) noexcept;
};

struct job_counters {
  uint64_t submitted = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t cancelled = 0;
  uint64_t deadline_misses = 0;
  uint64_t recovered = 0;  // re-queued from the store at start
  uint64_t partitions_proved = 0;
};

// Why submit() refused a job. Shown as the `reason` label: never renumber or rename lightly.
enum class reject_reason : uint8_t {
  draining = 0,         // the daemon is shutting down
  unknown_circuit,      // the circuit id is not registered
  malformed_request,    // no partitions, or a partition with neither or both of bytes and path
  bad_witness,          // not a .wtns, another curve, wrong length, a value >= r, unreadable path
  spool_failed,         // the daemon could not write an inline witness to its spool
  request_id_conflict,  // the request id names a job of another circuit
};
inline constexpr int reject_reason_count = 6;
const char* reject_reason_name(reject_reason r) noexcept;  // "unknown_circuit", ...

struct circuit_metrics {
  job_counters counters;
  std::array<histogram, phase_count> phases;  // indexed by phase
};

struct metrics_snapshot {
  job_counters total;
  std::map<std::string, circuit_metrics> circuits;
  std::array<uint64_t, reject_reason_count> rejected{};  // indexed by reject_reason
  uint64_t rejected_total() const noexcept;
};

class metrics {
 public:
  enum class counter { submitted, completed, failed, cancelled, deadline_miss, recovered, partition };
  void add(const std::string& circuit, counter c, uint64_t n = 1);
  void observe(const std::string& circuit, phase p, double seconds);
  void reject(reject_reason r);
  metrics_snapshot snapshot() const;

 private:
  mutable std::mutex m_;
  metrics_snapshot s_;
};

}  // namespace cuzk::engine
