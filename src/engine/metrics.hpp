// Counters and latency histograms, per circuit and phase, as data.
//
// The service renders these as Prometheus text (cumulative `_bucket{le=...}` lines from the
// per-bucket counts here, plus `_sum` and `_count`); the engine only counts. Buckets are fixed,
// from 5 ms (a small circom proof's verification) to 10 min (a 2^27 BLS12-381 proof on a CPU), so
// every daemon's histograms line up and can be summed across machines.
//
// Thread safety: any thread; one mutex (a few increments per phase of a job).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "engine/job.hpp"

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
  uint64_t rejected = 0;   // submit() refused (bad request, unknown circuit, draining)
  uint64_t recovered = 0;  // re-queued from the store at start
  uint64_t partitions_proved = 0;
};

struct circuit_metrics {
  job_counters counters;
  std::array<histogram, phase_count> phases;  // indexed by phase
};

struct metrics_snapshot {
  job_counters total;
  std::map<std::string, circuit_metrics> circuits;
};

class metrics {
 public:
  enum class counter {
    submitted,
    completed,
    failed,
    cancelled,
    deadline_miss,
    rejected,
    recovered,
    partition
  };
  void add(const std::string& circuit, counter c, uint64_t n = 1);
  void observe(const std::string& circuit, phase p, double seconds);
  metrics_snapshot snapshot() const;

 private:
  mutable std::mutex m_;
  metrics_snapshot s_;
};

}  // namespace cuzk::engine
