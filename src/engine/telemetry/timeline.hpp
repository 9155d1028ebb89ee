// SPDX-License-Identifier: MIT OR Apache-2.0
// Every job's events with timestamps, for status and for a Chrome trace (chrome://tracing,
// Perfetto) that shows each worker's proofs as a waterfall: the gaps between one proof's end and
// the next one's start are where the hardware idled, which is what the Rust cuzk's TIMELINE CSV
// was for.
//
// The device lanes come from kernel_activity's spans: they show whether the GPU was kept busy,
// which the job lanes cannot (a worker can be "proving" while waiting for the kernel lock).
//
// Events live in a ring of the most recent `capacity`; a job's own events are also kept with the
// job while it is live (engine status).
//
// Thread safety: any thread; one mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/jobs/job.hpp"
#include "engine/telemetry/kernel_activity.hpp"

namespace cuzk::engine {

enum class event_kind : uint8_t {
  queued,
  dispatched,
  key_ready,
  synth_start,
  synth_end,
  prove_start,
  prove_end,
  verify_start,
  verify_end,
  done,
  failed,
  cancelled,
  requeued,
  // A partition's witness read from its file or computed from its input JSON, on a reading thread
  // (several at once, and beside the previous batch's proof).
  witness_start,
  witness_end,
};
const char* event_kind_name(event_kind k) noexcept;

struct timeline_event {
  job_id job = 0;
  uint32_t partition = 0;
  event_kind kind = event_kind::queued;
  int worker = -1;      // -1: not on a worker (queued, requeued)
  int64_t unix_us = 0;  // wall clock, microseconds
};

int64_t now_unix_us() noexcept;

class timeline {
 public:
  explicit timeline(std::size_t capacity = 65536) : capacity_(capacity) {}
  void record(const timeline_event& e);
  std::vector<timeline_event> recent() const;
  // Drops every event of `job`: one that was never accepted (its submit withdrew it) has no place
  // in the trace.
  void forget(job_id job);

 private:
  std::size_t capacity_;
  mutable std::mutex m_;
  std::deque<timeline_event> ring_;
};

// The Chrome trace event format (JSON object with "traceEvents", as chrome://tracing and
// Perfetto load it). Process 1, "workers": one row per worker, a span per synthesis, prove and
// verification, instant events for the rest. Witness reads overlap each other (several partitions
// at once), which spans on one row cannot show, so each is an async span ("b"/"e", category
// "witness", id "job.partition") beside its worker's row. Then one process per device slot (pid
// device_trace_pid + slot, named by `device_names[slot]`, else "device:<slot>") with one row per
// worker (tid = worker + 1, as in process 1) holding that worker's kernel-lock intervals as
// complete events, and their named parts nested inside: where the device idled is the gap between
// them.
inline constexpr int device_trace_pid = 100;
std::string chrome_trace_json(std::span<const timeline_event> events, std::span<const kernel_record> kernels = {},
                              std::span<const std::string> device_names = {});

}  // namespace cuzk::engine
