// SPDX-License-Identifier: MIT OR Apache-2.0
// How busy each GPU is by the daemon's own clock: the intervals in which a device slot's kernel
// lock was held, kept per slot, with the busy ratio since start and over a sliding window.
//
// What the ratio measures. A slot's workers run their kernels only while holding the slot's
// kernel lock (gpu_prover.hpp says where it is taken: by the MSM thread around A, B1, C, by B2's
// thread beside it, and by the proving thread from synthesis on the device or the first NTT to the
// end of the H MSM; the sides of one proof share one turn, so their intervals may overlap, and the prover reports
// their union as the proof's held spans, "gpu"). The lock makes one slot's held intervals
// disjoint, so their union is simply their sum, and
//     busy ratio over [t0, t1] = |union of held intervals, clipped to [t0, t1]| / (t1 - t0).
// It is an upper bound on the time the device ran this slot's kernels: a held interval also
// contains kernel launch gaps and the host work done under the lock (the MSMs' final sums). Two
// slots on one GPU (an ordinal listed twice) hold two locks, so their ratios can add up past one
// for that GPU; NVML's SM busy (gpu_utilization.hpp) is the device's own count to compare with.
//
// When an interval counts. A backend reports a proof's intervals when its prove() returns
// (backend_timings::kernel_spans), so the windowed ratio lags by up to one proof: an interval
// still running, or finished by a proof that has not returned, is not in it yet. Since-start
// totals read while the daemon is idle are exact; `cuzk bench` differences two of them.
//
// The window is (now - window, now], shortened to the time since start when that is less. The
// intervals kept per slot are those that can still fall in a window (they ended less than two
// windows before the latest one reported), so the windowed ratio is exact however many proofs run;
// a separate ring of the most recent spans (held intervals and their named parts) feeds the
// Chrome trace (timeline.hpp).
//
// Thread safety: any thread; one mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/jobs/job.hpp"
#include "groth16/phase_timings.hpp"

namespace cuzk::engine {

// An interval of a proof's GPU work, wall clock.
struct kernel_span {
  std::string name;  // "gpu" for held intervals; "msm_abc", "ntt_h", "msm_a", "ntt", ... for their parts
  int64_t begin_us = 0, end_us = 0;  // unix microseconds
  // true: a whole interval the kernel lock was held (what busy time is made of); false: a named
  // part inside one (the trace shows it, the ratio does not count it again).
  bool held = true;
};

// A prover's spans (host steady clock) on the wall clock, from one reading of each clock.
std::vector<kernel_span> on_wall_clock(std::span<const groth16::kernel_span> spans);

// A span with where it ran, for the trace.
struct kernel_record {
  int slot = 0;
  int worker = 0;
  job_id job = 0;
  uint32_t partition = 0;
  kernel_span span;
};

struct kernel_busy {
  uint64_t intervals = 0;  // held intervals since start
  double busy_s = 0;       // their total length
  double ratio = 0;        // busy_s / seconds since start
  double window_s = 0;     // the window's length (shorter than configured right after start)
  double window_busy_s = 0;
  double window_ratio = 0;
};

class kernel_activity {
 public:
  kernel_activity(std::size_t slots, int64_t started_unix_us,
                  std::chrono::milliseconds window = std::chrono::milliseconds(10000),
                  std::size_t trace_capacity = 16384);

  // A partition's spans on `slot`; a slot out of range is ignored (a CPU fallback has none).
  void record(int slot, int worker, job_id job, uint32_t partition, std::span<const kernel_span> spans);
  // Per slot, at `now_unix_us`.
  std::vector<kernel_busy> busy(int64_t now_unix_us) const;
  // The most recent spans of every slot, oldest recorded first.
  std::vector<kernel_record> recent() const;
  double window_s() const noexcept { return static_cast<double>(window_us_) / 1e6; }

 private:
  struct interval {
    int64_t begin_us, end_us;
  };
  struct slot_state {
    uint64_t intervals = 0;
    int64_t busy_us = 0;
    int64_t latest_end_us = 0;
    std::deque<interval> kept;  // those that can still fall in a window
  };
  const int64_t started_us_;
  const int64_t window_us_;
  const std::size_t trace_capacity_;
  mutable std::mutex m_;
  std::vector<slot_state> slots_;
  std::deque<kernel_record> trace_;
};

}  // namespace cuzk::engine
